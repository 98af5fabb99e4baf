/// Where reports go: a log, a file, an uploader, a test's memory.
///
/// A sink receives a report on its first occurrence and again, with a higher `occurrences`, at 10, 100, 1000, ...
/// occurrences and on `CrashShield.flush()`. Sinks run on CrashShield's delivery queue (one serial queue, in order),
/// never on the thread that hit the guard and never under a CrashShield lock. A sink that throws, raises an
/// Objective-C exception, blocks, reports again or calls `CrashShield.stop()` cannot hurt the app: the error or
/// exception is caught and logged once, and neither the app's threads nor the kill switch wait for a sink.
/// `CrashShield.waitForSinks(timeout:)` waits until what was reported so far has been delivered.
///
/// A sink returns promptly (persist or enqueue; send later on its own queue), takes every well-formed report without
/// throwing, never waits for the main thread, and keeps the latest count per signature. `ReportSinkContract`
/// (CrashShieldTesting) checks all of it: run it in the sink's own tests (SinkContractTests runs it on this package's
/// sinks).
public protocol ReportSink: AnyObject, Sendable {
    /// Takes one report. Errors are caught and logged once per sink; the report is not offered again.
    func receive(_ report: CrashReport) throws

    /// Why the sink cannot do its work now (a store that cannot open its file: `JSONLinesReportStore.openFailure`);
    /// nil when it can (the default). `CrashShield.start` starts the guards either way, logs a sink's failure once,
    /// and lists it in `CrashShield.sinkFailures` for as long as it lasts.
    var sinkFailure: (any Error)? { get }
}

extension ReportSink {
    public var sinkFailure: (any Error)? { nil }
}

/// A sink that cannot do its work now (`CrashShield.sinkFailures`).
public struct SinkFailure: CustomStringConvertible, @unchecked Sendable {
    /// The sink, as given in `Configuration.sinks`.
    public let sink: any ReportSink
    /// Why it cannot work (a `ReportStoreError` for a `JSONLinesReportStore`).
    public let error: any Error

    public var description: String { "\(type(of: sink)): \(error)" }
}

/// A sink that calls a closure: the simplest way to forward reports to an existing crash reporter.
public final class ReportHandlerSink: ReportSink, @unchecked Sendable {
    private let handler: @Sendable (CrashReport) throws -> Void

    public init(_ handler: @escaping @Sendable (CrashReport) throws -> Void) { self.handler = handler }

    public func receive(_ report: CrashReport) throws { try handler(report) }
}
