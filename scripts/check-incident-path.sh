#!/usr/bin/env bash
# The one incident path (ARCHITECTURE.md, "The failure path"). Every stopped call becomes an `Incident`, judged and
# carried out by `IncidentPath.handle` in Sources/CrashShield/Core/IncidentPath.swift, the only place that records a
# report and the only place that raises for a guard. This check enforces it at grep level:
#   1. only IncidentPath.swift records reports: calls `.record(site:` (ReportPipeline.record) or builds a `SiteKey`
#      (one exception, named here: Reporting/ReportSinkHarness.swift, the sink contract's harness for tests, records
#      into a pipeline of its own, with no session and no guard);
#   2. only IncidentPath.swift raises for a guard: no other Swift file of the library calls `csr_raise(` or
#      `NSException.raise`;
#   3. the C layer raises for no guard: `csr_raise(` appears only in CSRException.m (its definition) and in
#      CSRZombie.m's zombie message when no incident handler is registered (nothing Swift could judge);
#   4. the hook engine (Sources/CrashShield/Runtime/) names no guard type and no part of the failure path: guards
#      name the engine, not the reverse;
#   5. a violation says how the original fails: a signal's name ("SIGSEGV", Apple's "EXC_BAD_ACCESS") is written
#      only as a `Violation.Failure.signal(name:)`, never where an exception's name goes (failing loudly would raise
#      an exception named after the signal instead of letting the original die of it).
#   scripts/check-incident-path.sh [PACKAGE_ROOT]     (default: this package)
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"
path=Sources/CrashShield/Core/IncidentPath.swift
status=0
fail() { echo "check-incident-path: $1" >&2; status=1; }

# Code only: drop whole-line comments (// and ///), so a comment may name what it must not call.
code() { grep -nE "$1" "${@:2}" 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true; }

swift_files=$(find Sources/CrashShield Sources/CrashShieldObjC Sources/CrashShieldTesting -name '*.swift' \
              ! -path "$path" 2>/dev/null | sort)
harness=Sources/CrashShield/Reporting/ReportSinkHarness.swift
hits=$(code '\.record\(site:|SiteKey\(' $(echo "$swift_files" | grep -vx "$harness"))
[ -z "$hits" ] || fail "only $path records reports (ReportPipeline.record):"$'\n'"$hits"
hits=$(code 'csr_raise\(|NSException\.raise|\.raise\(' $swift_files)
[ -z "$hits" ] || fail "only $path raises for a guard:"$'\n'"$hits"

c_files=$(find Sources/CrashShieldRuntime Sources/CrashShieldObjC \( -name '*.m' -o -name '*.c' \) \
          ! -name CSRException.m ! -name CSRZombie.m | sort)
hits=$(code 'csr_raise\(' $c_files)
[ -z "$hits" ] || fail "the C layer raises for no guard (hand a CSRIncident to csr_incident_report):"$'\n'"$hits"
raises=$(code 'csr_raise\(' Sources/CrashShieldRuntime/CSRZombie.m | wc -l)
[ "$raises" -le 1 ] || fail "CSRZombie.m raises only for a zombie message without an incident handler"

hits=$(code '\b(GuardFailure|Violation|GuardContext|Interception|Incident|IncidentPath|Verdict|GuardCategory|GuardDeclaration|GuardRegistry|Session)\b' \
       $(find Sources/CrashShield/Runtime -name '*.swift' | sort))
[ -z "$hits" ] || fail "the hook engine (Sources/CrashShield/Runtime) names no guard and no part of the failure path:"$'\n'"$hits"

hits=$(code '"(SIG[A-Z]+|EXC_[A-Z_]+)"' $swift_files $path | grep -v '\.signal(name: "' || true)
[ -z "$hits" ] || fail "a signal is a Violation.Failure.signal(name:), never an exception's name:"$'\n'"$hits"

[ "$status" = 0 ] && echo "check-incident-path: one incident path ($path)"
exit "$status"
