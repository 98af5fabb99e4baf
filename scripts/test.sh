#!/usr/bin/env bash
# Every test, the crash matrix included (it runs the matrix executable, so everything is built first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build --disable-swift-testing "$@"   # the suite is XCTest
