#!/usr/bin/env bash
# Type-checks the example apps (Examples/*/Package.swift) for iOS, with UIKit, against a real iOS SDK with Swift
# interfaces: SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-examples.sh (scripts/check-apple.sh runs it for such an
# SDK). Uses ../shared/apple/typecheck.sh, or APPLE_TYPECHECK; WORK is passed on to it.
#
# Each example depends on this checkout (.package(name: "CrashShield", path: "../..")). The checker reads
# dependencies from DEPS_DIR, one folder per package: a temporary folder holds this checkout (as CrashShield) and its
# own dependency checkouts. Objective-C files see CrashShieldRuntime's headers as SwiftPM passes them on Apple: -I
# include and the module map SwiftPM generates (umbrella header CrashShieldRuntime.h), so `#import <CrashShield.h>`
# and `@import CrashShieldRuntime;` both compile. The checker defines DEBUG; Objective-C is checked again without it
# (the release branch). Each example must end with `apple typecheck: 0 objc errors, 0 swift errors`. SwiftPM loads
# each manifest first (`swift package describe`), which catches what the checker does not read: target kinds, layout.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ -n "${SDK:-}" ] || { echo "check-examples: name an iOS SDK with Swift interfaces (SDK=...; see README)" >&2; exit 2; }
checker=${APPLE_TYPECHECK:-../shared/apple/typecheck.sh}
[ -x "$checker" ] || { echo "check-examples: no checker at $checker (set APPLE_TYPECHECK)" >&2; exit 2; }
[ -d .build/checkouts ] || swift package resolve >/dev/null

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/deps"
ln -s "$root" "$tmp/deps/CrashShield"
for dep in .build/checkouts/*; do ln -s "$root/$dep" "$tmp/deps/"; done
# SwiftPM hands a C target's own include/module.modulemap to its dependents (or generates one from the umbrella header).
modulemap="$root/Sources/CrashShieldRuntime/include/module.modulemap"
if [ ! -f "$modulemap" ]; then
    modulemap="$tmp/module.modulemap"
    printf 'module CrashShieldRuntime {\n    umbrella header "%s"\n    export *\n}\n' \
        "$root/Sources/CrashShieldRuntime/include/CrashShieldRuntime.h" > "$modulemap"
fi
export DEPS_DIR=$tmp/deps
# CrashShieldObjC (the Objective-C API): its include folder, whose umbrella header CrashShieldObjC.h SwiftPM makes the
# module map of (`@import CrashShieldObjC;`, `#import <CrashShieldObjC.h>`).
objc_api="$root/Sources/CrashShieldObjC/include"
printf 'module CrashShieldObjC {\n    umbrella header "%s"\n    export *\n}\n' "$objc_api/CrashShieldObjC.h" \
    > "$tmp/CrashShieldObjC.modulemap"
headers="-I $root/Sources/CrashShieldRuntime/include -fmodule-map-file=$modulemap -I $objc_api"
headers="$headers -fmodule-map-file=$tmp/CrashShieldObjC.modulemap"

# check NAME LABEL EXPECTED [VAR=VALUE...]: runs the checker on Examples/NAME; prints its errors and last line.
check() {
    local name=$1 label=$2 expected=$3 log=.build/check-examples-$2.log line; shift 3
    env "$@" "$checker" "Examples/$name" "$SDK" > "$log" 2>&1 || true
    grep -E "error:" "$log" | sort -u || true
    line=$(tail -1 "$log")
    echo "$label: $line"
    case "$line" in
        "$expected"*) return 0 ;;
        *) echo "check-examples: $label failed: full log in $log" >&2; return 1 ;;
    esac
}

mkdir -p .build
failed=0
for package in Examples/*/Package.swift; do
    name=$(basename "$(dirname "$package")")
    # SwiftPM's own reading of the manifest and layout (the checker reads Package.swift only for its platforms).
    if ! (cd "Examples/$name" && swift package --scratch-path "$root/.build/check-examples/$name" describe > "$tmp/describe.log" 2>&1); then
        grep -E "error|warning" "$tmp/describe.log" >&2 || cat "$tmp/describe.log" >&2
        echo "check-examples: SwiftPM cannot load Examples/$name/Package.swift" >&2
        failed=1
        continue
    fi
    check "$name" "$name" "apple typecheck: 0 objc errors, 0 swift errors" EXTRA_CFLAGS="$headers" || failed=1
    if [ -n "$(find "Examples/$name/Sources" -name '*.m' -o -name '*.c')" ]; then
        check "$name" "$name-without-DEBUG" "apple typecheck: 0 objc errors, n/a swift errors" \
            EXTRA_CFLAGS="$headers -UDEBUG" SWIFT_CHECK=0 || failed=1
    fi
done
exit $failed
