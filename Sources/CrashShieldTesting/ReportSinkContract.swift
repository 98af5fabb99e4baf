@_spi(Testing) import CrashShield
import Foundation

/// The contract between CrashShield and a `ReportSink`, as a check a sink's author runs in the sink's own tests (as
/// swift-log documents what a `LogHandler` must do). Copy this into a test:
///
/// ```swift
/// func testMySinkKeepsTheSinkContract() throws {
///     let sink = try MySink(...)
///     let violations = ReportSinkContract().check(sink, readBack: { try sink.storedReports() })
///     XCTAssertEqual(violations, [], violations.map(\.description).joined(separator: "\n"))
/// }
/// ```
///
/// `check` runs the sink through CrashShield's own delivery path (the pipeline that counts and the delivery thread,
/// without a guard) with `sampleReports`: typical, minimal, large and odd reports, each delivered at its first
/// occurrence, one of them again at 10 and, on flush, at 12 occurrences.
///
/// What CrashShield promises a sink (the check verifies that it holds for this sink):
/// 1. Off the app's threads: `receive` runs on CrashShield's delivery thread, never on the thread that made the bad
///    call and never on the main thread; one report at a time, in order.
/// 2. Once per delivery: a report arrives at its first occurrence and again, with a higher `occurrences` (the
///    launch's total so far), at 10, 100, 1000, ... and on `CrashShield.flush()`; nothing is delivered twice.
/// 3. It may throw, raise or block: CrashShield catches the error or exception, logs it once and goes on with the
///    next sink; while a sink blocks, later reports wait (up to 4096, then they are dropped and counted).
///
/// What the sink must do (each rule broken is one `Violation`):
/// - `takesEveryReport`: take every well-formed report without throwing (throw for the sink's own failures, a full
///   disk, never for a report's content: empty strings, no stack, no context, a long reason, any Unicode).
/// - `returnsPromptly`: return from each `receive` within `timeLimit` (default 1 s): persist or enqueue, send later on
///   the sink's own queue (as `HTTPUploadSink` does); never wait for the network or for the main thread, which may be
///   waiting in `CrashShield.flush()` for this very sink.
/// - `flushCompletes`: let a flush finish: every delivery done within `timeLimit` per delivery.
/// - `keepsTheLatestCount` (with `readBack`): one report per signature, the one with the highest `occurrences`
///   delivered (a count update replaces, it does not add).
public struct ReportSinkContract: Sendable {
    /// A broken rule: which one, and what happened.
    public struct Violation: Error, Equatable, CustomStringConvertible, Sendable {
        public var rule: String
        public var detail: String
        public var description: String { "\(rule): \(detail)" }
    }

    /// The longest one `receive` may take.
    public var timeLimit: TimeInterval

    public init(timeLimit: TimeInterval = 1) { self.timeLimit = timeLimit }

    /// Runs `sink` through CrashShield's delivery path with `sampleReports` and returns the rules it broke (none: it
    /// keeps the contract). `readBack`, when given, returns what the sink kept (a store's `load().reports`), read after
    /// the flush. CrashShield need not be running.
    public func check(_ sink: any ReportSink, readBack: (() throws -> [CrashReport])? = nil) -> [Violation] {
        let probe = Probe(sink)
        let harness = ReportSinkHarness(sinks: [probe])
        let reports = Self.sampleReports()
        var expected: [(signature: String, occurrences: Int)] = []
        for report in reports {
            harness.occur(report)
            expected.append((report.signature, 1))
        }
        let counted = reports[0]
        for _ in 2...12 { harness.occur(counted) }
        expected += [(counted.signature, 10), (counted.signature, 12)]
        var violations: [Violation] = []
        let allowed = timeLimit * Double(expected.count + 1)
        if !harness.flush(timeout: allowed) {
            violations.append(
                Violation(rule: "flushCompletes", detail: "the deliveries did not finish within \(allowed) s"))
            // Let a sink that blocks for a while finish, so that it does not hold the next test's deliveries.
            _ = harness.flush(timeout: 30)
        }
        let calls = probe.calls
        for call in calls {
            if call.onMainThread || !call.onDeliveryThread {
                violations.append(
                    Violation(
                        rule: "offTheAppsThreads",
                        detail: "receive ran on \(call.onMainThread ? "the main thread" : "a thread not CrashShield's")"
                    ))
            }
            if call.seconds > timeLimit {
                violations.append(
                    Violation(
                        rule: "returnsPromptly",
                        detail: String(
                            format: "receive took %.2f s for %@ (%d occurrences); the limit is %.2f s",
                            call.seconds, call.signature, call.occurrences, timeLimit)))
            }
            if let error = call.error {
                violations.append(
                    Violation(
                        rule: "takesEveryReport",
                        detail: "receive threw \(error) for \(call.signature) (\(call.occurrences) occurrences)"))
            }
        }
        let delivered = calls.map { "\($0.signature)@\($0.occurrences)" }
        let wanted = expected.map { "\($0.signature)@\($0.occurrences)" }
        if delivered != wanted {
            violations.append(Violation(rule: "oncePerDelivery", detail: "deliveries \(delivered), expected \(wanted)"))
        }
        if let readBack {
            violations += keptCounts(readBack, expected: expected, reports: reports)
        }
        return violations
    }

    private func keptCounts(
        _ readBack: () throws -> [CrashReport], expected: [(signature: String, occurrences: Int)],
        reports: [CrashReport]
    ) -> [Violation] {
        let kept: [CrashReport]
        do { kept = try readBack() } catch {
            return [Violation(rule: "keepsTheLatestCount", detail: "readBack threw \(error)")]
        }
        var violations: [Violation] = []
        var latest: [String: Int] = [:]
        for delivery in expected { latest[delivery.signature] = delivery.occurrences }
        for report in reports {
            let copies = kept.filter { $0.signature == report.signature }
            if copies.count != 1 {
                violations.append(
                    Violation(
                        rule: "keepsTheLatestCount",
                        detail: "\(copies.count) reports kept for \(report.signature), expected 1"))
            } else if copies[0].occurrences != latest[report.signature] {
                violations.append(
                    Violation(
                        rule: "keepsTheLatestCount",
                        detail:
                            "\(report.signature) kept with \(copies[0].occurrences) occurrences, the latest delivered was \(latest[report.signature] ?? 0)"
                    ))
            } else if copies[0].category != report.category || copies[0].reason != report.reason {
                violations.append(
                    Violation(rule: "keepsTheLatestCount", detail: "\(report.signature) kept with other fields"))
            }
        }
        return violations
    }

    /// The reports `check` delivers: a typical one (stack, caller, context), a minimal one (empty strings, no stack,
    /// no context), a large one (a 16 KiB reason, 64 details) and one of odd text (Unicode, quotes, newlines, control
    /// characters), of different guards. Dates have whole milliseconds (what files keep).
    public static func sampleReports() -> [CrashReport] {
        let base = Date(timeIntervalSince1970: 1_764_064_800.125)
        let thread = ThreadInfo(id: 7, name: "worker", isMain: false)
        let image = "/app/MyApp.app/MyApp"
        let typical = CrashReport(
            signature: "contract-typical", category: .container, exceptionName: "NSRangeException",
            reason: "Index 5 is out of range 2 (in 'objectAtIndex:')", className: "__NSArrayI",
            selector: "objectAtIndex:", isClassMethod: false, hint: "check the index against count", action: .recovered,
            details: ["index": "5"], thread: thread,
            callStack: [
                StackFrame(address: 0x1_0000_2000, image: "/usr/lib/libobjc.A.dylib", imageBase: 0x1_0000_0000),
                StackFrame(address: 0x2_0000_1f3a, image: image, imageBase: 0x2_0000_0000, symbol: "$s5MyApp4loadyyF"),
            ],
            callerFrameIndex: 1, firstSeen: base, lastSeen: base, occurrences: 1,
            context: ReportContext(
                appIdentifier: "com.example.MyApp", appVersion: "1.2", appBuild: "42", osName: "iOS",
                osVersion: "17.4.1", device: "iPhone15,2", launchID: "contract-launch",
                secondsSinceLaunch: 3,
                images: [BinaryImage(name: "MyApp", path: image, loadAddress: 0x2_0000_0000)]),
            declaringClassName: "NSArray", callerFunction: "-[MYList reload]", groupingKey: "0123456789abcdef")
        let minimal = CrashReport(
            signature: "contract-minimal", category: .kvo, exceptionName: "", reason: "", className: "", selector: "",
            isClassMethod: true, hint: "", action: .failedLoudly, thread: ThreadInfo(id: 0, name: "", isMain: true),
            firstSeen: base, lastSeen: base, occurrences: 1)
        var details: [String: String] = [:]
        for index in 0..<64 { details["key\(index)"] = String(repeating: "v", count: 64) }
        let large = CrashReport(
            signature: "contract-large", category: .kvc, exceptionName: "NSUnknownKeyException",
            reason: String(repeating: "this class is not key value coding-compliant for the key x. ", count: 270),
            className: "MYModel", selector: "valueForKey:", isClassMethod: false, hint: "check the key",
            action: .recovered, details: details, thread: thread, firstSeen: base, lastSeen: base, occurrences: 1)
        let odd = CrashReport(
            signature: "contract-odd", category: .mainThreadUI, exceptionName: "NSInternalInconsistencyException",
            reason: "\u{e9}t\u{e9} \u{1F4A5} \"quoted\" back\\slash\nnew line\ttab \u{7}bell",
            className: "MYView\u{2713}", selector: "setNeedsLayout", isClassMethod: false, hint: "<b>&amp;</b>",
            action: .recovered, details: ["path": "/a/b", "empty": ""], thread: thread, firstSeen: base,
            lastSeen: base, occurrences: 1)
        return [typical, minimal, large, odd]
    }

    /// Wraps the sink under test: records where, how long and with what each call ran.
    private final class Probe: ReportSink, @unchecked Sendable {
        struct Call {
            var signature: String
            var occurrences: Int
            var onMainThread: Bool
            var onDeliveryThread: Bool
            var seconds: TimeInterval
            var error: String?
        }

        private let sink: any ReportSink
        private let lock = NSLock()
        private var recorded: [Call] = []

        init(_ sink: any ReportSink) { self.sink = sink }

        var calls: [Call] {
            lock.lock()
            defer { lock.unlock() }
            return recorded
        }

        func receive(_ report: CrashReport) throws {
            let start = Date()
            var thrown: Error?
            do { try sink.receive(report) } catch { thrown = error }
            let call = Call(
                signature: report.signature, occurrences: report.occurrences, onMainThread: Thread.isMainThread,
                onDeliveryThread: ReportSinkHarness.isDeliveryThread, seconds: Date().timeIntervalSince(start),
                error: thrown.map { "\($0)" })
            lock.lock()
            recorded.append(call)
            lock.unlock()
            if let thrown { throw thrown }
        }
    }
}
