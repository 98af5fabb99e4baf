@_spi(Testing) @testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// Sinks are foreign code: whatever one does, the app and CrashShield's own controls are unaffected.
final class SinkFaultTests: ShieldTestCase {
    private struct SinkFailure: Error {}

    /// Runs `body` on another thread and fails (instead of hanging the suite) when it does not finish in time.
    private func finishes(
        within seconds: TimeInterval, _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ body: @escaping @Sendable () -> Void
    ) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body(); done.signal()
        }.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            XCTFail("\(what) did not finish within \(seconds) s (deadlock or wait for a sink)", file: file, line: line)
        }
    }

    private func configuration(_ sinks: [any ReportSink]) -> Configuration {
        var configuration = Configuration(guards: .container)
        configuration.sinks = sinks
        return configuration
    }

    func testThrowingAndRaisingSinksDoNotReachTheAppAndLaterSinksStillReceive() throws {
        let thrown = ReportHandlerSink { _ in throw SinkFailure() }
        let raised = ReportHandlerSink { _ in csr_raise("NSGenericException", "a sink's own bug") }
        let after = InMemoryReportSink()
        try CrashShield.start(configuration([thrown, raised, after]))
        XCTAssertNil(catchingObjCException { XCTAssertNil(css_test_bad_call()) }, "nothing reaches the app's call site")
        XCTAssertTrue(CrashShield.flush(timeout: 5))
        XCTAssertEqual(after.reports.count, 1, "the sinks after the faulty ones still get the report")
    }

    func testABlockingSinkHoldsNeitherTheAppNorTheKillSwitchNorStop() throws {
        let release = DispatchSemaphore(value: 0)
        let blocking = ReportHandlerSink { _ in _ = release.wait(timeout: .now() + 3) }
        defer { release.signal(); release.signal() }
        try CrashShield.start(configuration([blocking]))
        var start = Date()
        XCTAssertNil(css_test_bad_call())
        XCTAssertNil(css_test_bad_call())
        XCTAssertLessThan(Date().timeIntervalSince(start), 1, "the app's thread never waits for a sink")
        start = Date()
        finishes(within: 1, "setGuard while a sink blocks") {
            XCTAssertNotNil(try? CrashShield.setGuard(.container, enabled: false))
            XCTAssertNotNil(try? CrashShield.setGuard(.container, enabled: true))
        }
        finishes(within: 1, "stop while a sink blocks") { CrashShield.stop() }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.5)
        XCTAssertFalse(CrashShield.isRunning)
    }

    func testASinkThatCallsStopOrSetGuardDoesNotDeadlock() throws {
        let stopping = ReportHandlerSink { report in
            if report.occurrences == 1 {
                _ = try? CrashShield.setGuard(.container, enabled: false)
                _ = try? CrashShield.setGuard(.container, enabled: true)
                CrashShield.flush()
                CrashShield.stop()
            }
        }
        try CrashShield.start(configuration([stopping]))
        finishes(within: 5, "a bad call whose report makes the sink stop CrashShield") {
            XCTAssertNil(css_test_bad_call())
            CrashShield.waitForSinks(timeout: 3)
        }
        XCTAssertFalse(CrashShield.isRunning, "the sink's stop() took effect")
    }

    func testASinkThatMakesABadCallIsProtectedOrContained() throws {
        // While running, the sink's own bad call is stopped like any other; after stop() (the hooks are reverted
        // before the pending counts are delivered) it raises inside the sink, where CrashShield catches it.
        let sinkCalls = Locked([String]())
        let reentrant = ReportHandlerSink { _ in
            sinkCalls.withLock { $0.append("entered") }
            let recovered = css_test_bad_call() == nil
            sinkCalls.withLock { $0.append(recovered ? "recovered" : "not recovered") }
        }
        let after = InMemoryReportSink()
        try CrashShield.start(configuration([reentrant, after]))
        XCTAssertNil(css_test_bad_call())
        XCTAssertTrue(CrashShield.waitForSinks(timeout: 5))
        XCTAssertEqual(
            sinkCalls.current, ["entered", "recovered"], "the sink's bad call was recovered while the guard ran")
        XCTAssertNil(css_test_bad_call())
        finishes(within: 5, "stop() with a sink that makes a bad call") {
            CrashShield.stop()
            CrashShield.waitForSinks(timeout: 3)
        }
        XCTAssertEqual(
            sinkCalls.current, ["entered", "recovered", "entered"],
            "after stop() the sink's bad call raised inside the sink and was caught there")
        XCTAssertEqual(
            after.reports.first?.occurrences, 3,
            "the sink after it still got the final count (2 app calls + 1 of the sink's)")
    }
}
