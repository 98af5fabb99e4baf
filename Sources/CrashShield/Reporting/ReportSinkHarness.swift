import Foundation

/// CrashShield's own report path, from a recorded occurrence to the sinks (`ReportPipeline`: counting, delivery at 1,
/// 10, 100, ... and on flush; `ReportDelivery`: one serial thread of CrashShield's, faults caught), without a guard
/// or a bad call: what `CrashShieldTesting.ReportSinkContract` runs a sink through.
@_spi(Testing)
public final class ReportSinkHarness: @unchecked Sendable {
    private let pipeline: ReportPipeline

    public init(sinks: [any ReportSink]) {
        pipeline = ReportPipeline(
            limits: ReportLimits(maxDistinctReports: 1024, detailedCapturesPerSecond: 1 << 20),
            sinks: sinks)
    }

    /// One occurrence of `report`'s call site, as a stopped call records it: a new signature is delivered at once, a
    /// known one is counted (and delivered again at 10, 100, ... occurrences).
    public func occur(_ report: CrashReport) {
        let site = ReportPipeline.SiteKey(category: report.category.rawValue, cls: 0, selector: report.signature)
        pipeline.record(site: site) { report }
    }

    /// Delivers every count that changed since its last delivery (as `CrashShield.flush`), then waits at most
    /// `timeout` seconds for the sinks to take everything; returns whether they did.
    public func flush(timeout: TimeInterval) -> Bool {
        pipeline.flush()
        return ReportDelivery.shared.waitUntilDelivered(timeout: timeout)
    }

    /// Whether the caller runs on CrashShield's delivery thread (inside a sink).
    public static var isDeliveryThread: Bool { ReportDelivery.shared.isDelivering }
}
