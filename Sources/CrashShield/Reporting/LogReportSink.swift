import Foundation
import Logging

/// Writes each delivered report as one log line through swift-log.
///
/// Levels: a first occurrence logs at `.error` when it was stopped (`recovered`) and at `.critical` when it was let
/// through (`failedLoudly`); a count update (`occurrences > 1`) logs at `.notice`. The message leads with the method
/// and the call site, then reads like the crash it replaced, for example
/// `-[NSArray objectAtIndex:] (GSInlineArray) from -[MYList reload] (MyApp+0x1f3a0): NSRangeException: Index 5 is out
/// of range 2 (in 'objectAtIndex:') (stopped, 1x)`, and the metadata carries category, signature, grouping key,
/// occurrences, thread, caller frame (image+offset) and hint.
public final class LogReportSink: ReportSink {
    public let logger: Logger

    /// - Parameter logger: the swift-log logger the reports are written to.
    public init(logger: Logger = Logger(label: "CrashShield")) {
        self.logger = logger
    }

    public func receive(_ report: CrashReport) {
        logger.log(level: Self.level(for: report), "\(Self.message(for: report))", metadata: Self.metadata(for: report))
    }

    /// `.notice` for count updates, else `.error` (stopped) or `.critical` (let through).
    static func level(for report: CrashReport) -> Logger.Level {
        if report.occurrences > 1 { return .notice }
        switch report.action {
        case .recovered: return .error
        case .failedLoudly: return .critical
        }
    }

    /// `-[Class selector] from caller: ExceptionName: reason (stopped, 1x)`: the app-facing method (with the receiver's
    /// class when it differs), the caller's function when the device named it (else the nearest exported symbol the
    /// report holds) with its image+offset, then the crash.
    static func message(for report: CrashReport) -> String {
        let outcome = report.action == .recovered ? "stopped" : "failed loudly"
        var method = report.appFacingMethod
        if let declaring = report.declaringClassName, declaring != report.className {
            method += " (\(report.className))"
        }
        var site = ""
        if let frame = report.callerFrame {
            let place = callerPlace(frame)
            site = " from " + ((report.callerFunction ?? frame.symbol).map { "\($0) (\(place))" } ?? place)
        }
        return "\(method)\(site): \(report.exceptionName): \(report.reason) (\(outcome), \(report.occurrences)x)"
    }

    private static func callerPlace(_ frame: StackFrame) -> String {
        "\((frame.image as NSString).lastPathComponent)+0x\(String(frame.offsetInImage, radix: 16))"
    }

    static func metadata(for report: CrashReport) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "category": .string(report.category.name),
            "signature": .string(report.signature),
            "occurrences": .stringConvertible(report.occurrences),
            "thread": .string(threadText(report.thread)),
        ]
        if let group = report.groupingKey { metadata["group"] = .string(group) }
        if let frame = report.callerFrame { metadata["caller"] = .string(callerPlace(frame)) }
        if !report.hint.isEmpty { metadata["hint"] = .string(report.hint) }
        return metadata
    }

    private static func threadText(_ thread: ThreadInfo) -> String {
        let name = thread.name.isEmpty ? "thread" : thread.name
        return "\(name) #\(thread.id)\(thread.isMain ? " (main)" : "")"
    }
}
