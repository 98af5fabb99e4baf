@testable import CrashShield
@testable import CrashShieldUpload
import CrashShieldTesting
import Foundation
import InMemoryLogging
import Logging
import XCTest

/// The sink contract (`ReportSinkContract`, CrashShieldTesting): every sink of this package keeps it, and sinks that
/// break it are told which rule they broke.
final class SinkContractTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("SinkContractTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func assertKeepsTheContract(
        _ violations: [ReportSinkContract.Violation], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(violations, [], violations.map(\.description).joined(separator: "\n"), file: file, line: line)
    }

    func testLogReportSinkKeepsTheContract() {
        let logs = InMemoryLogHandler()
        let sink = LogReportSink(logger: Logger(label: "contract") { _ in logs })
        assertKeepsTheContract(ReportSinkContract().check(sink))
        XCTAssertEqual(logs.entries.count, ReportSinkContract.sampleReports().count + 2, "one line per delivery")
    }

    func testJSONLinesReportStoreKeepsTheContract() throws {
        let store = try JSONLinesReportStore(fileURL: folder.appendingPathComponent("reports.jsonl"))
        assertKeepsTheContract(ReportSinkContract().check(store, readBack: { try store.load().reports }))
        XCTAssertEqual(store.writeFailures, 0)
    }

    func testInMemoryReportSinkKeepsTheContract() {
        let sink = InMemoryReportSink()
        assertKeepsTheContract(ReportSinkContract().check(sink, readBack: { sink.reports }))
    }

    func testReportHandlerSinkKeepsTheContract() {
        let kept = Locked([String: CrashReport]())
        let sink = ReportHandlerSink { report in kept.withLock { $0[report.signature] = report } }
        assertKeepsTheContract(ReportSinkContract().check(sink, readBack: { Array(kept.current.values) }))
    }

    /// Sinks that break the contract, each told which rule: one that sends synchronously (blocks the delivery
    /// thread), one that refuses reports with an empty reason, one that adds count updates up instead of keeping the
    /// latest.
    func testBrokenSinksAreToldWhichRuleTheyBreak() {
        let contract = ReportSinkContract(timeLimit: 0.3)

        let synchronous = ReportHandlerSink { report in
            if report.signature == "contract-typical" && report.occurrences == 1 { Thread.sleep(forTimeInterval: 0.5) }
        }
        let slow = contract.check(synchronous)
        XCTAssertEqual(slow.map(\.rule), ["returnsPromptly"], "\(slow)")
        XCTAssertTrue(slow[0].detail.contains("contract-typical"), slow[0].detail)

        struct EmptyReason: Error {}
        let picky = ReportHandlerSink { report in if report.reason.isEmpty { throw EmptyReason() } }
        let refused = contract.check(picky)
        XCTAssertEqual(refused.map(\.rule), ["takesEveryReport"], "\(refused)")
        XCTAssertTrue(refused[0].detail.contains("contract-minimal"), refused[0].detail)

        let totals = Locked([String: CrashReport]())
        let adding = ReportHandlerSink { report in
            totals.withLock { kept in
                var sum = report
                sum.occurrences += kept[report.signature]?.occurrences ?? 0
                kept[report.signature] = sum
            }
        }
        let added = contract.check(adding, readBack: { Array(totals.current.values) })
        XCTAssertEqual(added.map(\.rule), ["keepsTheLatestCount"], "\(added)")
        XCTAssertTrue(
            added[0].detail.contains("kept with 23 occurrences, the latest delivered was 12"), added[0].detail)
    }
}

#if os(macOS) || os(Linux)  // the loopback server is a child process (Foundation's Process): not on iOS
/// `HTTPUploadSink` keeps the contract: `receive` persists and returns, the sink's own queue sends to a real server.
final class UploadSinkContractTests: UploadTestCase {
    func testHTTPUploadSinkKeepsTheContract() throws {
        let server = try server()
        let sink = try HTTPUploadSink(
            endpoint: server.url, folder: folder.appendingPathComponent("sink"),
            options: fastOptions { $0.uploadedGuards = .all })
        let violations = ReportSinkContract().check(
            sink,
            readBack: {
                XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
                var latest: [String: CrashReport] = [:]
                for report in try self.deliveredReports(server).flatMap(\.reports)
                where report.occurrences >= latest[report.signature]?.occurrences ?? 0 {
                    latest[report.signature] = report
                }
                return Array(latest.values)
            })
        XCTAssertEqual(violations, [], violations.map(\.description).joined(separator: "\n"))
    }
}
#endif
