#!/usr/bin/env bash
# The crash matrix: every scenario crashes unprotected and survives protected with its expected report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product crashshield-matrix
exec .build/debug/crashshield-matrix "$@"
