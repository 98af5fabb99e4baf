@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// NSPredicate's format parser (`PredicateHooks`): a format it cannot read answers a predicate that matches nothing,
/// with one report of Foundation's own exception and reason; every format it reads answers as without CrashShield.
final class PredicateTests: ShieldTestCase {
    /// Twenty formats, valid and not, through the variadic form, the argument-array form, a subclass and `%@`
    /// arguments (which always parse), guards off and on.
    func testPredicateFormatsBehaveAsFoundation() throws {
        let calls: [(probe: String, selector: String)] = [
            ("predicateClass.predicateWithFormat:", "predicateWithFormat:arguments:"),
            ("predicateClass.predicateWithFormat:argumentArray:", "predicateWithFormat:argumentArray:"),
            ("predicateClass.predicateWithFormat:%@", "predicateWithFormat:arguments:"),
            ("comparisonPredicateClass.predicateWithFormat:", "predicateWithFormat:arguments:"),
        ]
        var compared = 0
        for (name, selector) in calls {
            let probes = Probe.all(name).filter { $0.name == name }
            XCTAssertEqual(probes.count, 1, name)
            compared += try assertProbesBehaveAsFoundation(probes, selector: selector)
        }
        XCTAssertGreaterThan(compared, 30)
        let formats = try XCTUnwrap(Probe.all("predicateClass.predicateWithFormat:").first { $0.name.hasSuffix(":") })
        let raising = formats.indexes.filter { formats.run($0)?.raised != nil }
        XCTAssertGreaterThan(raising.count, 3, "the probes include formats the parser rejects")
        let arguments = try XCTUnwrap(Probe.all("predicateClass.predicateWithFormat:%@").first)
        XCTAssertTrue(arguments.indexes.allSatisfy { arguments.run($0)?.raised == nil }, "values as arguments parse")
    }

    /// A format that is no string is Foundation's own failure: it raises as without CrashShield, unreported.
    func testAFormatThatIsNoStringIsLeftToFoundation() throws {
        let probe = try XCTUnwrap(Probe.all("predicateClass.predicateWithFormat:number").first)
        let unguarded = try XCTUnwrap(probe.run(0))
        XCTAssertNotNil(unguarded.raised)
        withShield(Configuration(guards: .all)) { sink in
            XCTAssertEqual(probe.run(0), unguarded)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
    }

    /// The catalog's rows in this process: FALSEPREDICATE, one report naming the app's call with Foundation's reason.
    func testScenariosAnswerAPredicateMatchingNothing() throws {
        let scenarios = CatalogScenario.all(category: "string").filter { $0.name.hasPrefix("predicate.") }
        XCTAssertEqual(scenarios.count, 4)
        for scenario in scenarios {
            var unguarded: (name: String, reason: String)?
            withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(unguarded?.name, "NSInvalidArgumentException", scenario.name)
            withShield(Configuration(guards: .string)) { sink in
                XCTAssertEqual(scenario.perform(), "FALSEPREDICATE", scenario.name)
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.selector), [scenario.selector], scenario.name)
                XCTAssertEqual(sink.reports.first?.isClassMethod, true, scenario.name)
                XCTAssertEqual(sink.reports.first?.reason, unguarded?.reason, scenario.name)
            }
            withShield(Configuration(guards: .string, excludedClassNames: ["NSPredicate"])) { sink in
                var raised: (name: String, reason: String)?
                withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
                XCTAssertEqual(raised?.reason, unguarded?.reason, "\(scenario.name): an excluded class")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.method), [])
            }
        }
    }
}
