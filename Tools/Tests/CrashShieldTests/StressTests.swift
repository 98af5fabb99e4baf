import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// 8 threads make good and bad calls of every guard family (KVO and notification observers added, removed and
/// freed while registered among them) while one more thread starts, stops and toggles guards. It runs in a child
/// process (`crashshield-proof stress`): a crash there names what every thread was doing and the crashing stack, and
/// a thread that makes no progress for 20 s ends it with "STRESS HANG". `scripts/stress.sh` runs it for 60 s.
final class StressTests: XCTestCase {
    private func stress(_ mode: String, seconds: Int, extra: [String] = []) throws -> ProofTool.Run {
        let run = try ProofTool.run(
            ["stress", "--mode", mode, "--seconds", String(seconds), "--threads", "8", "--watchdog", "20"] + extra,
            timeout: Double(seconds) + 90)
        print(run.output.split(separator: "\n").filter { !$0.hasPrefix("20") }.joined(separator: "\n"))
        return run
    }

    private func assertClean(_ run: ProofTool.Run, file: StaticString = #filePath, line: UInt = #line) {
        let report = run.output.split(separator: "\n").filter {
            $0.hasPrefix("STRESS") || $0.hasPrefix("stress:") || $0.contains("crashshield-proof(")
        }
        .prefix(40).joined(separator: "\n")
        XCTAssertFalse(
            run.timedOut, "the stress test did not end (the watchdog should have):\n\(report)", file: file, line: line)
        XCTAssertFalse(run.signaled, "crashed with signal \(run.status):\n\(report)", file: file, line: line)
        XCTAssertFalse(run.output.contains("STRESS HANG"), "hang:\n\(report)", file: file, line: line)
        XCTAssertTrue(
            run.output.contains(" 0 wrong answers"), "valid calls gave wrong answers:\n\(report)", file: file,
            line: line)
        XCTAssertEqual(run.status, 0, report, file: file, line: line)
    }

    /// The operations are sound on their own: without CrashShield, 8 threads run them without a crash or a wrong
    /// answer (every bad call raises and is caught), so whatever fails below is CrashShield's.
    func testTheOperationsAreSoundWithoutCrashShield() throws {
        assertClean(try stress("baseline", seconds: 2))
    }

    func testEightThreadsWhileGuardsAreStartedStoppedAndToggled() throws {
        let run = try stress("toggle", seconds: 5)
        assertClean(run)
        XCTAssertTrue(run.output.contains("stress: toggler: "), run.output.suffix(2000).description)
    }
}
#endif
