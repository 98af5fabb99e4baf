#!/usr/bin/env bash
# Syntax-checks every Objective-C file under ARC (SwiftPM's default on Apple platforms). The Linux build compiles
# them with manual reference counting (GCC's libobjc has no ARC), so this is what keeps them ARC-clean.
# Needs only clang (the Swift toolchain's) and the GNUstep headers scripts/install-deps.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang >/dev/null || { echo "clang is not on PATH (it comes with the Swift toolchain)" >&2; exit 1; }
gcc_include=$(gcc -print-file-name=include)
files=0
errors=0
# Sources/CrashShieldRuntime/Apple compiles to nothing with GNUstep's headers: scripts/check-ownership.sh and
# scripts/check-apple.sh check it under ARC against an iOS SDK.
for f in Sources/*/*.m Sources/CrashShieldRuntime/GNUstep/*.m Tools/Sources/*/*.m; do
    files=$((files + 1))
    dir=$(dirname "$f")   # the target's folder (Sources/CrashShieldRuntime/GNUstep is part of CrashShieldRuntime)
    [ "$(basename "$dir")" = GNUstep ] && dir=$(dirname "$dir")
    # The Objective-C API's targets and the scenarios use blocks (as Package.swift and Tools/Package.swift build them)
    # and import each other's headers.
    blocks=(-fno-blocks)
    case "$f" in
        Sources/CrashShieldObjC*/* | Tools/Sources/CrashShieldObjC*/* | Tools/Sources/CrashShieldScenarios/*) blocks=(-fblocks -I Sources/CrashShieldObjC/GNUstepBlocks -I Sources/CrashShieldObjC/include
                                            -I Tools/Sources/CrashShieldScenarios/include) ;;
    esac
    # GCC's own objc/runtime.h (its inline object_getClass) does not compile under ARC: that one error is not ours.
    out=$(clang -fsyntax-only -fobjc-arc -fobjc-runtime=gnustep-2.0 "${blocks[@]}" -fexceptions -fobjc-exceptions \
        -DGNUSTEP -DGNUSTEP_BASE_LIBRARY=1 -DGNU_RUNTIME=1 -D_NATIVE_OBJC_EXCEPTIONS \
        -fconstant-string-class=NSConstantString -isystem /usr/include/GNUstep -isystem "$gcc_include" \
        -I"$dir/include" -Wno-deprecated-objc-isa-usage -ferror-limit=0 "$f" 2>&1 \
        | grep -v 'objc/runtime\.h:156:[0-9]*: error: member reference base type' || true)
    n=$(grep -cE ': (fatal )?error: ' <<<"$out" || true)
    if [ "$n" -gt 0 ]; then
        echo "$out" >&2
        errors=$((errors + n))
    fi
done
echo "ARC syntax check: $files files, $errors errors"
[ "$errors" -eq 0 ]
