#!/usr/bin/env bash
# Instructions, guarded / unguarded, of the benchmark's kernels under callgrind: repeatable to the instruction
# whatever else the machine runs (wall-clock ratios here move by 0.1x between runs).
#
#   scripts/bench-instructions.sh [--out FILE] [--no-build] [KERNEL...]
#
# Each kernel runs in its own process (`crashshield-bench --kernel NAME --mode unguarded|guarded|stopped`): a
# warm-up, then `csb_run_measured`, the only function counted (--toggle-collect), a fixed number of times.
# Guarded: the kernel's own guard (the app workload: Configuration.production's guards); stopped: started and stopped
# before the warm-up (every hook reverted, the same heap history as guarded). The code measured is the code Apple
# compiles: every hot read behind its C trampoline.
# valgrind cannot read Swift's debug info, so it runs a stripped copy of the release binary (csb_run_measured stays in
# the dynamic symbol table: --export-dynamic). Each process runs with the same empty environment: glibc's allocator
# places blocks by where the environment ends, and a longer one moved the app workload's count by 0.15%.
# FILE (TSV: kernel, unguarded Ir, guarded Ir, stopped Ir) is what `crashshield-bench --instructions FILE`
# reads.
set -euo pipefail
cd "$(dirname "$0")/.."
out="" build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        *) break ;;
    esac
done
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
if [[ $build == 1 ]]; then swift build --package-path Tools -c release --product crashshield-bench >&2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip -o "$work/crashshield-bench" Tools/.build/release/crashshield-bench

# Kernel names and guards, and how many calls each counts (the app workload: screen loads).
kernels=("$@")
if [[ ${#kernels[@]} -eq 0 ]]; then
    kernels=("objectAtIndex:" "array[i]" "objectForKey:" "setObject:forKey:" "addObject:" "substringWithRange:"
             "characterAtIndex:" "unarchiveObjectWithData:" "alloc+release app" "alloc+release NSObj"
             "setNeedsLayout main" "app workload")
fi
calls_for() { [[ "$1" == "app workload" ]] && echo 20 || echo 100000; }

instructions() {  # kernel mode -> instructions counted in csb_run_measured
    local file="$work/callgrind.out"
    env -i PATH=/usr/bin:/bin "$(command -v valgrind)" --tool=callgrind --callgrind-out-file="$file" \
        --collect-atstart=no --toggle-collect=csb_run_measured \
        "$work/crashshield-bench" --kernel "$1" --mode "$2" --iterations "$(calls_for "$1")" \
        >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
    awk '/^summary:/ { print $2 }' "$file"
}

table="# kernel	unguarded Ir	guarded Ir	stopped Ir"
printf '%-26s %14s %14s %8s %14s %11s\n' kernel "unguarded Ir" "guarded Ir" ratio "stopped Ir" "after stop"
for kernel in "${kernels[@]}"; do
    u=$(instructions "$kernel" unguarded)
    g=$(instructions "$kernel" guarded)
    s=$(instructions "$kernel" stopped)
    printf '%-26s %14s %14s %7.3fx %14s %10.3fx\n' "$kernel" "$u" "$g" "$(echo "$g / $u" | bc -l)" "$s" \
        "$(echo "$s / $u" | bc -l)"
    table+=$'\n'"$kernel	$u	$g	$s"
done
if [[ -n "$out" ]]; then printf '%s\n' "$table" > "$out"; fi
