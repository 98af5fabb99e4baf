/// Redaction of app data in reports, before any sink sees them.
///
/// What a report can quote of the app's data: its `reason` repeats Foundation's exception text, which may quote
/// dictionary keys, KVC keys and key paths, string contents (a range error on a string quotes nothing but indexes;
/// an attribute error may quote the attribute name), notification names and object descriptions (`-description` of
/// a receiver or argument); `details` may hold key paths, notification names and observer class names. Class names,
/// selectors, indexes, counts, thread names and the call stack's images and symbols are code, not data.
///
/// `Configuration.redact` runs once per detailed report, on the thread that hit the guard, before the report is kept
/// or delivered: `CrashShield.reports` and every sink see only its result. It may change `reason`, `details`,
/// `hint`, `thread` and `callStack`; what identifies and counts the report (signature, guard, class, selector,
/// action, counts, dates) is kept as CrashShield made it. If it raises an Objective-C exception, the report keeps no
/// reason and no details.
public enum Redaction {
    /// Drops `reason` and the values of `details` (keys stay), keeping everything else.
    @Sendable public static func withoutAppData(_ report: CrashReport) -> CrashReport {
        var redacted = report
        redacted.reason = "(redacted)"
        redacted.details = report.details.mapValues { _ in "(redacted)" }
        return redacted
    }

    /// Runs `redact` on `report`, keeping the fields that identify and count it.
    static func apply(_ redact: @escaping @Sendable (CrashReport) -> CrashReport, to report: CrashReport) -> CrashReport
    {
        let redacted = Locked<CrashReport?>(nil)
        let raised = ObjCException.catching {
            let value = redact(report); redacted.withLock { $0 = value }
        }
        var result: CrashReport
        if raised == nil, let value = redacted.current {
            result = value
        } else {
            result = Redaction.withoutAppData(report)
            result.reason = "(redaction failed)"
        }
        result.signature = report.signature
        result.category = report.category
        result.className = report.className
        result.selector = report.selector
        result.isClassMethod = report.isClassMethod
        result.exceptionName = report.exceptionName
        result.action = report.action
        result.occurrences = report.occurrences
        result.firstSeen = report.firstSeen
        result.lastSeen = report.lastSeen
        return result
    }
}
