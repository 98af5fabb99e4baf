#!/usr/bin/env bash
# Installs the system packages CrashShield builds against on Linux (GNUstep Base on GCC's libobjc), if missing.
set -euo pipefail
missing=()
# --tests: what only the test suite needs too (scripts/test.sh): Chromium, which renders crashshield-report's html page
# headless (ReportToolTests), valgrind (scripts/sanitize.sh ownership) and shellcheck
# (scripts/check-workflows.sh). The crash-matrix demo does without them.
if [ "${1:-}" = "--tests" ]; then
    dpkg -s chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
    command -v shellcheck >/dev/null 2>&1 || missing+=(shellcheck)   # the workflow's run: steps (check-workflows.sh)
fi
dpkg -s gobjc >/dev/null 2>&1 || missing+=(gobjc)
dpkg -s libgnustep-base-dev >/dev/null 2>&1 || missing+=(libgnustep-base-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)   # gzip for upload bodies
dpkg -s libblocksruntime-dev >/dev/null 2>&1 || missing+=(libblocksruntime-dev)   # blocks: the Objective-C API
dpkg -s libunwind-dev >/dev/null 2>&1 || missing+=(libunwind-dev)   # stack walks that validate every frame (GNUstep/CSRCallStackGNUstep.c)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# sentry-sdk: the upload tests parse Sentry envelopes with its parser.
python3 -c "import sentry_sdk" 2>/dev/null || python3 -m pip install --quiet sentry-sdk
command -v swift >/dev/null || { echo "swift is not on PATH (install a Swift toolchain, 5.9 or later)" >&2; exit 1; }
