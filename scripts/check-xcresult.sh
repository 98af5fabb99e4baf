#!/usr/bin/env bash
# Checks the counts of an Xcode result bundle, read from the bundle (xcresulttool, Xcode 16.3 or later: `get
# test-results summary`) instead of xcodebuild's console output, whose "Executed N tests" lines parallel testing
# changes:
#   scripts/check-xcresult.sh RESULT.xcresult --passed N [--skipped M]      exactly N passed, M skipped (default 0)
#   scripts/check-xcresult.sh RESULT.xcresult --at-least N                   no failure, at least N passed
# Fails on any failed test, and when the bundle holds no test at all.
set -euo pipefail
bundle=${1:?usage: check-xcresult.sh RESULT.xcresult (--passed N [--skipped M] | --at-least N)}
shift
xcrun xcresulttool get test-results summary --path "$bundle" >"$bundle.summary.json"
python3 - "$bundle.summary.json" "$@" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
args = sys.argv[2:]
want = dict(zip(args[::2], (int(v) for v in args[1::2])))
passed, failed, skipped = summary["passedTests"], summary["failedTests"], summary["skippedTests"]
print(f"{summary.get('title', '')}: {summary['totalTestCount']} tests, {passed} passed, {failed} failed, "
      f"{skipped} skipped; result {summary['result']}")
for failure in summary.get("testFailures", []):
    print(f"  FAILED {failure.get('testIdentifierString')}: {failure.get('failureText')}")
problems = []
if failed or summary["result"] == "Failed":
    problems.append(f"{failed} failed")
if summary["totalTestCount"] == 0:
    problems.append("no test ran")
if "--passed" in want and passed != want["--passed"]:
    problems.append(f"{passed} passed, expected {want['--passed']}")
if "--passed" in want and skipped != want.get("--skipped", 0):
    problems.append(f"{skipped} skipped, expected {want.get('--skipped', 0)}")
if "--at-least" in want and passed < want["--at-least"]:
    problems.append(f"{passed} passed, expected at least {want['--at-least']}")
if problems:
    sys.exit("check-xcresult: " + "; ".join(problems))
PY
