#!/usr/bin/env bash
# Type-checks the test targets of both packages (Tests/, Tools/Tests/: the simulator tests among them) for iOS against
# an Apple SDK, which scripts/check-apple.sh does not do: the SDK has no XCTest. Nothing is linked or run.
#   SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-apple-tests.sh
# XCTest's declarations come from swift-corelibs-xctest (XCTEST_SOURCES: a checkout of it; XCTEST_GIT: a clone
# without a work tree, read with git archive; default: cloned from GitHub at the commit below into .build/), emitted
# as a module for the SDK's target: its public API is Apple's XCTest's as far as these tests use it (XCTestCase,
# expectations, wait(for:timeout:), XCTSkip, XCTUnwrap, XCTAssert*), not all of it
# (Apple's XCTestCase is an NSObject). The checker looks for XCTest next to the SDK: it is given a folder of links to
# the SDK's contents with an XCTest.framework folder beside them (the SDK itself is never modified). The test targets
# are checked with -enable-testing (for @testable imports) and -continue-building-after-errors (without it the driver
# stops at the first failing batch of files and the errors of the others go unreported).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${SDK:?name the iOS SDK: SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-apple-tests.sh}"
SDK=$(cd "$SDK" && pwd)
checker=${APPLE_TYPECHECK:-../shared/apple/typecheck.sh}
[ -x "$checker" ] || { echo "check-apple-tests: no checker at $checker (set APPLE_TYPECHECK)" >&2; exit 1; }
root=$PWD
work=$root/.build/apple-typecheck-tests
mkdir -p "$work"
xctest_commit=cc562f728ece742925b75216ee5a16748655fea8
sources=${XCTEST_SOURCES:-$work/swift-corelibs-xctest}
if [ ! -d "$sources/Sources/XCTest" ]; then
    if [ -n "${XCTEST_GIT:-}" ]; then   # a clone without a work tree (a mirror): the sources at the commit below
        mkdir -p "$sources"
        git --git-dir="$XCTEST_GIT" archive "$xctest_commit" Sources/XCTest | tar -x -C "$sources"
    else
        git clone --quiet https://github.com/swiftlang/swift-corelibs-xctest "$sources"
        git -C "$sources" checkout --quiet "$xctest_commit"
    fi
fi

# The SDK seen through links, with XCTest.framework where the checker looks (<SDK>/Developer/Library/Frameworks).
sdk=$work/sdk/$(basename "$SDK")
rm -rf "$work/sdk"
mkdir -p "$sdk/Developer/Library/Frameworks/XCTest.framework"
for entry in "$SDK"/* "$SDK"/.[!.]*; do
    [ -e "$entry" ] && [ "$(basename "$entry")" != Developer ] && ln -s "$entry" "$sdk/"
done
for entry in "$SDK"/Developer/Library/Frameworks/*; do [ -e "$entry" ] && ln -s "$entry" "$sdk/Developer/Library/Frameworks/"; done

# The checker's private resource folder (made on its first run) and target.
if [ ! -d "$work/resource" ]; then
    SDK_FIX=0 OBJC_CHECK=0 WORK=$work "$checker" . "$sdk" >/dev/null 2>&1 || true
fi
target=$(SDK_FIX=0 OBJC_CHECK=0 SWIFT_CHECK=0 WORK=$work "$checker" . "$sdk" 2>/dev/null | sed -n 's/^  target \([^,]*\),.*/\1/p')
[ -n "$target" ] || target=arm64-apple-ios13.0
toolchain=$(dirname "$(readlink -f "$(command -v swiftc)")")
mkdir -p "$work/xctest-module"
"$toolchain/swiftc" -target "$target" -sdk "$sdk" -resource-dir "$work/resource" \
    -module-cache-path "$work/xctest-modulecache" -Onone -emit-module -parse-as-library -module-name XCTest \
    -swift-version 5 -Xfrontend -experimental-skip-all-function-bodies -Xfrontend -disable-availability-checking \
    -emit-module-path "$work/xctest-module/XCTest.swiftmodule" $(find "$sources/Sources/XCTest" -name '*.swift') \
    >"$work/xctest-module.log" 2>&1 || { cat "$work/xctest-module.log" >&2; echo "check-apple-tests: XCTest's module failed" >&2; exit 1; }

# Both packages with their test targets, checked as scripts/check-apple.sh checks them (Tools' dependencies, the
# include folders, 0 errors or a failure), in this folder's SDK view and scratch folder.
flags="-enable-testing -continue-building-after-errors -I $work/xctest-module"
if SDK=$sdk SDK_FIX=0 TESTS=1 WORK=$work EXTRA_SWIFTFLAGS="$flags" APPLE_CHECK_PACKAGES_ONLY=1 \
    APPLE_CHECK_LABEL="tests-$(basename "$SDK")" scripts/check-apple.sh; then
    echo "apple test typecheck: both packages' tests type-check for $target"
else
    echo "apple test typecheck: errors above (logs: .build/apple-typecheck-*tests-$(basename "$SDK").log)" >&2
    exit 1
fi
