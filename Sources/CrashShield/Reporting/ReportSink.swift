/// Where reports go: a log, a file, an uploader, a test's memory.
///
/// A sink receives a report on its first occurrence and again, with a higher `occurrences`, at 10, 100, 1000, ...
/// occurrences and on `CrashShield.flush()`. It is called on the thread that hit the crash, never under a
/// CrashShield lock; it should return quickly (hand slow work such as uploads to a queue of its own).
public protocol ReportSink: AnyObject, Sendable {
    func receive(_ report: CrashReport)
}

/// A sink that calls a closure: the simplest way to forward reports to an existing crash reporter.
public final class ReportHandlerSink: ReportSink, @unchecked Sendable {
    private let handler: @Sendable (CrashReport) -> Void

    public init(_ handler: @escaping @Sendable (CrashReport) -> Void) { self.handler = handler }

    public func receive(_ report: CrashReport) { handler(report) }
}
