@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// Every guard at once, zombies and main-thread checks included, over every valid-call suite: guards must not
/// misfire on each other's legal calls, and nothing they change may show in the results.
final class AllGuardsTests: ShieldTestCase {
    /// Each suite's observable results as one text.
    private func runSuites() -> [String: String] {
        var results: [String: String] = [:]
        withAutoreleasePool {
            results["containers"] = String(cString: css_valid_container_calls())
            results["strings"] = String(cString: css_valid_string_calls())
            results["kvc"] = String(cString: css_valid_kvc_calls())
            results["messaging"] = String(cString: css_valid_messaging_calls())
        }
        for (name, suite) in [
            ("kvo", css_kvo_valid_sequence), ("notifications", css_note_valid_sequence),
            ("timers", css_timer_valid_sequence),
        ] as [(String, (UnsafeMutablePointer<CChar>?, UInt) -> Void)] {
            var buffer = [CChar](repeating: 0, count: 1 << 16)
            suite(&buffer, UInt(buffer.count))
            results[name] = String(cString: buffer)
        }
        return results
    }

    func testEveryValidSuiteGivesTheSameResultsWithEveryGuardOnAndReportsNothing() throws {
        let unguarded = runSuites()
        XCTAssertEqual(unguarded.count, 7)
        XCTAssertTrue(unguarded.values.allSatisfy { !$0.isEmpty }, "\(unguarded.filter { $0.value.isEmpty }.keys)")
        withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(CrashShield.activeGuards, .all)
            let guarded = runSuites()
            for (name, text) in unguarded {
                XCTAssertEqual(guarded[name], text, "suite \(name) changed with every guard on")
            }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [], "valid calls must not report")
        }
        let afterStop = runSuites()
        for (name, text) in unguarded { XCTAssertEqual(afterStop[name], text, "suite \(name) changed after stop") }
    }
}
