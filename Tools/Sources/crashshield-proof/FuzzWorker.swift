import CrashShield
import CrashShieldProofKit
import Foundation

/// Counts the reports each guarded call produces: `CrashShield.flush()` after the call delivers every report whose
/// count changed, so the difference in delivered counts is exactly what the call caused.
final class ReportCounter: ReportSink, @unchecked Sendable {
    private let lock = NSLock()
    private var delivered: [String: Int] = [:]
    private var occurrences = 0
    private var described: [String] = []
    private var selectors = Set<String>()

    func receive(_ report: CrashReport) {
        lock.lock()
        defer { lock.unlock() }
        occurrences += report.occurrences - (delivered[report.signature] ?? 0)
        delivered[report.signature] = report.occurrences
        described.append(
            "\(report.category.name) \(report.method) \(report.exceptionName) (\(report.action.rawValue)): \(report.reason)"
        )
        selectors.insert(report.selector)
    }

    /// Occurrences, report descriptions and the selectors they name, since the last call.
    func take() -> (count: Int, reports: [String], selectors: Set<String>) {
        lock.lock()
        defer { lock.unlock() }
        let result = (occurrences, described, selectors)
        occurrences = 0
        described = []
        selectors = []
        return result
    }
}

/// Calls not to make again: shapes that crashed or hung a worker, and entries quarantined after several such shapes
/// (one bug can hang every index and range of a method; each hang costs a worker and the call timeout).
struct SkipList {
    var shapes = Set<UInt64>()
    var entries = Set<UInt32>()

    /// Crashes (or hangs) with guards after which a method is no longer called in this run.
    static let quarantineAfter = 3

    func contains(_ call: CSPCall) -> Bool { entries.contains(call.entry) || shapes.contains(FuzzCalls.key(call)) }

    var text: String { (shapes.map { String($0, radix: 16) } + entries.map { "entry \($0)" }).joined(separator: "\n") }

    init() {}

    init(text: String) {
        for line in text.split(separator: "\n") {
            if line.hasPrefix("entry "), let entry = UInt32(line.dropFirst(6)) {
                entries.insert(entry)
            } else if let key = UInt64(line, radix: 16) {
                shapes.insert(key)
            }
        }
    }
}

/// The calls a seed makes: call `index` is the same on every run, in every process.
enum FuzzCalls {
    static func call(seed: UInt64, index: Int) -> CSPCall {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index) &* 0xD1B5_4A32_D192_ED03
        var call = CSPCall()
        csp_fuzz_generate(&state, &call)
        return call
    }

    static func key(_ call: CSPCall) -> UInt64 {
        var call = call
        return csp_fuzz_key(&call)
    }

    static func describe(_ call: CSPCall) -> String {
        var call = call
        guard let text = csp_fuzz_describe(&call) else { return "?" }
        defer { free(text) }
        return String(cString: text)
    }

    static func inScope(_ call: CSPCall) -> Bool {
        var call = call
        return csp_fuzz_in_scope(&call)
    }

    static func selector(_ call: CSPCall) -> String {
        var call = call
        return csp_fuzz_selector(&call).map { String(cString: $0) } ?? ""
    }

    static func expectsRecovery(_ call: CSPCall) -> Bool {
        var call = call
        return csp_fuzz_expects_recovery(&call)
    }

    /// The configuration every guarded run uses: every guard, release mode, every report kept and counted exactly
    /// (past the rate limit an occurrence is only counted, which is all the judge needs). Detailed captures are
    /// rare and short: finding the caller names frames with dladdr, which scans the symbol table of a large debug
    /// binary (about half the fuzzer's time at the default limits).
    static func configuration(sink: ReportSink) -> Configuration {
        Configuration(
            guards: .all, mode: .release, sinks: [sink],
            limits: ReportLimits(maxDistinctReports: 1_000_000, detailedCapturesPerSecond: 1, maxStackDepth: 4))
    }
}

/// Runs calls [from, to) in batches: each batch once with every guard off, then once with every guard on. Each
/// guarded call is judged at once: a finding is appended to the results file (and flushed) and the tallies live in
/// the progress file, so both survive a crash; the parent (`FuzzDriver`) learns from the progress file which call a
/// crash or a hang happened in, and where the batch began.
struct FuzzWorker {
    let seed: UInt64
    let range: Range<Int>
    let batch: Int
    let skip: SkipList
    let progress: ProgressFile
    let results: UnsafeMutablePointer<FILE>

    /// Progress-file slots: calls judged, valid, recovered, left alone (cumulative), and the current batch's start.
    enum Slot {
        static let judged = 3, valid = 4, recovered = 5, leftAlone = 6, batchStart = 7, wrongType = 8
        static func tally(_ verdict: Verdict) -> Int {
            switch verdict {
            case .valid: return valid
            case .recovered: return recovered
            case .leftAlone: return leftAlone
            case .wrongType: return wrongType
            }
        }
    }

    private static func clean(_ text: String) -> String {
        String(text.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }.prefix(4000))
    }

    private func write(_ fields: [String]) {
        fputs(fields.map(Self.clean).joined(separator: "\t") + "\n", results)
        fflush(results)
    }

    func run() throws {
        var classes = Set<String>()
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + batch, range.upperBound)
            try runBatch(start..<end, classes: &classes)
            start = end
        }
        progress.mark(.idle, range.upperBound)
    }

    private func runBatch(_ indexes: Range<Int>, classes: inout Set<String>) throws {
        progress.store(UInt64(indexes.lowerBound), slot: Slot.batchStart)
        let calls = indexes.map { ($0, FuzzCalls.call(seed: seed, index: $0)) }.filter { !skip.contains($0.1) }
        var unguarded: [CallOutcome] = []
        unguarded.reserveCapacity(calls.count)
        for (index, call) in calls {
            progress.mark(.unguarded, index)
            unguarded.append(CallOutcome.run(call))
        }
        progress.mark(.setup, indexes.lowerBound)
        let counter = ReportCounter()
        try CrashShield.start(FuzzCalls.configuration(sink: counter))
        for (position, (index, call)) in calls.enumerated() {
            progress.mark(.guarded, index)
            let outcome = CallOutcome.run(call)
            CrashShield.flush()
            let reports = counter.take()
            let before = unguarded[position]
            let (verdict, found) = Verdict.judge(
                unguarded: before, guarded: outcome, reports: reports.count,
                ownSelector: reports.selectors.contains(FuzzCalls.selector(call)), inScope: FuzzCalls.inScope(call),
                expectsRecovery: FuzzCalls.expectsRecovery(call), selector: FuzzCalls.selector(call))
            if let receiverClass = before.before.split(separator: " ").first.map(String.init),
                classes.insert(receiverClass).inserted
            {
                write(["CLASS", receiverClass])
            }
            for divergence in found {
                write([
                    "FINDING", divergence.rawValue, String(index), String(FuzzCalls.key(call), radix: 16),
                    FuzzCalls.describe(call), "without CrashShield: " + before.summary,
                    "with every guard: " + outcome.summary,
                    "reports: \(reports.count)" + reports.reports.map { "; " + $0 }.joined(),
                ])
            }
            progress.store(progress.load(slot: Slot.judged) + 1, slot: Slot.judged)
            progress.store(progress.load(slot: Slot.tally(verdict)) + 1, slot: Slot.tally(verdict))
        }
        progress.mark(.setup, indexes.upperBound)
        CrashShield.stop()
    }

    /// Prints the call's repro and what it does with every guard off (for a call that crashed a worker).
    static func explain(seed: UInt64, index: Int) {
        let call = FuzzCalls.call(seed: seed, index: index)
        print("call #\(index): \(FuzzCalls.describe(call))")
        fflush(stdout)
        print("without CrashShield: \(CallOutcome.run(call).summary)")
        fflush(stdout)
    }
}
