@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The variadic methods (C trampolines, CSRVariadic.h): `+stringWithFormat:nil` (GNUstep raises in the method),
/// `appendFormat:nil` (only Apple raises), a nil key in `+dictionaryWithObjectsAndKeys:` / `-initWithObjectsAndKeys:`
/// (both raise), and `-[NSUserDefaults setObject:forKey:]` with a nil key (both raise). Catalog rows:
/// CSSVariadicScenarios.m; the crash matrix runs them in child processes.
final class VariadicGuardTests: ShieldTestCase {
    static let catalogRows = [
        "string.stringWithFormat.nil", "dictionary.dictionaryWithObjectsAndKeys.nilKey",
        "mutableDictionary.dictionaryWithObjectsAndKeys.nilKey", "dictionary.initWithObjectsAndKeys.nilKey",
        "mutableDictionary.initWithObjectsAndKeys.missingKey", "userDefaults.setObjectForKey.nilKey",
        "userDefaults.setInteger.nilKey",
    ]
    static let variadicSelectors: Set<String> = [
        "stringWithFormat:", "appendFormat:", "dictionaryWithObjectsAndKeys:",
        "initWithObjectsAndKeys:",
    ]

    override func tearDown() {
        FoundationRules.current = FoundationRules.platform
        super.tearDown()
    }

    private func rows() throws -> [CatalogScenario] {
        try Self.catalogRows.map { try XCTUnwrap(CatalogScenario.named($0), $0) }
    }

    private func guards(_ scenario: CatalogScenario) -> GuardCategory {
        scenario.category == "string" ? .string : .container
    }

    /// Release mode: the safe value (the empty string of the class asked for; the complete pairs before the nil key,
    /// never a pair after it; the defaults untouched) and one report naming the method the app called.
    func testEachRowRecoversWithOneReport() throws {
        for scenario in try rows() {
            try assertScenariosRecover([scenario], guards: guards(scenario))
        }
    }

    /// Debug mode: the guard raises exactly what GNUstep raises for the same call (name and reason), and the report
    /// names it; the caller frame is the scenario's own code, not the trampoline.
    func testDebugModeRaisesWhatGNUstepRaises() throws {
        for scenario in try rows() {
            var unguarded: (name: String, reason: String)?
            withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
            XCTAssertNotNil(unguarded, "\(scenario.name): GNUstep raises")
            withShield(Configuration(guards: guards(scenario), mode: .debug)) { sink in
                var raised: (name: String, reason: String)?
                withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
                CrashShield.flush()
                XCTAssertEqual(raised?.name, unguarded?.name, scenario.name)
                XCTAssertEqual(raised?.reason, unguarded?.reason, scenario.name)
                XCTAssertEqual(sink.reports.map(\.reason), [unguarded?.reason ?? "?"], scenario.name)
                XCTAssertTrue(callerIsRightAboveTheHook(sink.reports.first), scenario.name)
            }
        }
    }

    /// The report's caller frame is the one that called the replacement (the frame below it runs the replacement).
    private func callerIsRightAboveTheHook(_ report: CrashReport?) -> Bool {
        let replacements: [AnyHookPoint] = [
            FormatHooks.stringWithFormat, FormatHooks.appendFormat,
            ObjectsAndKeysHooks.dictionaryWithObjectsAndKeys,
            ObjectsAndKeysHooks.initWithObjectsAndKeys, UserDefaultsHooks.setObjectForKey,
        ]
        guard let report, let caller = report.callerFrameIndex, caller > 0 else { return false }
        let below = Images.function(containing: UInt(report.callStack[caller - 1].address) - 1)
        return replacements.contains { UInt(bitPattern: $0.replacementAddress) == below }
    }

    private func validCalls() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_valid_variadic_calls()) }
        return text
    }

    private func installedSelectors() throws -> Set<String> {
        let session = try XCTUnwrap(Session.current.load(ordering: .acquiring))
        return Set(session.installed.values.flatMap { $0.hooks.map(\.point.selector.name) })
    }

    /// The differential test: many formats and arguments (every shared conversion, positional arguments, widths from
    /// arguments, objects and nil, C strings, unichars, long formats and arguments), objects-and-keys lists from 0 to
    /// 70 pairs (nil objects ending them early, duplicate keys, NSNull), and the defaults' setters give the same
    /// text and classes with the trampolines installed as without CrashShield, under either rules, with no report.
    func testValidCallsAreIdenticalWithTheTrampolinesInstalled() throws {
        let baseline = validCalls()
        XCTAssertTrue(baseline.contains("appendFormat.positional=abtwo 7 two three <"), baseline)
        XCTAssertTrue(baseline.contains("stringWithFormat.longFormat=xyxy"), baseline)
        XCTAssertTrue(baseline.contains("seventy={k00=0,k01=1,"), baseline)
        for rules in [FoundationRules.gnustep, .apple] {
            FoundationRules.current = rules
            try withShield { sink in
                let expected: Set<String> =
                    rules == .apple
                    ? Self.variadicSelectors
                    : Self.variadicSelectors.subtracting(["appendFormat:"])
                XCTAssertEqual(try installedSelectors().intersection(Self.variadicSelectors), expected, "\(rules)")
                var guarded = validCalls()
                CrashShield.flush()
                if rules == .apple {
                    // The one known difference: a receiver passed as its own argument. The trampoline formats the
                    // arguments first, then appends (abab+ab); GNUstep's GSMutableString formats into itself while
                    // reading itself (abab+abab+). Apple's behaviour for this aliasing is closed source.
                    XCTAssertTrue(guarded.contains("appendFormat.self=abab+ab <"), guarded)
                    XCTAssertTrue(baseline.contains("appendFormat.self=abab+abab+ <"), baseline)
                    guarded = guarded.replacingOccurrences(
                        of: "appendFormat.self=abab+ab <", with: "appendFormat.self=abab+abab+ <")
                }
                XCTAssertEqual(guarded, baseline, "\(rules): \(firstDifference(guarded, baseline))")
                XCTAssertEqual(sink.reports.map(\.method), [], "\(rules)")
            }
        }
        XCTAssertEqual(validCalls(), baseline, "after stop")
    }

    private func firstDifference(_ a: String, _ b: String) -> String {
        let lines = zip(a.split(separator: "\n"), b.split(separator: "\n"))
        return lines.first { $0 != $1 }.map { "guarded '\($0.prefix(200))' vs '\($1.prefix(200))'" } ?? "lengths differ"
    }

    // MARK: Apple's rules, emulated

    struct AppleRow {
        let scenario: CatalogScenario
        let appleReason: String

        static let all: [AppleRow] = {
            var count: Int32 = 0
            guard let table = css_variadic_apple_rules_scenarios(&count) else { return [] }
            return (0..<count).map { index in
                let raw = table[Int(index)]
                let scenario = CatalogScenario(
                    name: String(cString: raw.name), category: String(cString: raw.category),
                    selector: String(cString: raw.selector), exception: String(cString: raw.exception),
                    expectedResult: String(cString: raw.expectedResult),
                    expectedReports: Int(raw.expectedReports), run: raw.run)
                return AppleRow(
                    scenario: scenario, appleReason: String(cString: css_variadic_apple_rules_reason(index)))
            }
        }()

        /// Apple's reason with Apple's concrete class replaced by the receiver's, except where Apple names a class of
        /// its own (the NSString placeholder behind `+stringWithFormat:`).
        func expectedReason(className: String) -> String {
            guard scenario.selector != "stringWithFormat:", let open = appleReason.firstIndex(of: "["),
                let space = appleReason[open...].firstIndex(of: " ")
            else { return appleReason }
            return appleReason.replacingCharacters(in: appleReason.index(after: open)..<space, with: className)
        }
    }

    /// "Apple would raise X with reason Y; CrashShield stops it and reports exactly that": release mode recovers
    /// with one report carrying Apple's reason; debug mode raises Apple's exception.
    func testAppleRulesStopEachCallWithApplesReason() throws {
        XCTAssertEqual(AppleRow.all.count, 5)
        FoundationRules.current = .apple
        for row in AppleRow.all {
            let scenario = row.scenario
            withShield(Configuration(guards: .all)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, scenario.name)
                CrashShield.flush()
                XCTAssertEqual(sink.reports.count, 1, "\(scenario.name): \(sink.reports.map(\.method))")
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.category.name, scenario.category, scenario.name)
                XCTAssertEqual(report.selector, scenario.selector, scenario.name)
                XCTAssertEqual(report.exceptionName, scenario.exception, scenario.name)
                XCTAssertEqual(report.reason, row.expectedReason(className: report.className), scenario.name)
            }
            withShield(Configuration(guards: .all, mode: .debug)) { sink in
                var raised: (name: String, reason: String)?
                withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
                CrashShield.flush()
                XCTAssertEqual(raised?.name, scenario.exception, scenario.name)
                XCTAssertEqual(
                    raised?.reason, row.expectedReason(className: sink.reports.first?.className ?? "?"), scenario.name)
            }
        }
    }

    /// GNUstep's rules: `appendFormat:nil` appends nothing on GNUstep's mutable strings; it reaches GNUstep unchanged,
    /// with no hook and no report.
    func testGNUstepRulesLeaveAppendFormatNilToGNUstep() throws {
        let row = try XCTUnwrap(AppleRow.all.first { $0.scenario.selector == "appendFormat:" })
        FoundationRules.current = .gnustep
        var baseline = ""
        XCTAssertNil(catchingObjCException { baseline = row.scenario.perform() })
        XCTAssertEqual(baseline, "[ab]")
        try withShield { sink in
            XCTAssertFalse(try installedSelectors().contains("appendFormat:"))
            var guarded = ""
            XCTAssertNil(catchingObjCException { guarded = row.scenario.perform() })
            CrashShield.flush()
            XCTAssertEqual(guarded, baseline)
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
    }

    /// Switching the guards off puts every variadic method's own implementation back.
    func testStopRestoresTheOriginalImplementations() throws {
        FoundationRules.current = .apple
        let classes = ["NSString", "NSDictionary", "NSUserDefaults"].compactMap { ObjCClass(named: $0) }
        let metaclasses = classes.map(\.metaclass)
        let mutable = try XCTUnwrap(ObjCClass(named: "GSMutableString"))
        let selectors: [ObjCSelector] = [
            "stringWithFormat:", "dictionaryWithObjectsAndKeys:", "initWithObjectsAndKeys:",
            "setObject:forKey:",
        ]
        let before =
            implementations(of: selectors, in: classes + metaclasses + [mutable])
            + implementations(of: ["appendFormat:"], in: [mutable])
        withShield { _ in
            let during =
                implementations(of: selectors, in: classes + metaclasses + [mutable])
                + implementations(of: ["appendFormat:"], in: [mutable])
            XCTAssertNotEqual(during, before)
        }
        XCTAssertEqual(
            implementations(of: selectors, in: classes + metaclasses + [mutable])
                + implementations(of: ["appendFormat:"], in: [mutable]), before)
    }
}
