#!/usr/bin/env bash
# The proof on what apps ship: the optimized build (`-c release`). Debug and optimized code differ where it matters
# to a crash guard (tail calls, inlining, where a Swift closure's body lies), so the crash matrix, the differential
# fuzzer and the stress test run here on the release build too, and GNUstep Base's own test suite runs with
# CrashShield inside (scripts/gnustep-suite.sh) when asked: PROOF_GNUSTEP_SUITE=0 skips it.
#   scripts/proof-release.sh        (CI runs it from scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The tools are the Tools package's (Tools/Package.swift), built in Tools/.build.
# The build's warnings are the debug build's too: only its last lines here (the whole log on failure).
build() {
    local log
    log=$(mktemp)
    if ! swift build --package-path Tools -c release --product "$1" >"$log" 2>&1; then cat "$log"; rm -f "$log"; return 1; fi
    tail -n 1 "$log"
    rm -f "$log"
}
build crashshield-matrix
build crashshield-proof
echo "== crash matrix, optimized build"
Tools/.build/release/crashshield-matrix run | tail -n 3
echo "== differential fuzzer, optimized build (seed ${PROOF_FUZZ_SEED:-3}, ${PROOF_FUZZ_CALLS:-200000} calls)"
Tools/.build/release/crashshield-proof fuzz --seed "${PROOF_FUZZ_SEED:-3}" --calls "${PROOF_FUZZ_CALLS:-200000}" --examples 3 \
    | grep -v '^count '
echo "== stress, optimized build (${PROOF_STRESS_SECONDS:-20} s)"
Tools/.build/release/crashshield-proof stress --seconds "${PROOF_STRESS_SECONDS:-20}" | tail -n 3
if [ "${PROOF_GNUSTEP_SUITE:-1}" != 0 ] && [ -x scripts/gnustep-suite.sh ]; then
    echo "== GNUstep Base's test suite with CrashShield inside (plain, release mode, debug mode)"
    scripts/gnustep-suite.sh
fi
