@testable import CrashShield
import CrashShieldTesting
import XCTest

final class ReportPipelineTests: XCTestCase {
    private func report(_ signature: String, at date: Date = Date()) -> CrashReport {
        CrashReport(
            signature: signature, category: .container, exceptionName: "NSRangeException", reason: "r",
            className: "C", selector: "s", isClassMethod: false, hint: "h", action: .recovered, details: [:],
            thread: ThreadInfo(id: 1, name: "", isMain: true), callStack: [], callerFrameIndex: nil,
            firstSeen: date, lastSeen: date, occurrences: 1)
    }

    func testDeduplicatesCountsAndDeliversAtPowersOfTen() {
        let sink = InMemoryReportSink()
        let pipeline = ReportPipeline(limits: ReportLimits(detailedCapturesPerSecond: 1000), sinks: [sink])
        let site = ReportPipeline.SiteKey(category: 1, cls: 1, selector: "s")
        for _ in 0..<1234 { pipeline.record(site: site) { report("a") } }
        XCTAssertEqual(pipeline.reports.count, 1)
        XCTAssertEqual(pipeline.reports.first?.occurrences, 1234)
        XCTAssertEqual(sink.deliveryCount, 4, "1, 10, 100, 1000")
        pipeline.flush()
        XCTAssertEqual(sink.deliveryCount, 5)
        XCTAssertEqual(sink.reports.first?.occurrences, 1234)
        pipeline.flush()
        XCTAssertEqual(sink.deliveryCount, 5, "nothing changed, nothing delivered")
    }

    func testRateLimitSkipsDetailedCapturesButCountsEveryOccurrence() {
        let pipeline = ReportPipeline(limits: ReportLimits(detailedCapturesPerSecond: 5), sinks: [])
        let site = ReportPipeline.SiteKey(category: 1, cls: 1, selector: "s")
        var captures = 0
        let now = Date()
        for _ in 0..<10_000 {
            pipeline.record(site: site, now: now) {
                captures += 1; return report("a")
            }
        }
        XCTAssertEqual(captures, 5)
        XCTAssertEqual(pipeline.reports.first?.occurrences, 10_000)
        pipeline.record(site: site, now: now.addingTimeInterval(1.5)) {
            captures += 1; return report("a")
        }
        XCTAssertEqual(captures, 6, "a new second, a new budget")
    }

    func testDistinctReportsAreBounded() {
        let pipeline = ReportPipeline(limits: ReportLimits(maxDistinctReports: 16), sinks: [])
        for index in 0..<100 {
            let site = ReportPipeline.SiteKey(category: 1, cls: UInt(index), selector: "s")
            pipeline.record(site: site) { report("sig\(index)") }
        }
        XCTAssertEqual(pipeline.reports.count, 16)
        XCTAssertEqual(pipeline.droppedReports, 84)
    }

    func testThresholds() {
        XCTAssertEqual((1...100_000).filter(ReportPipeline.isThreshold), [10, 100, 1000, 10_000, 100_000])
    }
}
