#!/usr/bin/env bash
# The stress test for 60 s: 8 threads make good and bad calls of every guard family (KVO and notification
# observers added, removed and freed while registered among them) while one more thread starts, stops and toggles
# guards. A crash prints "STRESS CRASH" with what every thread was doing and the crashing stack; a thread that makes
# no progress for 20 s ends the run with "STRESS HANG". Exits non-zero on a crash, a hang or a wrong answer.
#   scripts/stress.sh [--seconds N] [--threads N] [--seed N] [--mode toggle|steady|baseline] [--only a,b]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
configuration=${CONFIGURATION:-debug}   # CONFIGURATION=release: the optimized build, what apps ship
swift build --package-path Tools -c "$configuration" --product crashshield-proof
exec "Tools/.build/$configuration/crashshield-proof" stress --seconds 60 "$@"
