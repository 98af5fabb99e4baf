#!/usr/bin/env bash
# Memory and thread checkers over CrashShield:
#   valgrind  memcheck over `crashshield-proof workload` (start every guard, good and bad calls of every family from
#             Objective-C, stop; three cycles), with scripts/valgrind.supp for glibc/libobjc/GNUstep noise;
#   tsan      ThreadSanitizer over `crashshield-proof stress` (8 threads of good and bad calls while another starts,
#             stops and toggles guards), built with --sanitize=thread into .build-tsan, with scripts/tsan.supp.
# Every report that remains is counted; the ones whose stack goes through CrashShield's own code (Swift module
# CrashShield, the csr_ C layer, CSR classes) are printed in full. Exits 1 when any such report remains.
#   ownership memcheck over OwnershipTests (the Objective-C layer's objects handed to Swift and the runtime; CI)
#   scripts/sanitize.sh [valgrind|ownership|tsan|all] (default all); TSAN_SECONDS (default 20), ROUNDS (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
mode=${1:-all}
out=.build/sanitize
mkdir -p "$out"
attributed_total=0

# Prints the records of a checker's log whose first line matches $2 and whose stack names CrashShield code, then a
# last line "<records> <attributed>". $3: the text that separates records ("valgrind" or "tsan").
attributed() {
    awk -v kinds="$2" -v style="$3" '
        function flush(   i, ours) {
            if (n > 0 && rec[1] ~ kinds) {
                total++
                ours = 0
                # Only the accesses (or the allocation) count, not where a mutex or a thread was created.
                for (i = 1; i <= n && rec[i] !~ /^  (Mutex |Thread T|Location is)/; i++)
                    if (rec[i] ~ /\$s11CrashShield|[ :]csr_[a-z]|_[ic]_CSR/) ours = 1
                if (ours) {
                    count++
                    print "---- " rec[1]
                    for (i = 2; i <= n && i <= 40; i++) print "    " rec[i]
                }
            }
            n = 0
        }
        style == "valgrind" { sub(/^==[0-9]+== ?/, ""); if ($0 == "") flush(); else rec[++n] = $0; next }
        style == "tsan" {
            if ($0 ~ /^WARNING: ThreadSanitizer:/) { flush(); rec[++n] = $0; next }
            if ($0 ~ /^(==================|SUMMARY: ThreadSanitizer)/) { flush(); next }
            if (n > 0) rec[++n] = $0
        }
        END { flush(); print total + 0, count + 0 }
    ' "$1"
}

# memcheck LABEL LOG BINARY ARGS...: BINARY (a stripped copy: valgrind cannot read the DWARF the Swift compiler emits)
# under memcheck with scripts/valgrind.supp; prints the errors and definite leaks that remain, attributed.
memcheck() {
    local label=$1 log=$2
    shift 2
    valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
        --num-callers=40 --suppressions=scripts/valgrind.supp --log-file="$log" "$@" >"$log.out" 2>&1 \
        || echo "$label: the program failed under valgrind (exit $?): see $log.out"
    local result
    result=$(attributed "$log" '^(Invalid |Conditional jump|Use of uninitialised|Mismatched free|Syscall param|Source and destination overlap|.*definitely lost in loss record)' valgrind)
    echo "$result" | sed '$d'
    read -r records ours <<<"$(echo "$result" | tail -1)"
    grep -E "ERROR SUMMARY|definitely lost:|indirectly lost:|possibly lost:" "$log" | sed "s/^==[0-9]*== /$label: /"
    echo "$label: $records errors and definite leaks after suppressions, $ours of them through CrashShield code"
    attributed_total=$((attributed_total + ours))
}

run_valgrind() {
    command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; return 1; }
    swift build --package-path Tools --product crashshield-proof
    cp Tools/.build/debug/crashshield-proof "$out/crashshield-proof-nodebug"
    strip --strip-debug "$out/crashshield-proof-nodebug"
    echo "valgrind: memcheck over start/workload/stop (${ROUNDS:-5} rounds, 3 cycles); log in $out/valgrind.log"
    memcheck valgrind "$out/valgrind.log" "$out/crashshield-proof-nodebug" workload --rounds "${ROUNDS:-5}" --cycles 3
}

# The objects the Objective-C layer hands to Swift and to the runtime (OwnershipTests: KVO changes copied per
# observer, appendFormat:'s text, the signature a stopped unrecognized selector gets, long notification names): a
# release too many or too few shows here, under manual counting, as it would under ARC on Apple.
run_ownership() {
    command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; return 1; }
    swift build --package-path Tools --build-tests >/dev/null
    cp Tools/.build/debug/CrashShieldToolsPackageTests.xctest "$out/tests-nodebug.xctest"
    strip --strip-debug "$out/tests-nodebug.xctest"
    echo "ownership: memcheck over OwnershipTests; log in $out/ownership.log"
    memcheck ownership "$out/ownership.log" "$out/tests-nodebug.xctest" CrashShieldTests.OwnershipTests
    grep -q "Executed 4 tests, with 0 failures" "$out/ownership.log.out" || { echo "ownership: the tests failed: see $out/ownership.log.out"; attributed_total=$((attributed_total + 1)); }
}

run_tsan() {
    # Everything is rebuilt with -fsanitize=thread (Swift and the Objective-C targets); GNUstep and libobjc are not
    # instrumented: their own memory accesses are not seen, their pthread calls are (scripts/tsan.supp).
    swift build --package-path Tools --sanitize=thread --scratch-path "$PWD/.build-tsan" --product crashshield-proof
    # Two passes: every operation, then every operation but KVO (should a KVO operation crash the first pass early,
    # the second still gives the other guards their full time).
    local pass
    for pass in all without-kvo; do
        local log="$out/tsan-$pass.log" only=()
        [ "$pass" = without-kvo ] && only=(--only container,string,kvc,nsNull,unrecognizedSelector,notification.cycle,zombie,timer)
        echo "tsan: ThreadSanitizer over the stress test, $pass (${TSAN_SECONDS:-20} s, 8 threads, guards toggled); log in $log"
        TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp halt_on_error=0 exitcode=0 history_size=4" \
            .build-tsan/debug/crashshield-proof stress --seconds "${TSAN_SECONDS:-20}" --threads 8 --watchdog 120 "${only[@]}" \
            >"$log" 2>&1 || echo "tsan: the stress test itself failed (exit $?): see $log"
        grep -E "^stress: [0-9]|^STRESS" "$log" | sed 's/^/tsan: /' || true
        local result
        result=$(attributed "$log" '^WARNING: ThreadSanitizer:' tsan)
        echo "$result" | sed '$d'
        read -r records ours <<<"$(echo "$result" | tail -1)"
        echo "tsan ($pass): $records reports after suppressions, $ours of them through CrashShield code"
        attributed_total=$((attributed_total + ours))
    done
}

case "$mode" in
    valgrind) run_valgrind ;;
    ownership) run_ownership ;;
    tsan) run_tsan ;;
    all) run_valgrind; run_tsan ;;
    *) echo "usage: scripts/sanitize.sh [valgrind|ownership|tsan|all]" >&2; exit 64 ;;
esac
echo "sanitize: $attributed_total reports through CrashShield code"
[ "$attributed_total" -eq 0 ]
