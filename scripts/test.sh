#!/usr/bin/env bash
# Every test of both packages, the library's own (Package.swift: Tests/CrashShieldLibraryTests) and the proof's
# (Tools/Package.swift: every guard against real crashing app code, the Objective-C API, the tools), the crash matrix
# included (it runs the matrix executable, so everything is built first), and the proof on the optimized build apps
# ship (scripts/proof-release.sh: crash matrix, fuzzer, stress, GNUstep Base's own suite).
# SDK=/path/to/iPhoneOS17.4.sdk (or MacOSX12.0.sdk) also type-checks the package for that Apple platform
# (../shared/apple/typecheck.sh, or APPLE_TYPECHECK=/path/to/typecheck.sh), and with an iOS SDK and XCTEST_SOURCES or
# XCTEST_GIT the test targets too; without SDK those checks are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
scripts/check-arc.sh   # every .m file must also compile under ARC (the build here is MRC)
scripts/check-ownership.sh   # the Objective-C layer under ARC: -Werror, the static analyzer, the ownership rule
scripts/check-incident-path.sh   # one incident path: only IncidentPath.swift records reports or raises for a guard
scripts/check-runtime-headers.sh   # a C file's functions are declared in the header of its name
scripts/check-one-path.py --self-test   # >= 95% of the library compiles for iOS; Linux-only code in GNUstep/ and Platform/ units, none on the reading path, no platform #if in a guard
scripts/check-format.sh   # Swift layout as swift-format writes it (.swift-format: 120 columns)
scripts/check-privacy-manifest.sh --self-test   # PrivacyInfo.xcprivacy: valid, a reason for every required-reason API, shipped as a resource
scripts/check-workflows.sh   # .github/workflows with actionlint (and shellcheck for run: steps): they run only on a Mac
scripts/check-apple.sh
scripts/check-arm64e.sh   # the C/Objective-C layer as arm64e object code; hand-built blocks signed as libclosure's
# The test targets for iOS (the simulator tests among them) need XCTest's declarations: a checkout or a clone of
# swift-corelibs-xctest (XCTEST_SOURCES / XCTEST_GIT, scripts/check-apple-tests.sh).
if [[ "${SDK:-}" == *iPhoneOS* ]] && [[ -n "${XCTEST_SOURCES:-}${XCTEST_GIT:-}" ]]; then
    scripts/check-apple-tests.sh
else
    echo "apple test typecheck: skipped (needs SDK= an iOS SDK and XCTEST_SOURCES or XCTEST_GIT)"
fi
scripts/proof-release.sh
swift build --build-tests
swift build --package-path Tools --build-tests
scripts/check-readme.sh --linux   # the Swift of README.md and Docs/*.md compiles as written; they name every public type
scripts/sanitize.sh ownership   # the Objective-C layer's objects under valgrind (OwnershipTests)
swift test --skip-build --disable-swift-testing "$@"   # the suites are XCTest
swift test --package-path Tools --skip-build --disable-swift-testing "$@"
