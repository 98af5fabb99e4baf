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
        withShield { sink in
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
        let calls = try assertProbesBehaveAsFoundation(
            Probe.all(
                "string.", "constantString.", "mutableString.",
                "attributedString.", "mutableAttributedString."))
        XCTAssertGreaterThan(calls, 380)
    }

    // MARK: Ranges whose end passes 2^64 ({i, UInt.max}, {UInt.max, i}, {2^63 + i, 2^63}; i from 0 past length)

    func testOverflowingRangesSubstringWithRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "string.substringWithRange:", "constantString.substringWithRange:",
            "mutableString.substringWithRange:")
    }

    func testOverflowingRangesReplaceCharactersInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableString.replaceCharactersInRange:withString:",
            "mutableAttributedString.replaceCharactersInRange:withString:")
    }

    func testOverflowingRangesDeleteCharactersInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableString.deleteCharactersInRange:",
            "mutableAttributedString.deleteCharactersInRange:")
    }

    func testOverflowingRangesAttributedSubstringFromRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("attributedString.attributedSubstringFromRange:")
    }

    func testOverflowingRangesReplaceCharactersInRangeWithAttributedString() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableAttributedString.replaceCharactersInRange:withAttributedString:")
    }

    func testOverflowingRangesAddAttribute() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableAttributedString.addAttribute:value:range:")
    }

    /// GNUstep's check wraps: past it, a range that starts inside the run at its location fails in
    /// setAttributes:range:, after GNUstep began editing.
    func testOverflowingRangesAddAttributes() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableAttributedString.addAttributes:range:",
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
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableAttributedString.attributesAtIndex:longestEffectiveRange:inRange:")
    }

    func testOverflowingRangesAttributeAtIndexLongestEffectiveRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "mutableAttributedString.attribute:atIndex:longestEffectiveRange:inRange:")
    }

    // MARK: Searches and comparisons: every range edge ({i, 0}, {i, 1}, {0, i}; ends past 2^64), nil arguments,
    // each kind of implementation (run-time, constant and mutable strings); reports name the funnel the guard hooks

    func testRangeOfStringOptionsRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "string.rangeOfString:options:range:", "mutableString.rangeOfString:options:range:",
                "string.rangeOfString:nil options:range:",
            ], selector: "rangeOfString:options:range:locale:")
    }

    func testRangeOfStringOptionsRangeLocaleBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            ["constantString.rangeOfString:options:range:locale:"], selector: "rangeOfString:options:range:locale:")
    }

    /// GNUstep's string classes check in compare:options:range: (a nil string: "[Class -compare:options:range:] nil
    /// string argument"), also with NSNumericSearch, which they hand to NSString's compare:options:range:locale:.
    func testCompareOptionsRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "string.compare:options:range:", "mutableString.compare:options:range:",
                "string.compare:nil options:range:", "mutableString.compare:options:range:(numeric)",
                "string.compare:nil options:range:(numeric)",
            ], selector: "compare:options:range:")
    }

    /// NSString's own (constant strings): checked in compare:options:range:locale: ("compare with nil").
    func testCompareOptionsRangeLocaleBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "constantString.compare:options:range:", "constantString.compare:nil options:range:",
                "string.compare:options:range:locale:",
            ], selector: "compare:options:range:locale:")
    }

    /// A nil set: GSString.m's implementations raise; the constant string's reads no character of an empty range.
    func testRangeOfCharacterFromSetBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "string.rangeOfCharacterFromSet:options:range:",
                "constantString.rangeOfCharacterFromSet:options:range:",
                "mutableString.rangeOfCharacterFromSet:options:range:",
                "string.rangeOfCharacterFromSet:nil options:range:",
                "constantString.rangeOfCharacterFromSet:nil options:range:",
            ],
            selector: "rangeOfCharacterFromSet:options:range:")
    }

    func testLineRangeForRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            ["string.lineRangeForRange:", "string.getLineStart:end:contentsEnd:forRange:"],
            selector: "getLineStart:end:contentsEnd:forRange:")
    }

    func testParagraphRangeForRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            ["string.paragraphRangeForRange:", "constantString.getParagraphStart:end:contentsEnd:forRange:"],
            selector: "getParagraphStart:end:contentsEnd:forRange:")
    }

    /// The replacing family funnels into NSMutableString's `replaceOccurrencesOfString:withString:options:range:`
    /// (`stringByReplacingOccurrencesOfString:...` on a mutable copy): a nil target or replacement and a range past
    /// the end (NSMaxRange, wrapping as GNUstep computes it) raise there; every other edge reaches Foundation.
    func testReplaceOccurrencesBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "mutableString.replaceOccurrencesOfString:withString:options:range:",
                "mutableString.replaceOccurrencesOfString:nil withString:options:range:",
                "mutableString.replaceOccurrencesOfString:withString:nil options:range:",
                "string.stringByReplacingOccurrencesOfString:withString:options:range:",
                "constantString.stringByReplacingOccurrencesOfString:withString:options:range:",
            ],
            selector: "replaceOccurrencesOfString:withString:options:range:")
    }

    /// GNUstep's texts, the receiver untouched and 0 replacements; the copy a `stringByReplacing...` answers unchanged.
    func testReplaceOccurrencesReasonsAreGNUstepsAndReceiverIsUntouched() throws {
        #if !canImport(Darwin)
        let selector = "replaceOccurrencesOfString:withString:options:range:"
        let expected = [
            "string.stringByReplacingOccurrences.nilTarget": "\(selector) bad search string",
            "constantString.stringByReplacingOccurrences.nilReplacement": "\(selector) bad replace string",
            "string.stringByReplacingOccurrencesOptionsRange.pastEnd": "\(selector) bad search range",
            "mutableString.replaceOccurrences.pastEnd": "\(selector) bad search range",
            "mutableString.replaceOccurrences.nil": "\(selector) bad search string",
        ]
        for (name, reason) in expected {
            let scenario = try XCTUnwrap(CatalogScenario.named(name))
            withShield(Configuration(guards: .string)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, name)
                XCTAssertEqual(sink.reports.map(\.reason), [reason], name)
                XCTAssertEqual(sink.reports.map(\.exceptionName), ["NSInvalidArgumentException"], name)
                XCTAssertEqual(sink.reports.first?.selector, selector, name)
            }
        }
        try underAppleRules {
            let scenario = try XCTUnwrap(CatalogScenario.named("mutableString.replaceOccurrences.nil"))
            withShield(Configuration(guards: .string)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult)
                XCTAssertEqual(sink.reports.map(\.reason), ["*** -[GSMutableString \(selector)]: nil argument"])
            }
        }
        #endif
    }

    /// Apple's rules on the same calls (range reasons are worded per platform at compile time): a nil search string
    /// and a nil set raise Apple's invalid-argument exception (documented; texts unverified here), a nil string
    /// compared does not (Apple documents it as undefined behaviour): that call reaches GNUstep, which raises.
    func testSearchesWithNilArgumentsUnderAppleRules() throws {
        #if !canImport(Darwin)
        let expected = [
            "mutableString.rangeOfStringOptionsRange.nil":
                "*** -[GSMutableString rangeOfString:options:range:locale:]: nil argument",
            "constantString.rangeOfStringOptions.nil":
                "*** -[NSConstantString rangeOfString:options:range:locale:]: nil argument",
            "string.rangeOfCharacterFromSet.nilSet":
                "*** -[GSCInlineString rangeOfCharacterFromSet:options:range:]: nil argument",
            "constantString.rangeOfCharacterFromSet.nilSet":
                "*** -[NSConstantString rangeOfCharacterFromSet:options:range:]: nil argument",
        ]
        try underAppleRules {
            for (name, reason) in expected {
                let scenario = try XCTUnwrap(CatalogScenario.named(name))
                withShield(Configuration(guards: .string)) { sink in
                    XCTAssertEqual(scenario.perform(), scenario.expectedResult, name)
                    XCTAssertEqual(sink.reports.map(\.reason), [reason], name)
                    XCTAssertEqual(sink.reports.first?.exceptionName, "NSInvalidArgumentException", name)
                }
            }
            for name in ["string.compare.nil", "constantString.compare.nil"] {
                let scenario = try XCTUnwrap(CatalogScenario.named(name))
                withShield(Configuration(guards: .string)) { sink in
                    var raised: (name: String, reason: String)?
                    withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
                    XCTAssertEqual(
                        raised?.name, "NSInvalidArgumentException", "\(name): reaches GNUstep under Apple's rules")
                    XCTAssertTrue(sink.reports.isEmpty, name)
                }
            }
        }
        #endif
    }

    func testEveryStringScenarioRecoversWithOneReport() throws {
        try assertScenariosRecover(CatalogScenario.all(category: "string"), guards: .string)
    }

    func testReasonsNameWhatGNUstepChecks() throws {
        #if !canImport(Darwin)
        let expected = [
            "string.substringFromIndex.pastEnd":
                "in substringWithRange:, range { 6, 18446744073709551615 } extends beyond size (5)",
            "string.characterAtIndex.constant": "-characterAtIndex: index out of range",
            "mutableString.insertString.pastEnd":
                "in replaceCharactersInRange:withString:, range { 6, 0 } extends beyond size (5)",
        ]
        for (name, reason) in expected {
            let scenario = try XCTUnwrap(CatalogScenario.named(name))
            withShield(Configuration(guards: .string)) { sink in
                _ = scenario.perform()
                XCTAssertEqual(sink.reports.first?.reason, reason, name)
            }
        }
        #endif
    }

    /// Also where GNUstep's implementation calls other guarded methods (`substringFromIndex:` calls
    /// `substringWithRange:`, the tracker's edits call the attributed string's): one report, and the failure is loud.
    func testDebugModeReportsThenFailsLikeFoundationForEveryScenario() throws {
        let scenarios = CatalogScenario.all(category: "string").filter { !$0.exception.hasPrefix("SIG") }  // they kill the process
        XCTAssertGreaterThan(scenarios.count, 30)
        for scenario in scenarios {
            try assertDebugModeFailsLikeFoundation(scenario, guards: .string)
        }
    }

    func testDenyListedClassesBehaveAsWithoutCrashShield() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("mutableString.insertString.pastEnd"))
        withShield(Configuration(guards: .string, excludedClassNames: ["NSMutableString"])) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testStopRestoresEveryOriginalImplementation() throws {
        let strings = try XCTUnwrap(ClassFamily("NSString", "NSMutableString"))
        let attributed = try XCTUnwrap(ClassFamily("NSAttributedString", "NSMutableAttributedString"))
        let selectors: [ObjCSelector] = [
            "substringWithRange:", "characterAtIndex:", "substringFromIndex:", "insertString:atIndex:",
            "deleteCharactersInRange:", "replaceCharactersInRange:withString:", "initWithString:",
            "attributesAtIndex:effectiveRange:",
        ]
        let classes = strings.members + attributed.members
        let before = implementations(of: selectors, in: classes)
        try CrashShield.start(Configuration(guards: .string))
        XCTAssertNotEqual(implementations(of: selectors, in: classes), before)
        CrashShield.stop()
        XCTAssertEqual(
            implementations(of: selectors, in: classes), before, "nothing of CrashShield stays installed after stop")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { selectors.contains($0.point.selector) }.isEmpty)
        // And the original behaviour is back.
        var raised: (name: String, reason: String)?
        withAutoreleasePool {
            raised = catchingObjCException { _ = CatalogScenario.named("string.substringWithRange.constant")!.run() }
        }
        XCTAssertEqual(raised?.name, "NSRangeException")
    }

    func testConcurrentReadsStayCorrect() throws {
        let scenario = try XCTUnwrap(CatalogScenario.named("string.substringWithRange.pastEnd"))
        withShield(Configuration(guards: .string)) { sink in
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
