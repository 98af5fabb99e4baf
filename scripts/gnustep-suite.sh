#!/usr/bin/env bash
# GNUstep Base's own test suite (Tests/base of the distribution's gnustep-base source) with CrashShield inside.
#
#   scripts/gnustep-suite.sh [--no-build] [--folders "NSArray KVC ..."] [--programs "KVC/basic.m ..."]
#                            [--timeout SECONDS] [--jobs N] [--results FILE] [--blocks-runtime-first]
#
# Every test program is compiled once and linked twice: plain (as gnustep-tests links it, no CrashShield) and
# shielded (scripts/gnustep-suite/wrap_main.c wraps main(): CrashShield starts before the test's main in the mode
# CRASHSHIELD_SUITE_MODE names, reports go to a JSON Lines file). Each program runs plain twice (results that differ
# are unstable and excluded), then in release and in debug mode, and is compared with plain test by test. Allowed:
# only in release mode, a PASS_EXCEPTION that passed plain and fails because CrashShield stopped the raise, with a
# report whose caller frame symbolicates (addr2line) to that test. Anything else fails the run (exit 1).
#
# Work folder: .build-gnustep/ (source, private apt lists, objects, binaries, logs, results.json); kept between runs.
# --no-build: use the release libCrashShieldDynamic.so already built.
# --blocks-runtime-first: link the toolchain's libBlocksRuntime ahead of gnustep-base, which exports its own
#   _Block_copy/_Block_release/_NSConcreteStackBlock (by default the shielded programs are linked as any GNUstep
#   program linking a library is: gnustep-base's block functions then win for libdispatch and Swift too).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.build-gnustep
build=1 args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --blocks-runtime-first) args+=("$1") ;;
        --folders|--programs|--timeout|--jobs|--results) args+=("$1" "$2"); shift ;;
        -h|--help) sed -n "2,20p" "$0"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
    shift
done
results=$work/results.json
[[ " ${args[*]-} " == *" --blocks-runtime-first "* ]] && results=$work/results-blocks-first.json
[[ " ${args[*]-} " == *" --results "* ]] || args+=(--results "$results")

scripts/install-deps.sh >&2
# dpkg-source (dpkg-dev), gnustep-tests' TestFramework (gnustep-make), addr2line (binutils); gdb: hang backtraces.
missing=()
for pkg in dpkg-dev gnustep-make binutils gdb; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}" >&2
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# 1. gnustep-base's source, from the machine's own Debian release, through a private apt sources list and state
#    folder (the machine's apt configuration is not touched). Cached in .build-gnustep/src.
if [ ! -f "$work/src/Tests/base/TestInfo" ]; then
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
    [ -n "$codename" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; exit 2; }
    mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" \
        > "$work/apt/sources.list"
    opts=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
    echo "fetching gnustep-base source ($codename)" >&2
    apt-get "${opts[@]}" -qq update >&2
    rm -rf "$work/src" "$work"/gnustep-base_*
    (cd "$work" && apt-get "${opts[@]}" -qq source --download-only gnustep-base >&2 &&
        dpkg-source -x --no-check gnustep-base_*.dsc src >&2)
fi
version=$(dpkg-parsechangelog -l "$work/src/debian/changelog" -S Version 2>/dev/null || echo unknown)

# 2. CrashShield as one shared object from the optimized build: the CrashShieldDynamic product (Package.swift).
t0=$(date +%s)
if [ $build = 1 ]; then
    swift build -c release --product CrashShieldDynamic >&2
fi
bin=$(swift build -c release --show-bin-path)
[ -f "$bin/libCrashShieldDynamic.so" ] || { echo "$bin/libCrashShieldDynamic.so missing (run without --no-build)" >&2; exit 2; }
echo "CrashShield release build: $(( $(date +%s) - t0 )) s" >&2

# 3. The main() shim, then build, run and compare (scripts/gnustep-suite/suite.py).
mkdir -p "$work/obj"
gcc -c -O2 -g -Wall -Werror -I"$root/Sources/CrashShieldRuntime/include" \
    "$root/scripts/gnustep-suite/wrap_main.c" -o "$work/obj/wrap_main.o"
exec python3 "$root/scripts/gnustep-suite/suite.py" --src "$work/src/Tests/base" --work "$work" \
    --lib-dir "$bin" --shim "$work/obj/wrap_main.o" --version "$version" "${args[@]}"
