#!/usr/bin/env bash
# The crash matrix: every scenario crashes unprotected and survives protected with its expected report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
configuration=${CONFIGURATION:-debug}   # CONFIGURATION=release: the optimized build, what apps ship
swift build -c "$configuration" --product crashshield-matrix
exec ".build/$configuration/crashshield-matrix" "$@"
