#!/usr/bin/env bash
# Every test, the crash matrix included (it runs the matrix executable, so everything is built first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-arc.sh   # every .m file must also compile under ARC (the build here is MRC)
swift build --build-tests
swift test --skip-build --disable-swift-testing "$@"   # the suite is XCTest
