@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The string guard in this process: safe values and one report per bad call (every string class the catalog
/// covers: run-time, constant, mutable, attributed strings and their trackers), debug mode, legal edge cases unchanged,
/// and a clean stop.
final class StringGuardTests: ShieldTestCase {
    private func validCallsText() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_valid_string_calls()) }
        return text
    }

    func testValidCallsGiveIdenticalResultsGuardedAndUnguarded() throws {
        let unguarded = validCallsText()
        XCTAssertTrue(unguarded.contains("mutableAttributedString.mutations="), unguarded)
        try withShield { sink in
            XCTAssertEqual(validCallsText(), unguarded)
            XCTAssertEqual(sink.reports.count, 0, "valid calls must not report: \(sink.reports.map(\.method))")
        }
        XCTAssertEqual(validCallsText(), unguarded)
    }

    /// Indexes and ranges at length, length + 1, 2^32 and above, NSNotFound; nil attribute names, values and
    /// dictionaries: what GNUstep accepts (it truncates attribute indexes to 32 bits; an empty range at a run's start
    /// reaches no attribute dictionary) reaches it unchanged; what it raises for is recovered with the string
    /// untouched and one report naming its exception.
    func testIndexEdgesBehaveAsFoundationWithEveryGuardOn() throws {
        let calls = try assertProbesBehaveAsFoundation(Probe.all("string.", "constantString.", "mutableString.",
                                                                  "attributedString.", "mutableAttributedString."))
        XCTAssertGreaterThan(calls, 380)
    }

    // MARK: Ranges whose end passes 2^64 ({i, UInt.max}, {UInt.max, i}, {2^63 + i, 2^63}; i from 0 past length)

    func testOverflowingRangesSubstringWithRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("string.substringWithRange:", "constantString.substringWithRange:",
                                                      "mutableString.substringWithRange:")
    }

    func testOverflowingRangesReplaceCharactersInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableString.replaceCharactersInRange:withString:",
                                                      "mutableAttributedString.replaceCharactersInRange:withString:")
    }

    func testOverflowingRangesDeleteCharactersInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableString.deleteCharactersInRange:",
                                                      "mutableAttributedString.deleteCharactersInRange:")
    }

    func testOverflowingRangesAttributedSubstringFromRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("attributedString.attributedSubstringFromRange:")
    }

    func testOverflowingRangesReplaceCharactersInRangeWithAttributedString() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.replaceCharactersInRange:withAttributedString:")
    }

    func testOverflowingRangesAddAttribute() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.addAttribute:value:range:")
    }

    /// GNUstep's check wraps: past it, a range that starts inside the run at its location fails in
    /// setAttributes:range:, after GNUstep began editing.
    func testOverflowingRangesAddAttributes() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.addAttributes:range:",
                                                      "plainMutableAttributedString.addAttributes:range:")
    }

    func testOverflowingRangesSetAttributes() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.setAttributes:range:")
    }

    func testOverflowingRangesRemoveAttribute() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.removeAttribute:range:")
    }

    /// The range limit: GNUstep's check wraps (an end past 2^64 passes it), a limit past the end raises.
    func testOverflowingRangesAttributesAtIndexLongestEffectiveRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.attributesAtIndex:longestEffectiveRange:inRange:")
    }

    func testOverflowingRangesAttributeAtIndexLongestEffectiveRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.attribute:atIndex:longestEffectiveRange:inRange:")
    }

    func testEveryStringScenarioRecoversWithOneReport() throws {
        try assertScenariosRecover(CatalogScenario.all(category: "string"), guards: .string)
    }

    func testReasonsNameWhatGNUstepChecks() throws {
        #if !canImport(Darwin)
        let expected = [
            "string.substringFromIndex.pastEnd": "in substringWithRange:, range { 6, 18446744073709551615 } extends beyond size (5)",
            "string.characterAtIndex.constant": "-characterAtIndex: index out of range",
            "mutableString.insertString.pastEnd": "in replaceCharactersInRange:withString:, range { 6, 0 } extends beyond size (5)",
        ]
        for (name, reason) in expected {
            let scenario = try XCTUnwrap(CatalogScenario.named(name))
            try withShield(Configuration(guards: .string)) { sink in
                _ = scenario.perform()
                XCTAssertEqual(sink.reports.first?.reason, reason, name)
            }
        }
        #endif
    }

    /// Also where GNUstep's implementation calls other guarded methods (`substringFromIndex:` calls
    /// `substringWithRange:`, the tracker's edits call the attributed string's): one report, and the failure is loud.
    func testDebugModeReportsThenFailsLikeFoundationForEveryScenario() throws {
        let scenarios = CatalogScenario.all(category: "string").filter { !$0.exception.hasPrefix("SIG") }   // they kill the process
        XCTAssertGreaterThan(scenarios.count, 30)
        for scenario in scenarios {
            try assertDebugModeFailsLikeFoundation(scenario, guards: .string)
        }
    }

    func testDenyListedClassesBehaveAsWithoutCrashShield() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("mutableString.insertString.pastEnd"))
        try withShield(Configuration(guards: .string, excludedClassNames: ["NSMutableString"])) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testStopRestoresEveryOriginalImplementation() throws {
        let strings = try XCTUnwrap(ClassFamily("NSString", "NSMutableString"))
        let attributed = try XCTUnwrap(ClassFamily("NSAttributedString", "NSMutableAttributedString"))
        let selectors: [ObjCSelector] = ["substringWithRange:", "characterAtIndex:", "substringFromIndex:", "insertString:atIndex:",
                                         "deleteCharactersInRange:", "replaceCharactersInRange:withString:", "initWithString:",
                                         "attributesAtIndex:effectiveRange:"]
        let classes = strings.members + attributed.members
        let before = implementations(of: selectors, in: classes)
        try CrashShield.start(Configuration(guards: .string))
        XCTAssertNotEqual(implementations(of: selectors, in: classes), before)
        CrashShield.stop()
        XCTAssertEqual(implementations(of: selectors, in: classes), before, "nothing of CrashShield stays installed after stop")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { selectors.contains($0.point.selector) }.isEmpty)
        // And the original behaviour is back.
        var raised: (name: String, reason: String)?
        withAutoreleasePool { raised = catchingObjCException { _ = CatalogScenario.named("string.substringWithRange.constant")!.run() } }
        XCTAssertEqual(raised?.name, "NSRangeException")
    }

    func testConcurrentReadsStayCorrect() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("string.substringWithRange.pastEnd"))
        try withShield(Configuration(guards: .string)) { sink in
            let wrong = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 {
                    if scenario.perform() != "[]" { wrong.withLock { $0 += 1 } }
                    if validCallsText().isEmpty { wrong.withLock { $0 += 1 } }
                }
            }
            CrashShield.flush()
            XCTAssertEqual(wrong.current, 0)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(sink.reports.first?.occurrences, 400)
        }
    }
}
