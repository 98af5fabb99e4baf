#!/usr/bin/env bash
# Where the instructions of a guarded call and of the first start() go, function by function (callgrind).
#
#   scripts/bench-breakdown.sh [--no-build] [--calls N] [KERNEL...]    (default kernels: objectAtIndex:, array[i],
#                                                                       characterAtIndex:, app workload)
#
# For each kernel: the instructions per call of every function that runs in the counted loop (`csb_run_measured`),
# unguarded and guarded, and the difference: what the guard adds, part by part (the trampoline's frame, the lookup
# of the original, the check, the call). Then the process's first start() (Configuration.production), by inclusive
# instructions of its parts. The binary keeps its symbol table (`strip --strip-debug`: valgrind cannot read Swift's
# debug info, but static C functions and Swift's symbols stay named); Swift names are demangled with
# `swift demangle`. Instruction counts are repeatable whatever the machine does; each process gets the same empty
# environment (see bench-instructions.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
build=1 calls=100000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-build) build=0; shift ;;
        --calls) calls="$2"; shift 2 ;;
        *) break ;;
    esac
done
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
if [[ $build == 1 ]]; then swift build --package-path Tools -c release --product crashshield-bench >&2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/crashshield-bench" Tools/.build/release/crashshield-bench
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=("objectAtIndex:" "array[i]" "characterAtIndex:" "app workload")

# Runs callgrind; prints "instructions<TAB>function" per function (self cost), largest first.
profile() {  # output-file, then crashshield-bench arguments
    local out="$1"; shift
    env -i PATH=/usr/bin:/bin "$(command -v valgrind)" --tool=callgrind --callgrind-out-file="$out" "$@" \
        >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
}
self_costs() {  # callgrind file -> "Ir<TAB>function" lines
    callgrind_annotate --threshold=100 "$1" 2>/dev/null | awk '
        /^-+$/ { section++ ; next }
        section >= 3 && $1 ~ /^[0-9,]+$/ {
            ir = $1; gsub(",", "", ir); $1 = ""; sub(/^ +/, ""); sub(/ \[[^]]*\]$/, ""); sub(/^[^:]*:/, "")
            if ($0 !~ /PROGRAM TOTALS/) print ir "\t" $0
        }'
}
demangle() { if command -v swift >/dev/null; then swift demangle --simplified 2>/dev/null || cat; else cat; fi; }

for kernel in "${kernels[@]}"; do
    n=$calls; [[ "$kernel" == "app workload" ]] && n=20
    for mode in unguarded guarded; do
        profile "$work/$mode.out" --collect-atstart=no --toggle-collect=csb_run_measured \
            "$work/crashshield-bench" --kernel "$kernel" --mode "$mode" --iterations "$n"
        self_costs "$work/$mode.out" > "$work/$mode.tsv"
    done
    echo "== $kernel: instructions per call, by function ($n calls counted)"
    top=0; [[ "$kernel" == "app workload" ]] && top=16  # a whole screen load: the largest differences only
    python3 - "$work/unguarded.tsv" "$work/guarded.tsv" "$n" "$top" <<'PYEOF' | demangle
import sys
def read(path):
    costs = {}
    for line in open(path):
        ir, _, name = line.rstrip("\n").partition("\t")
        costs[name] = costs.get(name, 0) + int(ir)
    return costs
unguarded, guarded, calls = read(sys.argv[1]), read(sys.argv[2]), float(sys.argv[3])
names = sorted(set(unguarded) | set(guarded), key=lambda n: -max(unguarded.get(n, 0), guarded.get(n, 0)))
total_u, total_g = sum(unguarded.values()) / calls, sum(guarded.values()) / calls
top = int(sys.argv[4])
if top:  # the functions whose instructions changed most, the rest summed
    names = sorted(names, key=lambda n: -abs(guarded.get(n, 0) - unguarded.get(n, 0)))
    rest = names[top:]
    names = names[:top]
print("%10s %10s %10s  %s" % ("unguarded", "guarded", "added", "function"))
for name in names:
    u, g = unguarded.get(name, 0) / calls, guarded.get(name, 0) / calls
    if max(u, g) < 0.05 * max(total_u, 1) / 10 and abs(g - u) < 0.05:
        continue
    print("%10.2f %10.2f %+10.2f  %s" % (u, g, g - u, name))
if top:
    u, g = sum(unguarded.get(n, 0) for n in rest) / calls, sum(guarded.get(n, 0) for n in rest) / calls
    print("%10.2f %10.2f %+10.2f  (%d other functions)" % (u, g, g - u, len(rest)))
print("%10.2f %10.2f %+10.2f  total (%.3fx)" % (total_u, total_g, total_g - total_u, total_g / total_u))
PYEOF
    echo
done

echo "== first start() in the process (Configuration.production): inclusive instructions of its parts"
# Counted inside CrashShield.start only (its mangled name), so every part below is start()'s.
profile "$work/start.out" --collect-atstart=no '--toggle-collect=$s11CrashShieldAAO5startyyAA13ConfigurationVKFZ' \
    "$work/crashshield-bench" --start-profile 1
# Its parts by name, inclusive (a part's instructions include what it calls; parts overlap where one calls another).
callgrind_annotate --inclusive=yes --threshold=100 "$work/start.out" 2>/dev/null | demangle > "$work/flat.txt"
python3 - "$work/flat.txt" <<'PYEOF'
import re, sys
parts = [
    ("static CrashShield.start(_:)", "start(), all of it"),
    ("static CrashShield.install(_:in:skippingHookFailures:)", "  installing the guards"),
    ("ClassSamples.classes(of:)", "    class-cluster samples (objects made to learn the concrete classes)"),
    ("GSSortUnstable", "      of which Foundation's first sort (GNUstep: its first message reads the defaults and the locale)"),
    ("GSLanguageFromLocale", "        of which the locale (NSLocale's first use)"),
    ("csr_class_replaceOwnMethod", "    writing the hooks' implementations (GNUstep: into the dispatch tables)"),
    ("GuardDeclaration.container", "    the container guard's install"),
    ("GuardDeclaration.string", "    the string guard's install"),
    ("GuardDeclaration.kvo", "    the KVO guard's install"),
    ("GuardDeclaration.kvc", "    the KVC guard's install"),
    ("GuardDeclaration.unrecognizedSelector", "    the unrecognized-selector guard's install"),
    ("csr_runtime_end_batch", "  flushing the batch of dispatch-table writes (GNUstep)"),
    ("Session.init(configuration:)", "  the session (configuration, app images)"),
    ("swift_once", "  Swift's one-time initializers (the hook points' `static let`s, made at first install)"),
    ("__swift_instantiateConcreteTypeFromMangledName",
     "  the Swift runtime building generic type metadata (a hook point type per method signature; in part inside\n"
     "              the one-time initializers above)"),
]
costs = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(.*?) \[", line)
    if m:
        name = m.group(2)
        costs[name] = max(costs.get(name, 0), int(m.group(1).replace(",", "")))
for key, label in parts:
    found = [ir for name, ir in costs.items() if name.endswith(key) or (key in name and "closure" in name and key.startswith("GuardDeclaration"))]
    if found:
        print("%12s  %s" % (format(max(found), ","), label))
PYEOF
