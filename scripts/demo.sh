#!/usr/bin/env bash
# The crash matrix: every scenario crashes unprotected and survives protected with its expected report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
configuration=${CONFIGURATION:-debug}   # CONFIGURATION=release: the optimized build, what apps ship
# The matrix is a tool of the Tools package (Tools/Package.swift), built in Tools/.build.
swift build --package-path Tools -c "$configuration" --product crashshield-matrix
exec "Tools/.build/$configuration/crashshield-matrix" "$@"
