#!/usr/bin/env bash
# The differential fuzzer: seeded calls of every guarded container (NSData included), string, KVC, NSNull and
# unrecognized-selector method (and the Foundation methods that reach them), each made twice on fresh, equal
# receivers: with every guard off and with every guard on (release mode). Ranges include ends past 2^64 that wrap to
# 0, 1 and count. Prints the count of each kind of divergence (all must be 0), examples with a repro, and last
# `fuzz: N calls, N divergent`; exits 1 when anything diverged.
#   scripts/fuzz.sh [--seed N] [--calls N] [--jobs N] [--examples N]   (default: seed 1, 1,000,000 calls)
# Calls run in worker processes: a crash or a hang only with guards is counted and its call never made again; a
# call Foundation itself cannot survive is skipped. The suite runs 100,000 calls of seed 1 (FuzzTests).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
configuration=${CONFIGURATION:-debug}   # CONFIGURATION=release: the optimized build, what apps ship
swift build --package-path Tools -c "$configuration" --product crashshield-proof
exec "Tools/.build/$configuration/crashshield-proof" fuzz "$@"
