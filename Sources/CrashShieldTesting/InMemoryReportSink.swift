@_spi(Testing) import CrashShield
import Foundation

/// Keeps reports in memory, latest count per signature: for an app's own tests ("this bad call is reported once").
///
/// Sinks are called on CrashShield's delivery queue; reading `reports` or `deliveryCount` first waits (up to 5 s) until
/// every report made so far was delivered, so a test reads what it caused. Read inside a sink, it does not wait.
public final class InMemoryReportSink: ReportSink, @unchecked Sendable {
    private let lock = NSLock()
    private var bySignature: [String: CrashReport] = [:]
    private var order: [String] = []
    private var deliveries = 0

    public init() {}

    public func receive(_ report: CrashReport) {
        lock.lock()
        defer { lock.unlock() }
        if bySignature.updateValue(report, forKey: report.signature) == nil { order.append(report.signature) }
        deliveries += 1
    }

    /// Distinct reports in order of first delivery, each with its latest delivered count.
    public var reports: [CrashReport] {
        CrashShield.waitForSinks()
        lock.lock()
        defer { lock.unlock() }
        return order.compactMap { bySignature[$0] }
    }

    /// How many times `receive` was called (first occurrences plus count updates).
    public var deliveryCount: Int {
        CrashShield.waitForSinks()
        lock.lock()
        defer { lock.unlock() }
        return deliveries
    }

    /// Reports of these guards (one guard, or a set).
    public func reports(in category: GuardCategory) -> [CrashReport] {
        reports.filter { category.contains($0.category) }
    }

    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        bySignature.removeAll()
        order.removeAll()
        deliveries = 0
    }
}
