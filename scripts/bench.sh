#!/usr/bin/env bash
# Guarded / unguarded cost of hot calls, an app-like workload, start()/stop() and stopped calls, in one release-build
# process; instruction ratios from callgrind (scripts/bench-instructions.sh) when valgrind is installed. What runs is
# the code Apple compiles (every hot read behind its trampoline); only hook installation (start() and stop()) is
# GNUstep's own (dispatch-table patching).
#
#   scripts/bench.sh [--markdown] [--no-instructions] [crashshield-bench options]
#   scripts/bench.sh --markdown > BENCHMARKS.md
set -euo pipefail
cd "$(dirname "$0")/.."
args=() instructions=1
for arg in "$@"; do
    case "$arg" in
        --no-instructions) instructions=0 ;;
        *) args+=("$arg") ;;
    esac
done
counts="" report=$(mktemp)
trap 'rm -f "$counts" "$report"' EXIT
scripts/install-deps.sh >&2
swift build --package-path Tools -c release --product crashshield-bench >&2
if [[ $instructions == 1 ]] && command -v valgrind >/dev/null; then
    counts=$(mktemp)
    scripts/bench-instructions.sh --no-build --out "$counts" >&2
    args+=(--instructions "$counts")
fi
Tools/.build/release/crashshield-bench --toolchain "$(swift --version 2>/dev/null | head -1)" "${args[@]}" | tee "$report"
# With --markdown and valgrind: where a guarded call's instructions and the first start()'s go, function by function,
# then the figures against issue 33's goals (scripts/bench-goals.py).
if [[ $instructions == 1 ]] && command -v valgrind >/dev/null && [[ " ${args[*]} " == *" --markdown "* ]]; then
    {
        printf '\n## Where the instructions go (scripts/bench-breakdown.sh)\n\n'
        printf 'Per call, by function, unguarded and guarded (self instructions in the counted loop; unnamed addresses\n'
        printf "are GNUstep's own static functions; for the app workload, the functions that changed most), then the\n"
        printf 'first start() by inclusive instructions of its parts.\n\n'
        printf '```\n'
        scripts/bench-breakdown.sh --no-build "objectAtIndex:" "array[i]" "characterAtIndex:" "addObject:" "app workload"
        printf '```\n'
    } | tee -a "$report"
    scripts/bench-goals.py "$report"
fi
