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
scripts/install-deps.sh >&2
swift build --package-path Tools -c release --product crashshield-bench >&2
if [[ $instructions == 1 ]] && command -v valgrind >/dev/null; then
    counts=$(mktemp)
    trap 'rm -f "$counts"' EXIT
    scripts/bench-instructions.sh --no-build --out "$counts" >&2
    args+=(--instructions "$counts")
fi
Tools/.build/release/crashshield-bench --toolchain "$(swift --version 2>/dev/null | head -1)" "${args[@]}"
