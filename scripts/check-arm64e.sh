#!/usr/bin/env bash
# Compiles the C/Objective-C layer (Sources/CrashShieldRuntime, Sources/CrashShieldObjC) to object code for arm64e, the
# pointer-authentication ABI (Xcode's Enhanced Security, the system's own processes), against an iOS SDK:
# SDK=~/apple-sdks/iPhoneOS17.4.sdk scripts/check-arm64e.sh. Fails on any compile error. Then reads CSRWebKit.m's
# assembly (-O0 and -Os) for the one place where CrashShield builds a block by hand: its block fields must be signed
# as libclosure signs them (Block_private.h, runtime.cpp `_Block_copy`; Docs/AppleRuntime.md "Blocks built by hand on
# arm64e"), so that a plain C function pointer stored into a block cannot come back:
#   - the descriptor's copy and dispose helpers are `@AUTH(ia,0,addr)` (address-diverse), never `@AUTH(ia,0)`;
#   - the invoke pointer stored into the block is signed for its field's address (`pacia xN, xM`);
#   - the block's isa is signed as an Objective-C isa (`pacda`, discriminator 0x6AE1 = 27361 blended with the address);
#   - WebKit's block is called through its invoke field authenticated on that field's address (`braa`/`blraa`/`autia`
#     with a register discriminator, never `blraaz` on a block's invoke alone).
# It also checks that CSRException.m and CSRObservation.m rethrow a caught exception with objc_exception_rethrow.
# Without an iOS SDK (SDK unset, or a macOS headers-only SDK) it says it skipped. scripts/test.sh runs it right after
# scripts/check-apple.sh (which also repairs an SDK whose symlinks were copied: run that first on a fresh SDK).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SDK:-}" ] || [ ! -d "$SDK/usr/include" ] || [[ "$(basename "$SDK")" != iPhoneOS* ]]; then
    echo "arm64e check: skipped (needs SDK= an iOS SDK, e.g. SDK=~/apple-sdks/iPhoneOS17.4.sdk)"
    exit 0
fi
clang=${ARM64E_CLANG:-$(dirname "$(readlink -f "$(command -v swiftc)")")/clang}
triple=arm64e-apple-ios17.0
if ! "$clang" -target "$triple" -S -x c /dev/null -o /dev/null 2>/dev/null; then
    echo "arm64e check: $clang cannot compile for $triple (set ARM64E_CLANG to a full clang)" >&2
    exit 1
fi
root=$PWD
out=$root/.build/arm64e
mkdir -p "$out"
errors=0
# compile TARGET FILE OPTIMIZATION OUTPUT [extra flags...]
compile() {
    local target=$1 file=$2 level=$3 output=$4
    shift 4
    local flags=(-target "$triple" -isysroot "$SDK" -fmodules "-fmodules-cache-path=$out/modules"
        "-fmodule-name=$target" -DSWIFT_PACKAGE=1 -fno-color-diagnostics "$level"
        -I "$root/Sources/$target/include" -I "$root/Sources/$target")
    case "$file" in *.m) flags+=(-fobjc-arc) ;; esac
    "$clang" "${flags[@]}" "$@" "$file" -o "$output"
}
count=0
for target in CrashShieldRuntime CrashShieldObjC; do
    extra=()
    [ "$target" = CrashShieldObjC ] && extra=(-I "$root/Sources/CrashShieldObjC/include")
    while IFS= read -r file; do
        object=$out/$target/${file#Sources/$target/}.o
        mkdir -p "$(dirname "$object")"
        count=$((count + 1))
        if ! compile "$target" "$file" -Os "$object" -c ${extra[@]+"${extra[@]}"} 2>"$object.log"; then
            grep -E "error:" "$object.log" | sed "s|$root/||" || cat "$object.log"
            errors=$((errors + 1))
        fi
    done < <(find "Sources/$target" -name '*.c' -o -name '*.m' | sort)
done
echo "arm64e check: $count files compiled to object code for $triple, $errors failed"
[ "$errors" = 0 ] || exit 1

# The hand-built blocks (CSRWebKit.m), at -O0 (debug) and -Os (release).
failed=0
for level in -O0 -Os; do
    asm=$out/CSRWebKit$level.s
    compile CrashShieldRuntime Sources/CrashShieldRuntime/CSRWebKit.m "$level" "$asm" -S
    fail() { echo "arm64e check: CSRWebKit.m ($level): $1" >&2; failed=1; }
    # The descriptor's data: from its label to the next blank line.
    descriptor=$(awk '/^_csr_panel_descriptor:/ { on = 1; next } on && /^[[:space:]]*$/ { exit } on' "$asm")
    [ -n "$descriptor" ] || fail "no _csr_panel_descriptor in the assembly"
    grep -q '@AUTH(ia,0,addr)' <<<"$descriptor" || fail "copy/dispose helpers not signed with address diversity"
    if grep -E '@AUTH\([a-z]+,[0-9]+\)' <<<"$descriptor"; then fail "a helper signed without its field's address"; fi
    grep -Eq '^[[:space:]]*pacia[[:space:]]+x[0-9]+, x[0-9]+' "$asm" \
        || fail "the invoke pointer stored into the block is not signed for its field's address (pacia xN, xM)"
    grep -Eq '^[[:space:]]*pacda[[:space:]]+x[0-9]+, x[0-9]+' "$asm" && grep -q '#27361' "$asm" \
        || fail "the block's isa is not signed as an Objective-C isa (pacda, 0x6AE1 blended with its address)"
    grep -Eq '^[[:space:]]*(braa|blraa|autia)[[:space:]]+x[0-9]+, x[0-9]+' "$asm" \
        || fail "WebKit's block is not called through its invoke field's address (braa/blraa/autia xN, xM)"
done
[ "$failed" = 0 ] || { echo "arm64e check: failed (assembly in $out)" >&2; exit 1; }
echo "arm64e check: CSRWebKit.m's blocks are signed as libclosure signs them (-O0, -Os)"

# Rethrows of a caught exception are `@throw;`, objc_exception_rethrow: `@throw exception;` (objc_exception_throw)
# would run Foundation's exception preprocessor again (objc-exception.mm; Docs/AppleRuntime.md "Rethrows").
nm=$(dirname "$clang")/llvm-nm
if [ -x "$nm" ]; then
    for file in CSRException CSRObservation; do
        symbols=$("$nm" -u "$out/CrashShieldRuntime/$file.m.o")
        if grep -qx '_objc_exception_throw' <<<"$symbols" || ! grep -qx '_objc_exception_rethrow' <<<"$symbols"; then
            echo "arm64e check: $file.m throws a caught exception again instead of rethrowing it (@throw;)" >&2
            exit 1
        fi
    done
    echo "arm64e check: CSRException.m and CSRObservation.m rethrow with objc_exception_rethrow"
fi
