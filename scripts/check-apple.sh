#!/usr/bin/env bash
# Type-checks every target of both packages (the library, Package.swift; the tools, Tools/Package.swift) for an Apple
# platform against a real Apple SDK (Swift with Objective-C interop, every .m/.c file under ARC with modules), when
# SDK names one: SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-apple.sh.
# A headers-only SDK (the macOS 12 one) gets the Objective-C half only. Without SDK it says it skipped the check.
# An iOS SDK with Swift interfaces also checks the example apps (scripts/check-examples.sh) and the Swift blocks of
# README.md and Docs/*.md (scripts/check-readme.sh --apple). APPLE_CHECK_PACKAGES_ONLY=1 checks the two packages only, and
# APPLE_CHECK_LABEL names their logs (scripts/check-apple-tests.sh runs it so, with the test targets).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SDK:-}" ]; then
    echo "apple typecheck: skipped (no SDK named; SDK=/path/to/iPhoneOS17.4.sdk runs it, see README)"
    exit 0
fi
checker=${APPLE_TYPECHECK:-../shared/apple/typecheck.sh}
[ -x "$checker" ] || { echo "apple typecheck: no checker at $checker (set APPLE_TYPECHECK)" >&2; exit 1; }
[ -d "$SDK/usr/include" ] || { echo "apple typecheck: '$SDK' is not an Apple SDK folder" >&2; exit 1; }
# The macOS 12 SDK in use here has headers but no Swift interfaces: check its Objective-C only.
if ! ls "$SDK"/usr/lib/swift/Swift.swiftmodule >/dev/null 2>&1; then export SWIFT_CHECK=0; fi
mkdir -p .build
label=${APPLE_CHECK_LABEL:-$(basename "$SDK")}
log=.build/apple-typecheck-$label.log
root=$PWD
extra_cflags=${EXTRA_CFLAGS:-}
# The checker's scratch folder is keyed by SDK and target only: a checkout of its own, so that checks of other
# checkouts running at the same time cannot hand this one their modules.
export WORK=${WORK:-$root/.build/apple-typecheck-work}
# check PACKAGE LOG: runs the checker on one package; prints its errors and last line; fails unless it says 0/0.
check() {
    "$checker" "$1" "$SDK" > "$2" 2>&1 || true
    grep -E "error:" "$2" | sort -u || true
    local line
    line=$(tail -1 "$2")
    echo "$line"
    case "$line" in
        "apple typecheck: 0 objc errors, 0 swift errors"*|"apple typecheck: 0 objc errors, n/a swift errors"*) ;;
        *) echo "apple typecheck failed: full log in $2" >&2; exit 1 ;;
    esac
}
# The library (Package.swift). Objective-C targets that import other targets' public headers get their include
# folders, as SwiftPM passes them.
EXTRA_CFLAGS="$extra_cflags -I $root/Sources/CrashShieldObjC/include" check . "$log"
# The tools (Tools/Package.swift: scenarios, matrix, proof kit, bench, report tool). The checker reads dependencies
# from DEPS_DIR, one folder per package: a temporary folder holds this checkout (as CrashShield) and Tools' own
# dependency checkouts.
[ -d Tools/.build/checkouts ] || swift package --package-path Tools resolve >/dev/null
deps=$(mktemp -d "${TMPDIR:-/tmp}/check-apple.XXXXXX")
trap 'rm -rf "$deps"' EXIT
ln -s "$root" "$deps/CrashShield"
for dep in Tools/.build/checkouts/*; do ln -s "$root/$dep" "$deps/"; done
DEPS_DIR=$deps EXTRA_CFLAGS="$extra_cflags -I $root/Sources/CrashShieldObjC/include -I $root/Sources/CrashShieldRuntime/include
    -I $root/Tools/Sources/CrashShieldScenarios/include" check Tools ".build/apple-typecheck-tools-$label.log"
# The example apps (Swift and UIKit) need an iOS SDK with Swift interfaces.
if [ "${APPLE_CHECK_PACKAGES_ONLY:-0}" != 1 ] && [ "${SWIFT_CHECK:-1}" != 0 ] \
    && [ -d "$SDK/System/Library/Frameworks/UIKit.framework" ]; then
    scripts/check-examples.sh
    scripts/check-readme.sh --apple   # the Swift blocks of README.md and Docs/*.md, against UIKit
fi
