import Foundation

/// Deduplicates, counts and rate-limits reports, then hands them to the sinks (through `ReportDelivery`). It records
/// what the failure path decided; it decides nothing itself.
///
/// Bounded in memory (at most `maxDistinctReports` signatures, and at most `maxWindows` rate windows, one per call
/// site seen) and in time: past `detailedCapturesPerSecond` occurrences a second of one call site, an occurrence costs
/// a lock and a counter, with no symbolicated stack and no reason text. Sinks never run under the lock.
final class ReportPipeline: @unchecked Sendable {
    /// One call site of one guard/class/selector: the rate-limit key. Two call sites of the same method are two
    /// sites, each with its own report and its own decision. Pointers are stable for the process.
    struct SiteKey: Hashable {
        let category: UInt32
        let cls: UInt
        let selector: String
        /// Return address of the bad call (0 when unknown).
        var caller: UInt = 0
    }

    private struct Window {
        var start: TimeInterval = 0
        var detailed = 0
        var lastSignature: String?
    }

    /// What the delivery thread does to a report before the sinks see it (`IncidentPath.finishReport`: the caller's
    /// name, the grouping key, redaction).
    typealias Finish = @Sendable (CrashReport) -> CrashReport

    private struct Entry {
        var report: CrashReport
        var deliveredOccurrences: Int
        /// Set until the report was finished once; the finished report then replaces `report` (with its counts).
        var finish: Finish?
    }

    private let limits: ReportLimits
    private let sinks: [any ReportSink]
    private let delivery: ReportDelivery
    private let lock = Lock()
    private var windows: [SiteKey: Window] = [:]
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private(set) var droppedReports = 0
    static let maxWindows = 4096

    init(limits: ReportLimits, sinks: [any ReportSink], delivery: ReportDelivery = .shared) {
        self.limits = limits
        self.sinks = sinks
        self.delivery = delivery
    }

    /// Records one occurrence at `site`. `makeReport` (stack symbolication, reason text) runs outside the lock and
    /// only while the site is under its rate limit; past it the occurrence is counted on the site's last report.
    /// `finish` runs on the delivery thread (or in `reports`), never on the recording one, once per new report and on
    /// each delivery until one finished it.
    func record(site: SiteKey, now: Date = Date(), finish: Finish? = nil, makeReport: () -> CrashReport) {
        let seconds = now.timeIntervalSinceReferenceDate
        let countOnlySignature: String? = lock.withLock {
            var window = windows[site] ?? Window()
            if seconds - window.start >= 1 { window.start = seconds; window.detailed = 0 }
            defer { if windows.count < Self.maxWindows || windows[site] != nil { windows[site] = window } }
            if window.detailed >= limits.detailedCapturesPerSecond, let signature = window.lastSignature {
                return signature
            }
            window.detailed += 1
            return nil
        }
        if let signature = countOnlySignature {
            deliver(lock.withLock { bump(signature, at: now) })
            return
        }
        let report = makeReport()
        let toDeliver: Entry? = lock.withLock {
            windows[site]?.lastSignature = report.signature
            if entries[report.signature] != nil { return bump(report.signature, at: now) }
            guard entries.count < limits.maxDistinctReports else { droppedReports += 1; return nil }
            let entry = Entry(report: report, deliveredOccurrences: report.occurrences, finish: finish)
            entries[report.signature] = entry
            order.append(report.signature)
            return entry
        }
        deliver(toDeliver)
    }

    /// Counts one more occurrence; returns the entry when it crosses a delivery threshold (10, 100, ...).
    private func bump(_ signature: String, at now: Date) -> Entry? {
        guard var entry = entries[signature] else { return nil }
        entry.report.occurrences += 1
        entry.report.lastSeen = now
        let due = Self.isThreshold(entry.report.occurrences)
        if due { entry.deliveredOccurrences = entry.report.occurrences }
        entries[signature] = entry
        return due ? entry : nil
    }

    static func isThreshold(_ count: Int) -> Bool {
        var threshold = 10
        while threshold < count { threshold *= 10 }
        return threshold == count
    }

    private func deliver(_ entry: Entry?) {
        guard let entry else { return }
        guard let finish = entry.finish else { return delivery.deliver(entry.report, to: sinks) }
        delivery.deliver(entry.report, to: sinks) { [weak self] report in
            let finished = finish(report)
            self?.keep(finished)
            return finished
        }
    }

    /// Keeps a finished report in place of its unfinished entry, with the entry's current counts.
    private func keep(_ finished: CrashReport) {
        lock.withLock {
            guard var entry = entries[finished.signature], entry.finish != nil else { return }
            var report = finished
            report.occurrences = entry.report.occurrences
            report.lastSeen = entry.report.lastSeen
            entry.report = report
            entry.finish = nil
            entries[finished.signature] = entry
        }
    }

    /// Delivers every report whose count changed since it was last delivered.
    func flush() {
        let pending: [Entry] = lock.withLock {
            var result: [Entry] = []
            for signature in order {
                guard var entry = entries[signature], entry.deliveredOccurrences != entry.report.occurrences else {
                    continue
                }
                entry.deliveredOccurrences = entry.report.occurrences
                entries[signature] = entry
                result.append(entry)
            }
            return result
        }
        pending.forEach(deliver)
    }

    /// Every distinct report so far, in order of first occurrence, with current counts; one not delivered yet is
    /// finished here, on the caller's thread.
    var reports: [CrashReport] {
        let current = lock.withLock { order.compactMap { entries[$0] } }
        return current.map { entry in
            guard let finish = entry.finish else { return entry.report }
            let finished = finish(entry.report)
            keep(finished)
            return finished
        }
    }
}
