@testable import CrashShield
import Foundation
import InMemoryLogging
import Logging
import XCTest
#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The report store across real processes: this test binary runs itself again as child processes (each does one
/// `ChildRole`, chosen by an environment variable, from `setUp()` of this class, then exits).
final class ReportStoreProcessTests: XCTestCase {
    private var folder: URL!

    override class func setUp() {
        super.setUp()
        guard let role = ProcessInfo.processInfo.environment[ChildRole.environmentKey] else { return }
        let status = ChildRole(rawValue: role)?.run() ?? 64
        fflush(stdout)
        exit(status)
    }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ReportStoreProcessTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private var fileURL: URL { folder.appendingPathComponent("reports.jsonl") }

    /// An app and its extensions sharing one store: several processes append count updates while their appends
    /// compact the file again and again; at the end every report is there once, with its last count.
    func testProcessesSharingOneFileLoseNothing() throws {
        let processes = 4
        let go = folder.appendingPathComponent("go")
        let children = try (0..<processes).map { index in
            try Child(
                .append, in: folder,
                environment: [
                    "STORE_FILE": fileURL.path, "STORE_GO": go.path, "STORE_CHILD": "\(index)",
                ])
        }
        _ = FileManager.default.createFile(atPath: go.path, contents: nil)  // all start together
        var compactions = 0
        for child in children {
            let outcome = try child.finish(within: 120)
            XCTAssertEqual(outcome.status, 0, "child \(child.name): \(outcome.output)")
            XCTAssertTrue(outcome.output.contains("STORE-CHILD failures=0 "), outcome.output)
            compactions += Int(outcome.value(of: "compactions") ?? "") ?? 0
        }
        XCTAssertGreaterThan(compactions, processes, "the appends must compact the file many times")

        let loaded = try JSONLinesReportStore(fileURL: fileURL, maxBytes: ChildRole.sharedMaxBytes).load()
        XCTAssertEqual(loaded.warnings, [])
        let expected = (0..<processes).flatMap { child in
            (0..<ChildRole.reportsPerChild).map { ChildRole.report(child: child, number: $0, occurrences: 1).signature }
        }
        XCTAssertEqual(Set(loaded.reports.map(\.signature)), Set(expected))
        XCTAssertEqual(loaded.reports.count, expected.count, "each report once")
        let lost = loaded.reports.filter { $0.occurrences != ChildRole.updates }.map(\.signature)
        XCTAssertEqual(lost.count, 0, "reports whose last count updates were lost: \(lost)")
    }

    /// A write past RLIMIT_FSIZE raises SIGXFSZ, which kills a process that left it at its default: the store must
    /// not write past the limit, and must leave the file readable with every report stored before.
    func testWritePastTheFileSizeLimitFailsWithoutKillingTheProcess() throws {
        let outcome = try Child(.fileSizeLimit, in: folder, environment: ["STORE_FILE": fileURL.path])
            .finish(within: 60)
        XCTAssertEqual(outcome.signal, nil, "the child died by signal \(outcome.signal ?? 0) (SIGXFSZ is \(SIGXFSZ))")
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertEqual(outcome.value(of: "failures"), "1", outcome.output)
        XCTAssertEqual(outcome.value(of: "failure"), "fileSizeLimit", outcome.output)
        XCTAssertEqual(outcome.value(of: "sigxfsz"), "default", "the store must not change the signal's disposition")
        XCTAssertEqual(outcome.value(of: "loaded"), "2", outcome.output)

        let loaded = try JSONLinesReportStore(fileURL: fileURL).load()
        XCTAssertEqual(
            loaded.reports.map(\.signature),
            (0..<2).map { ChildRole.report(child: 0, number: $0, occurrences: 1).signature })
        XCTAssertEqual(loaded.warnings, [], "no torn line: nothing of the refused report was written")
    }

    /// A process that holds the store's lock and stops (a debugger, SIGSTOP, a stuck extension) must not hold the
    /// app's thread: an append waits `lockTimeout`, the next ones do not wait, and once the holder is gone (killed:
    /// the kernel releases its lock) appends work again.
    func testALockHeldByAnotherProcessDelaysAReportAtMostTheTimeout() throws {
        let logs = InMemoryLogHandler()
        let store = try JSONLinesReportStore(fileURL: fileURL, logger: Logger(label: "test") { _ in logs })
        let reports = (0..<4).map { ChildRole.report(child: 0, number: $0, occurrences: 1) }
        store.receive(reports[0])
        let holder = try Child(.holdLock, in: folder, environment: ["STORE_FILE": fileURL.path])
        let deadline = Date().addingTimeInterval(60)
        while !holder.output.contains("STORE-CHILD locked") && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(holder.output.contains("STORE-CHILD locked"), holder.output)

        let lockPath = folder.appendingPathComponent(".reports.jsonl.lock").path
        var start = Date()
        store.receive(reports[1])
        let firstWait = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(firstWait, JSONLinesReportStore.lockTimeout * 0.9)
        XCTAssertLessThan(firstWait, JSONLinesReportStore.lockTimeout + 2, "the append waited for the other process")
        XCTAssertEqual(store.lastFailure, .lockTimedOut(path: lockPath, seconds: JSONLinesReportStore.lockTimeout))
        start = Date()
        store.receive(reports[2])
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5, "after a timeout, the next append does not wait")
        XCTAssertEqual(store.writeFailures, 2)

        holder.kill()
        XCTAssertEqual(try holder.finish(within: 30).signal, SIGKILL)
        store.receive(reports[3])
        XCTAssertEqual(store.writeFailures, 2, "the kernel released the killed process's lock")
        XCTAssertEqual(try store.load().reports, [reports[0], reports[3]])
    }
}

/// What a child process does.
private enum ChildRole: String {
    case append
    case fileSizeLimit
    case holdLock

    static let environmentKey = "CRASHSHIELD_REPORT_STORE_CHILD"
    static let reportsPerChild = 6
    static let updates = 40
    /// Four children's 24 reports (one line each, about 600 bytes) fit in half of it; their 960 updates do not fit.
    static let sharedMaxBytes = 40_000

    static func report(child: Int, number: Int, occurrences: Int) -> CrashReport {
        let seen = Date(timeIntervalSince1970: 1_700_000_000 + Double(occurrences))
        return CrashReport(
            signature: "container|GSInlineArray|objectAtIndex:|child-\(child)-report-\(number)", category: .container,
            exceptionName: "NSRangeException", reason: "Index 5 is out of range 2 (in 'objectAtIndex:')",
            className: "GSInlineArray", selector: "objectAtIndex:", isClassMethod: false,
            hint: "check the index against count before calling objectAtIndex:", action: .recovered,
            details: ["index": "5", "count": "2"], thread: ThreadInfo(id: 1, name: "main", isMain: true),
            callStack: [StackFrame(address: 0x40_1010, image: "/usr/lib/libapp.so", imageBase: 0x40_0000)],
            callerFrameIndex: 0, firstSeen: seen, lastSeen: seen, occurrences: occurrences)
    }

    /// Prints `STORE-CHILD key=value ...` and returns the exit status.
    func run() -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        guard let file = environment["STORE_FILE"] else { return 64 }
        do {
            switch self {
            case .append:
                let store = try JSONLinesReportStore(fileURL: URL(fileURLWithPath: file), maxBytes: Self.sharedMaxBytes)
                let child = Int(environment["STORE_CHILD"] ?? "") ?? 0
                while !FileManager.default.fileExists(atPath: environment["STORE_GO"] ?? "") { usleep(1000) }
                for occurrences in 1...Self.updates {
                    for number in 0..<Self.reportsPerChild {
                        store.receive(Self.report(child: child, number: number, occurrences: occurrences))
                    }
                }
                print("STORE-CHILD failures=\(store.writeFailures) compactions=\(store.compactionCount)")
            case .fileSizeLimit:
                let store = try JSONLinesReportStore(fileURL: URL(fileURLWithPath: file))
                store.receive(Self.report(child: 0, number: 0, occurrences: 1))
                store.receive(Self.report(child: 0, number: 1, occurrences: 1))
                let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
                // The next line (about 600 bytes) would pass the limit: a write past it raises SIGXFSZ.
                var limit = rlimit()
                getrlimit(Self.fileSizeResource, &limit)
                limit.rlim_cur = rlim_t(size + 100)
                guard setrlimit(Self.fileSizeResource, &limit) == 0 else { return 70 }
                store.receive(Self.report(child: 0, number: 2, occurrences: 1))
                var failure = "\(String(describing: store.lastFailure))"
                if case .fileSizeLimit? = store.lastFailure { failure = "fileSizeLimit" }
                let disposition = signal(SIGXFSZ, SIG_DFL) == nil ? "default" : "changed"
                print(
                    "STORE-CHILD failures=\(store.writeFailures) failure=\(failure) sigxfsz=\(disposition) "
                        + "loaded=\(try store.load().reports.count)")
            case .holdLock:
                let name = "." + URL(fileURLWithPath: file).lastPathComponent + ".lock"
                let fd = open(
                    URL(fileURLWithPath: file).deletingLastPathComponent().appendingPathComponent(name).path,
                    O_RDWR | O_CREAT, 0o600)
                guard fd >= 0, flock(fd, LOCK_EX) == 0 else { return 70 }
                print("STORE-CHILD locked")
                fflush(stdout)
                sleep(8)  // then exits, which releases the lock
            }
        } catch {
            print("STORE-CHILD error=\(error)")
            return 70
        }
        return 0
    }

    #if os(Linux)
    static let fileSizeResource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
    #else
    static let fileSizeResource = RLIMIT_FSIZE
    #endif
}

/// One child process running this test binary in a `ChildRole`; its output goes to a file.
private struct Child {
    struct Outcome {
        var status: Int32?
        var signal: Int32?
        var output: String

        /// The value of `key=` on the child's `STORE-CHILD` line.
        func value(of key: String) -> String? {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("STORE-CHILD ") }) else {
                return nil
            }
            return line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map {
                String($0.dropFirst(key.count + 1))
            }
        }
    }

    let name: String
    private let process = Process()
    private let outputURL: URL

    init(_ role: ChildRole, in folder: URL, environment: [String: String]) throws {
        #if os(Linux) || os(macOS)
        name = "\(role.rawValue)-\(UUID().uuidString.prefix(8))"
        outputURL = folder.appendingPathComponent("\(name).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let filter = "CrashShieldLibraryTests.ReportStoreProcessTests"
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        #if os(Linux)
        process.arguments = [filter]  // the test binary itself
        #else
        process.arguments = ["-XCTest", filter, Bundle(for: ReportStoreProcessTests.self).bundlePath]  // xctest
        #endif
        process.environment = ProcessInfo.processInfo.environment
            .merging(environment) { $1 }
            .merging([ChildRole.environmentKey: role.rawValue, "SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let output = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        #else
        throw XCTSkip("child processes are not available on this platform")
        #endif
    }

    /// What the child printed so far.
    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    func kill() { _ = Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Waits for the child; kills it (and fails) after `seconds`.
    func finish(within seconds: Double) throws -> Outcome {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill()
            process.waitUntilExit()
            XCTFail("child \(name) did not finish within \(seconds) s")
        }
        let signalled = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: signalled ? nil : process.terminationStatus,
            signal: signalled ? process.terminationStatus : nil, output: output)
    }
}
#endif
