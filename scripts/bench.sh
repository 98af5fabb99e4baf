#!/usr/bin/env bash
# Guarded / unguarded cost of hot calls, in one release-build process.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product crashshield-bench
exec .build/release/crashshield-bench "$@"
