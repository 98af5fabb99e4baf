#!/usr/bin/env bash
# Type-checks every target for an Apple platform against a real Apple SDK (Swift with Objective-C interop, every .m/.c
# file under ARC with modules), when SDK names one: SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-apple.sh.
# A headers-only SDK (the macOS 12 one) gets the Objective-C half only. Without SDK it says it skipped the check.
# An iOS SDK with Swift interfaces also checks the example apps (scripts/check-examples.sh).
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
log=.build/apple-typecheck-$(basename "$SDK").log
# Objective-C targets that import other targets' public headers get their include folders, as SwiftPM passes them.
export EXTRA_CFLAGS="${EXTRA_CFLAGS:-} -I Sources/CrashShieldObjC/include -I Sources/CrashShieldScenarios/include"
"$checker" . "$SDK" > "$log" 2>&1 || true
grep -E "error:" "$log" | sort -u || true
line=$(tail -1 "$log")
echo "$line"
case "$line" in
    "apple typecheck: 0 objc errors, 0 swift errors"*|"apple typecheck: 0 objc errors, n/a swift errors"*) ;;
    *) echo "apple typecheck failed: full log in $log" >&2; exit 1 ;;
esac
# The example apps (Swift and UIKit) need an iOS SDK with Swift interfaces.
if [ "${SWIFT_CHECK:-1}" != 0 ] && [ -d "$SDK/System/Library/Frameworks/UIKit.framework" ]; then
    scripts/check-examples.sh
fi
