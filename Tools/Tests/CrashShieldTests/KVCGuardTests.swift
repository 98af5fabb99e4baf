@testable import CrashShield
import CrashShieldRuntime.Internal
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
        XCTAssertTrue(
            unguarded.contains("dictionary after setValue:nil={k=v}"), "setValue:nil forKey: removes: \(unguarded)")
        withShield { sink in
            XCTAssertEqual(validCallsText(), unguarded)
            XCTAssertEqual(sink.reports.count, 0, "valid calls must not report: \(sink.reports.map(\.method))")
        }
        XCTAssertEqual(validCallsText(), unguarded)
    }

    /// Classes answering undefined keys through GNUstep's older handlers are left alone; a collection's KVC call
    /// that fails for several elements is one bad call: recovered, one report naming the first failure.
    func testUndefinedKeysBehaveAsFoundationWithEveryGuardOn() throws {
        try assertProbesBehaveAsFoundation(Probe.all("kvc."))
    }

    /// `[[NSArray arrayWithObject:@"s0"] valueForKeyPath:nil]`: GNUstep raises a catchable NSUnknownKeyException
    /// (from the element, through `[[self valueForKey:nil] valueForKeyPath:nil]`). Recovering that element and going
    /// on recursed until the stack overflowed; the guard now ends the call where Foundation's exception does: release
    /// mode returns nil with one report, debug mode raises the same catchable exception.
    func testValueForKeyPathNilOnAnArrayEndsWhereFoundationRaises() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.array.valueForKeyPath.nilKey"))
        var unguarded: (name: String, reason: String)?
        withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
        XCTAssertEqual(unguarded?.name, "NSUnknownKeyException")
        withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(scenario.perform(), "nil")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.count, 1, "\(sink.reports.map(\.method))")
            XCTAssertEqual(sink.reports.first?.occurrences, 1)
            XCTAssertEqual(sink.reports.first?.exceptionName, "NSUnknownKeyException")
        }
        withShield(Configuration(guards: .all, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, "NSUnknownKeyException", "debug mode: the same catchable exception")
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(sink.reports.first?.action, .failedLoudly)
        }
    }

    /// One bad call, one report: a collection's KVC call through GNUstep's key-path code (every element, collection
    /// operators, nested paths) is one call, whatever the number of elements that fail; two calls count two.
    func testKVCThroughCollectionsReportsOnceForEachBadCall() throws {
        let names = [
            "kvc.array.valueForKey.undefinedKey", "kvc.array.unionOfObjects.undefinedKey",
            "kvc.array.setValueForKey.undefinedKey", "kvc.array.valueForKeyPath.nilKey",
        ]
        for name in names {
            let scenario = try XCTUnwrap(CatalogScenario.named(name))
            withShield(Configuration(guards: .all)) { sink in
                _ = scenario.perform()
                _ = scenario.perform()
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.method).count, 1, "\(name): \(sink.reports.map(\.method))")
                XCTAssertEqual(sink.reports.first?.category, .kvc, name)
                XCTAssertEqual(sink.reports.first?.occurrences, 2, "\(name): two bad calls")
            }
        }
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
            XCTAssertTrue(
                report.reason.hasPrefix("Unable to find value for key \"nickname\" of object "), report.reason)
        }
    }

    func testSetValuesForKeysSetsTheKnownKeysAndReportsTheUnknownOne() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.setValuesForKeys.unknownKey"))
        withShield(Configuration(guards: .kvc)) { sink in
            XCTAssertEqual(scenario.perform(), "Bob,41", "name and age are set")
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(sink.reports.first?.details["key"], "nickname")
        }
    }

    func testDebugModeReportsThenFailsLikeFoundation() throws {
        for name in ["kvc.valueForKey.undefinedKey", "kvc.setValueForKey.undefinedKey", "kvc.setValueForKey.nilScalar"]
        {
            try assertDebugModeFailsLikeFoundation(try XCTUnwrap(CatalogScenario.named(name)), guards: .kvc)
        }
    }

    func testClassOverridingUndefinedKeyKeepsItsBehaviour() throws {
        withShield(Configuration(guards: .kvc)) { sink in
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
        withShield(Configuration(guards: .kvc)) { sink in
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
            XCTAssertNoThrow(try CrashShield.setGuard(.kvc, enabled: false))
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, "NSUnknownKeyException", "switched off: the original behaviour")
            XCTAssertNoThrow(try CrashShield.setGuard(.kvc, enabled: true))
            XCTAssertEqual(scenario.perform(), "nil")
            XCTAssertEqual(sink.reports.count, 1)
        }
        XCTAssertEqual(implementations(of: selectors, in: [root]), before, "nothing stays installed after stop")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { selectors.contains($0.point.selector) }.isEmpty)
    }

    func testConcurrentBadCallsAllRecoverAndAreCounted() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("kvc.valueForKey.undefinedKey"))
        withShield(Configuration(guards: .kvc)) { sink in
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
