import CrashShield
import CrashShieldRuntime
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The KVC guard in this process: safe values and one report per bad call, debug mode, classes that handle undefined
/// keys themselves, dictionaries' own KVC, valid calls unchanged, and a clean stop.
final class KVCGuardTests: ShieldTestCase {
    private func validCallsText() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_valid_kvc_calls()) }
        return text
    }

    func testValidCallsGiveIdenticalResultsGuardedAndUnguarded() throws {
        let unguarded = validCallsText()
        XCTAssertTrue(unguarded.contains("lenient valueForKey:=lenient:anything"), unguarded)
        XCTAssertTrue(unguarded.contains("dictionary after setValue:nil={k=v}"), "setValue:nil forKey: removes: \(unguarded)")
        try withShield { sink in
            XCTAssertEqual(validCallsText(), unguarded)
            XCTAssertEqual(sink.reports.count, 0, "valid calls must not report: \(sink.reports.map(\.method))")
        }
        XCTAssertEqual(validCallsText(), unguarded)
    }

    func testEveryKVCScenarioRecoversWithOneReport() throws {
        try assertScenariosRecover(CatalogScenario.all(category: "kvc"), guards: .kvc)
    }

    func testUndefinedKeyReadReturnsNilNotTheReceiver() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.valueForKey.undefinedKey"))
        try withShield(Configuration(guards: .kvc)) { sink in
            XCTAssertEqual(scenario.perform(), "nil")
            let report = try XCTUnwrap(sink.reports.first)
            XCTAssertEqual(report.className, "CSSKVCPerson")
            XCTAssertEqual(report.details["key"], "nickname")
            XCTAssertTrue(report.reason.hasPrefix("Unable to find value for key \"nickname\" of object "), report.reason)
        }
    }

    func testSetValuesForKeysSetsTheKnownKeysAndReportsTheUnknownOne() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.setValuesForKeys.unknownKey"))
        try withShield(Configuration(guards: .kvc)) { sink in
            XCTAssertEqual(scenario.perform(), "Bob,41", "name and age are set")
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(sink.reports.first?.details["key"], "nickname")
        }
    }

    func testDebugModeReportsThenFailsLikeFoundation() throws {
        for name in ["kvc.valueForKey.undefinedKey", "kvc.setValueForKey.undefinedKey", "kvc.setValueForKey.nilScalar"] {
            try assertDebugModeFailsLikeFoundation(try XCTUnwrap(CatalogScenario.named(name)), guards: .kvc)
        }
    }

    func testClassOverridingUndefinedKeyKeepsItsBehaviour() throws {
        try withShield(Configuration(guards: .kvc)) { sink in
            var value = ""
            withAutoreleasePool { value = String(cString: css_kvc_lenient_value("missing")) }
            XCTAssertEqual(value, "lenient:missing")
            withAutoreleasePool { value = String(cString: css_kvc_strict_override_value("alias")) }
            XCTAssertEqual(value, "known")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testOverrideCallingSuperKeepsNSObjectsException() throws {
        // The class overrides valueForUndefinedKey: and calls super for keys it does not know: that is its behaviour.
        try withShield(Configuration(guards: .kvc)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = css_kvc_strict_override_value("other") } }
            XCTAssertEqual(raised?.name, "NSUnknownKeyException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testKillSwitchAndStopRestoreEverything() throws {
        let root = try XCTUnwrap(ObjCClass(named: "NSObject"))
        let selectors: [ObjCSelector] = ["setValue:forUndefinedKey:", "valueForUndefinedKey:", "setNilValueForKey:"]
        let before = implementations(of: selectors, in: [root])
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.valueForKey.undefinedKey"))
        try withShield(Configuration(guards: .kvc)) { sink in
            XCTAssertNotEqual(implementations(of: selectors, in: [root]), before)
            XCTAssertTrue(try CrashShield.setGuard(.kvc, enabled: false))
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, "NSUnknownKeyException", "switched off: the original behaviour")
            XCTAssertTrue(try CrashShield.setGuard(.kvc, enabled: true))
            XCTAssertEqual(scenario.perform(), "nil")
            XCTAssertEqual(sink.reports.count, 1)
        }
        XCTAssertEqual(implementations(of: selectors, in: [root]), before, "nothing stays installed after stop")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { selectors.contains($0.point.selector) }.isEmpty)
    }

    func testConcurrentBadCallsAllRecoverAndAreCounted() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.valueForKey.undefinedKey"))
        try withShield(Configuration(guards: .kvc)) { sink in
            let results = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 {
                    let value = scenario.perform()
                    results.withLock { $0.append(value) }
                }
            }
            CrashShield.flush()
            XCTAssertEqual(results.current.count, 400)
            XCTAssertTrue(results.current.allSatisfy { $0 == "nil" })
            XCTAssertEqual(sink.reports.count, 1, "one call site")
            XCTAssertEqual(sink.reports.first?.occurrences, 400)
        }
    }
}
