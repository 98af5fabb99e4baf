import CrashShieldRuntime.Internal
import Foundation

/// Hands reports to the sinks on one thread of CrashShield's own (`SerialWorker`), never on the thread that hit the
/// guard.
///
/// Sinks are foreign code. Whatever one does, the app's thread and CrashShield's own locks never wait for it:
/// - it runs on this thread, in delivery order, one report at a time, inside an autorelease pool;
/// - an Objective-C exception it raises (a bad call of its own, `NSException.raise`) is caught here, and a Swift
///   error it throws is caught here: both are logged (once per sink and error kind) and the next sink still runs;
/// - it may call `CrashShield.stop()`, `setGuard`, `flush()` or report again: nothing here holds a lock while it runs,
///   and the calls that wait for delivery do not wait when they are made from this thread;
/// - while it blocks, reports queue up to `maxPending`; past that they are counted in `droppedDeliveries`.
/// `CrashShield.waitForSinks(timeout:)` waits for what was queued so far (tests, app shutdown).
final class ReportDelivery: @unchecked Sendable {
    static let shared = ReportDelivery()

    /// Deliveries queued and not yet done beyond which new ones are dropped (a sink that blocks for good).
    static let maxPending = 4096

    private let worker = SerialWorker(name: "CrashShield.sinks")
    private let state = Locked((pending: 0, dropped: 0, logged: Set<String>()))

    private init() {}

    /// Whether the caller runs on the delivery thread (inside a sink).
    var isDelivering: Bool { worker.isCurrent }

    /// Whether deliveries are queued or running.
    var hasPending: Bool { state.withLock { $0.pending > 0 } }

    /// Reports that could not be queued because `maxPending` deliveries were waiting.
    var droppedDeliveries: Int { state.withLock { $0.dropped } }

    /// Queues `report` for every sink. Returns at once. `finishing` runs first, on the delivery thread (naming the
    /// call site and redaction, `ReportPipeline.record(site:finish:)`).
    func deliver(
        _ report: CrashReport, to sinks: [any ReportSink], finishing: (@Sendable (CrashReport) -> CrashReport)? = nil
    ) {
        guard !sinks.isEmpty else { return }
        let accepted = state.withLock { state -> Bool in
            guard state.pending < Self.maxPending else { state.dropped += 1; return false }
            state.pending += 1
            return true
        }
        guard accepted else { return }
        worker.async { [self] in
            let report = finishing?(report) ?? report
            for sink in sinks { call(sink, with: report) }
            state.withLock { $0.pending -= 1 }
        }
    }

    /// Waits until everything queued so far was delivered, at most `timeout` seconds. true: delivered. Returns at once
    /// (true) on the delivery thread itself, where waiting would wait for the caller.
    @discardableResult
    func waitUntilDelivered(timeout: TimeInterval) -> Bool {
        worker.waitForQueued(timeout: timeout)
    }

    private func call(_ sink: any ReportSink, with report: CrashReport) {
        let thrown = Locked<Error?>(nil)
        let raised = ObjCException.catching {
            do { try sink.receive(report) } catch { thrown.withLock { $0 = error } }
        }
        if let raised { logOnce(sink, "raised \(raised.name): \(raised.reason)") }
        if let error = thrown.current { logOnce(sink, "threw \(type(of: error)): \(error)") }
    }

    /// One log line per sink type and failure kind: a sink failing on every report must not flood the log.
    private func logOnce(_ sink: any ReportSink, _ what: String) {
        let sinkName = String(describing: type(of: sink))
        let key = sinkName + " " + what.prefix { $0 != ":" }
        guard state.withLock({ $0.logged.insert(key).inserted }) else { return }
        CrashShield.logger.error("report sink \(sinkName) \(what); CrashShield caught it and goes on")
    }
}
