@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The calls only Apple's Foundation raises for (CSSAppleScenarios.m), proven on GNUstep with Apple's rules emulated
/// (`FoundationRules.current = .apple`): "Apple would raise X with reason Y; CrashShield stops it and reports exactly
/// that". With GNUstep's rules the same calls reach GNUstep unchanged and nothing extra is installed.
final class AppleRulesTests: XCTestCase {
    /// One Apple-only catalog row and Apple's reason for it.
    struct AppleCase {
        let name, category, selector, exception, expectedResult, appleReason: String
        let run: @convention(c) () -> UnsafePointer<CChar>?

        static let all: [AppleCase] = {
            var count: Int32 = 0
            guard let table = css_apple_only_scenarios(&count) else { return [] }
            return (0..<count).map { index in
                let raw = table[Int(index)]
                return AppleCase(
                    name: String(cString: raw.name), category: String(cString: raw.category),
                    selector: String(cString: raw.selector), exception: String(cString: raw.exception),
                    expectedResult: String(cString: raw.expectedResult),
                    appleReason: String(cString: css_apple_only_reason(index)), run: raw.run)
            }
        }()

        func perform() -> String { pooledText { run() } }

        /// Apple's reason with Apple's concrete class replaced by the receiver's (`*** -[__NSDictionaryM m]: ...`).
        /// An attributed string's storage (NSBigMutableString) raises for it: Apple names the storage, whatever the
        /// receiver.
        func expectedReason(className: String) -> String {
            guard let open = appleReason.firstIndex(of: "["), let space = appleReason[open...].firstIndex(of: " "),
                appleReason[appleReason.index(after: open)..<space] != "NSBigMutableString"
            else { return appleReason }
            return appleReason.replacingCharacters(in: appleReason.index(after: open)..<space, with: className)
        }
    }

    /// The selectors only Apple's rules hook (NSCache's: "NSCache" and the selector, since dictionaries hook
    /// `setObject:forKey:` under both rules).
    static let appleOnlySelectors: Set<String> = [
        "removeObjectForKey:", "removeObject:", "appendString:",
        "stringByAppendingString:", "NSCache setObject:forKey:cost:",
        "NSCache setObject:forKey:", "JSONObjectWithData:options:error:",
        "dataWithJSONObject:options:error:", "URLByAppendingPathComponent:",
        "URLByAppendingPathComponent:isDirectory:", "initWithString:relativeToURL:", "moveItemAtPath:toPath:error:",
        "copyItemAtPath:toPath:error:", "moveItemAtURL:toURL:error:", "copyItemAtURL:toURL:error:",
        "enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:",
        "enumerateMatchesInString:options:range:usingBlock:",
        "stringByReplacingMatchesInString:options:range:withTemplate:",
        "replaceMatchesInString:options:range:withTemplate:",
        "stringByReplacingCharactersInRange:withString:", "appendAttributedString:", "insertAttributedString:atIndex:",
        "setAttributedString:",
    ]

    override func tearDown() {
        FoundationRules.current = FoundationRules.platform
        super.tearDown()
    }

    func testTheCatalogHasEveryAppleOnlyCall() {
        XCTAssertEqual(
            Set(AppleCase.all.map(\.selector)),
            [
                "removeObjectForKey:", "removeObject:", "appendString:", "stringByAppendingString:",
                "setObject:forKey:cost:", "setObject:forKey:", "setObject:forKeyedSubscript:",
                "JSONObjectWithData:options:error:", "dataWithJSONObject:options:error:",
                "URLByAppendingPathComponent:", "URLByAppendingPathComponent:isDirectory:",
                "initWithString:relativeToURL:", "moveItemAtPath:toPath:error:", "copyItemAtPath:toPath:error:",
                "moveItemAtURL:toURL:error:", "copyItemAtURL:toURL:error:",
                "enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:",
                "enumerateMatchesInString:options:range:usingBlock:",
                "stringByReplacingMatchesInString:options:range:withTemplate:",
                "replaceMatchesInString:options:range:withTemplate:",
                "replaceCharactersInRange:withString:", "insertString:atIndex:",
                "stringByReplacingCharactersInRange:withString:", "replaceCharactersInRange:withAttributedString:",
                "appendAttributedString:", "insertAttributedString:atIndex:", "setAttributedString:",
            ])
    }

    /// Release mode: the call is stopped, the caller gets the receiver untouched, one report names Apple's exception
    /// and reason.
    func testAppleRulesStopEachCallAndReportApplesException() throws {
        FoundationRules.current = .apple
        for apple in AppleCase.all {
            withShield(Configuration(guards: .all)) { sink in
                let result = apple.perform()
                CrashShield.flush()
                XCTAssertEqual(result, apple.expectedResult, "\(apple.name): what the caller got")
                XCTAssertEqual(sink.reports.count, 1, "\(apple.name): \(sink.reports.map(\.method))")
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.category.name, apple.category, apple.name)
                XCTAssertEqual(report.selector, apple.selector, apple.name)
                XCTAssertEqual(report.exceptionName, apple.exception, apple.name)
                XCTAssertEqual(report.reason, apple.expectedReason(className: report.className), apple.name)
            }
        }
    }

    /// Debug mode, the app's own call: Apple's exception, with Apple's reason, raised at the call.
    func testAppleRulesInDebugModeRaiseApplesException() throws {
        FoundationRules.current = .apple
        for apple in AppleCase.all {
            withShield(Configuration(guards: .all, mode: .debug)) { sink in
                let raised = catchingObjCException { _ = apple.perform() }
                CrashShield.flush()
                XCTAssertEqual(raised?.name, apple.exception, apple.name)
                let className = sink.reports.first?.className ?? "?"
                XCTAssertEqual(raised?.reason, apple.expectedReason(className: className), apple.name)
            }
        }
    }

    /// GNUstep's rules: each call behaves exactly as without CrashShield (same result and receiver, nothing raised,
    /// no report), and no hook for an Apple-only precondition is installed.
    func testGNUstepRulesLeaveTheCallsToGNUstep() throws {
        FoundationRules.current = .gnustep
        for apple in AppleCase.all {
            var unguarded: (name: String, reason: String)?
            var baseline = ""
            unguarded = catchingObjCException { baseline = apple.perform() }
            XCTAssertNil(unguarded, "\(apple.name): GNUstep raises: not an Apple-only call")
            withShield(Configuration(guards: .all)) { sink in
                var guarded = ""
                XCTAssertNil(catchingObjCException { guarded = apple.perform() }, apple.name)
                CrashShield.flush()
                XCTAssertEqual(guarded, baseline, "\(apple.name): the call changed under GNUstep's rules")
                XCTAssertEqual(sink.reports.map(\.method), [], apple.name)
            }
        }
    }

    func testAppleOnlyHooksAreInstalledOnlyUnderAppleRules() throws {
        for rules in [FoundationRules.gnustep, .apple] {
            FoundationRules.current = rules
            try withShield(Configuration(guards: .all)) { _ in
                let session = try XCTUnwrap(Session.current.load(ordering: .acquiring))
                let hooked = Set(
                    session.installed.values.flatMap {
                        $0.hooks.map { hook in
                            hook.targetClass.name == "NSCache"
                                ? "NSCache \(hook.point.selector.name)" : hook.point.selector.name
                        }
                    })
                let appleOnly = hooked.intersection(Self.appleOnlySelectors)
                XCTAssertEqual(appleOnly, rules == .apple ? Self.appleOnlySelectors : [], "\(rules)")
            }
        }
    }

    /// A nil format raises on both Foundations: the catalog's GNUstep rows (checked by the crash matrix) report
    /// GNUstep's "NULL format"; under Apple's rules the same calls report Apple's "nil argument".
    func testNilFormatReportsTheRulesReason() throws {
        let names = [
            "string.initWithFormat.nil", "mutableString.stringWithFormat.nil", "string.stringByAppendingFormat.nil",
        ]
        for rules in [FoundationRules.gnustep, .apple] {
            FoundationRules.current = rules
            for name in names {
                guard let report = try onlyReport(ofScenario: name) else { continue }
                XCTAssertEqual(report.selector, "initWithFormat:locale:arguments:", name)
                XCTAssertEqual(
                    report.reason,
                    rules == .apple
                        ? "*** -[\(report.className) initWithFormat:locale:arguments:]: nil argument"
                        : "[\(report.className)-initWithFormat:locale:arguments:]: NULL format", name)
            }
        }
    }

    /// `[cache setObject:nil forKey:nil]`: Apple's NSCache returns for a nil key before it looks at the object
    /// (jasenhuang/NSObjectSafe#29), so under Apple's rules neither hook stops it: no report, and the call reaches
    /// Foundation as without CrashShield (GNUstep's own raises here).
    func testCacheNilObjectForNilKeyIsLeftToFoundation() throws {
        for withCost in [false, true] {
            FoundationRules.current = .gnustep
            let unguarded = catchingObjCException {
                withAutoreleasePool { css_cache_set_nil_object_for_nil_key(withCost) }
            }
            FoundationRules.current = .apple
            withShield(Configuration(guards: .all)) { sink in
                let raised = catchingObjCException {
                    withAutoreleasePool { css_cache_set_nil_object_for_nil_key(withCost) }
                }
                CrashShield.flush()
                XCTAssertEqual(raised?.name, unguarded?.name, "cost: \(withCost)")
                XCTAssertEqual(raised?.reason, unguarded?.reason, "cost: \(withCost)")
                XCTAssertEqual(sink.reports.map(\.method), [], "cost: \(withCost)")
            }
        }
    }

    /// Calls both Foundations raise for, reported with Apple's text under Apple's rules (Docs/AppleRuntime.md §13:
    /// each text and the public crash log it was checked against). `cls`: the report's class.
    static let applesTexts: [(scenario: String, reason: (String) -> String)] = [
        ("string.rangeOfString.nil", { "*** -[\($0) rangeOfString:options:range:locale:]: nil argument" }),
        ("string.hasPrefix.nil", { "-[\($0) hasPrefix:]: nil argument" }),
        ("string.hasSuffix.nil", { "-[\($0) hasSuffix:]: nil argument" }),
        ("string.stringWithString.nil", { _ in "*** -[NSPlaceholderString initWithString:]: nil argument" }),
        (
            "mutableString.stringWithString.nil",
            { _ in "*** -[NSPlaceholderMutableString initWithString:]: nil argument" }
        ),
        ("string.initWithString.nil", { "*** -[\($0) initWithString:]: nil argument" }),
        ("string.stringWithUTF8String.null", { "*** +[\($0) stringWithUTF8String:]: NULL cString" }),
        ("string.initWithUTF8String.null", { "*** -[\($0) initWithUTF8String:]: NULL cString" }),
        ("mutableString.initWithUTF8String.null", { "*** -[\($0) initWithUTF8String:]: NULL cString" }),
        ("mutableString.insertString.pastEnd", { "-[\($0) insertString:atIndex:]: Range or index out of bounds" }),
        (
            "mutableString.deleteCharactersInRange.pastEnd",
            { "-[\($0) deleteCharactersInRange:]: Range or index out of bounds" }
        ),
        ("attributedString.initWithString.nil", { "\($0) initWithString:: nil value" }),
        ("mutableAttributedString.addAttribute.nilValue", { "\($0) addAttribute:value:range:: nil value" }),
    ]

    func testCallsBothFoundationsRaiseForReportApplesTextUnderAppleRules() throws {
        FoundationRules.current = .apple
        for (name, reason) in Self.applesTexts {
            guard let report = try onlyReport(ofScenario: name) else { continue }
            XCTAssertEqual(report.reason, reason(report.className), name)
        }
    }

    /// Apple's empty immutable array words its index failure "for empty NSArray" (zingdom/zing-bright#27); the
    /// mutable and the other immutable ones "for empty array" (dennisreimann/ioctocat#206, uservoice#141).
    func testApplesIndexTextNamesTheEmptyImmutableArray() {
        FoundationRules.current = .apple
        let empty = Violation.index(0, count: 0, method: "objectAtIndex:")
        XCTAssertEqual(
            empty.reason("__NSArray0"), "*** -[__NSArray0 objectAtIndex:]: index 0 beyond bounds for empty NSArray")
        XCTAssertEqual(
            empty.reason("__NSArrayM"), "*** -[__NSArrayM objectAtIndex:]: index 0 beyond bounds for empty array")
        XCTAssertEqual(
            Violation.index(3, count: 3, method: "objectAtIndex:").reason("__NSArrayI"),
            "*** -[__NSArrayI objectAtIndex:]: index 3 beyond bounds [0 .. 2]")
        FoundationRules.current = .gnustep
        XCTAssertEqual(empty.reason("GSArray"), "Index 0 is out of range 0 (in 'objectAtIndex:')")
    }

    /// Valid calls of the Apple-only hooks behave as without CrashShield under Apple's rules. (The GNUstep lists of
    /// valid calls hold `removeObjectForKey:nil`, `appendString:nil`...: Apple's rules rightly report those.)
    func testValidCallsUnderAppleRulesAreUnchanged() throws {
        FoundationRules.current = .apple
        func validCalls() -> String {
            var text = ""
            withAutoreleasePool {
                text = String(cString: css_valid_apple_only_calls())
            }
            return text
        }
        let baseline = validCalls()
        XCTAssertTrue(baseline.contains("format=5-x-y z 3 ab7!"), baseline)
        XCTAssertTrue(baseline.contains("files=1111 0 missingError=yes entries=3 exist=1101"), baseline)
        XCTAssertTrue(baseline.contains("regex=2 3 0 {3,2} ab [ab] [cd] [ef] 3 <ab> <cd> <ef> 0"), baseline)
        XCTAssertTrue(baseline.contains("replace=xybc replacing=xzc,ab\nattributed=dcbc,c\n"), baseline)
        withShield(Configuration(guards: .all)) { sink in
            let guarded = validCalls()
            CrashShield.flush()
            XCTAssertEqual(guarded, baseline)
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
    }

    /// `removeLastObject` on an empty array is a no-op on Apple's Foundation (GNUstep 1.28 raises): under Apple's
    /// rules the guard installs nothing for it, so the call reaches Foundation unchanged in release and debug mode:
    /// no report, and no exception of CrashShield's (on GNUstep, Foundation's own exception is what it raises
    /// without CrashShield).
    func testRemoveLastObjectOfAnEmptyArrayIsLeftToFoundationUnderAppleRules() throws {
        let scenario = try XCTUnwrap(scenario(named: "mutableArray.removeLastObject.empty"))
        func perform() -> (name: String, reason: String)? {
            catchingObjCException { withAutoreleasePool { _ = scenario.run() } }
        }
        let unguarded = perform()
        FoundationRules.current = .apple
        for mode in [GuardMode.release, .debug] {
            try withShield(Configuration(guards: .all, mode: mode)) { sink in
                let session = try XCTUnwrap(Session.current.load(ordering: .acquiring))
                let hooked = Set(session.installed.values.flatMap { $0.hooks.map(\.point.selector.name) })
                XCTAssertFalse(hooked.contains("removeLastObject"), "\(mode)")
                let raised = perform()
                CrashShield.flush()
                XCTAssertEqual(raised?.name, unguarded?.name, "\(mode)")
                XCTAssertEqual(
                    raised?.reason, unguarded?.reason,
                    "\(mode): CrashShield raised Apple's text for a call Apple accepts")
                XCTAssertEqual(sink.reports.map(\.method), [], "\(mode)")
            }
        }
    }

    /// A call both Foundations take a guard for, whose guard takes Apple's branch under Apple's rules: the guards choose
    /// between the two Foundations at run time (`FoundationRules`), so Apple's branch runs here too.
    struct AppleBranch {
        let name: String
        let run: @convention(c) () -> UnsafePointer<CChar>?
        /// What the caller gets under Apple's rules (the guard's recovery).
        let appleResult: String
        let selector, exception: String
        let reason: (String) -> String
        /// Whether GNUstep takes the call without raising (it raises its own exception for a nil KVC key).
        var gnustepTakesIt = true
    }

    static let appleBranches: [AppleBranch] = [
        // OrderedSetHooks.indexFits: GNUstep's GSIArray cuts the index to 32 bits (o[2^32] is o[0]); Apple's does not.
        AppleBranch(
            name: "orderedSet objectAtIndex:2^32", run: css_ordered_set_read_at_2_32, appleResult: "nil",
            selector: "objectAtIndex:", exception: "NSRangeException",
            reason: { "*** -[\($0) objectAtIndex:]: index 4294967296 beyond bounds [0 .. 0]" }),
        // OrderedSetHooks.insertObjectAtIndex: GNUstep appends for an index past count; Apple raises.
        AppleBranch(
            name: "mutableOrderedSet insertObject:atIndex:5", run: css_ordered_set_insert_past_count,
            appleResult: "(a,b)", selector: "insertObject:atIndex:", exception: "NSRangeException",
            reason: { "*** -[\($0) insertObject:atIndex:]: index 5 beyond bounds [0 .. 1]" }),
        // SetHooks.install: GNUstep's mutable sets drop nils (installed on immutable sets only); Apple's raise.
        AppleBranch(
            name: "NSMutableSet setWithObjects:{a,nil,b}", run: css_mutable_set_with_nil, appleResult: "{a,b}",
            selector: "initWithObjects:count:", exception: "NSInvalidArgumentException",
            reason: { "*** -[\($0) initWithObjects:count:]: attempt to insert nil object from objects[1]" }),
        // KVCGuard.install: Apple raises in setValue:forKey: itself for a nil key; GNUstep goes on to
        // setValue:forUndefinedKey: (reported there, with its own exception).
        AppleBranch(
            name: "NSObject setValue:forKey:nil", run: css_set_value_for_nil_key, appleResult: "set",
            selector: "setValue:forKey:", exception: "NSInvalidArgumentException",
            reason: { "*** -[\($0) setValue:forKey:]: attempt to set a value for a nil key" }, gnustepTakesIt: false),
        // AttributedStringHooks.attributeIndexFits: GNUstep answers up to the length; Apple below it.
        AppleBranch(
            name: "attributedString attributesAtIndex:length", run: css_attributes_at_length,
            appleResult: "attributes {\(Int.max),0}", selector: "attributesAtIndex:effectiveRange:",
            exception: "NSRangeException",
            reason: { _ in "NSMutableRLEArray objectAtIndex:effectiveRange:: Out of bounds" }
        ),
    ]

    /// Apple's rules: each call is stopped with Apple's exception and reason, and the caller gets the recovery.
    /// GNUstep's rules: the same guards leave it to GNUstep (no report of Apple's failure; where GNUstep takes the call,
    /// the same result as without CrashShield).
    func testAppleBranchesRunUnderAppleRules() throws {
        for branch in Self.appleBranches {
            FoundationRules.current = .gnustep
            var unguarded = ""
            let raised = catchingObjCException { unguarded = pooledText(branch.run) }
            if branch.gnustepTakesIt { XCTAssertNil(raised, branch.name) }
            withShield(Configuration(guards: .all)) { sink in
                var guarded = ""
                _ = catchingObjCException { guarded = pooledText(branch.run) }
                CrashShield.flush()
                if branch.gnustepTakesIt {
                    XCTAssertEqual(guarded, unguarded, "\(branch.name): GNUstep's rules changed the call")
                    XCTAssertEqual(sink.reports.map(\.method), [], branch.name)
                }
                XCTAssertFalse(sink.reports.contains { $0.selector == branch.selector }, branch.name)
            }
            FoundationRules.current = .apple
            withShield(Configuration(guards: .all)) { sink in
                var result = ""
                XCTAssertNil(catchingObjCException { result = pooledText(branch.run) }, branch.name)
                CrashShield.flush()
                XCTAssertEqual(result, branch.appleResult, "\(branch.name): what the caller got")
                XCTAssertEqual(sink.reports.count, 1, "\(branch.name): \(sink.reports.map(\.method))")
                guard let report = sink.reports.first else { return }
                XCTAssertEqual(report.selector, branch.selector, branch.name)
                XCTAssertEqual(report.exceptionName, branch.exception, branch.name)
                XCTAssertEqual(report.reason, branch.reason(report.className), branch.name)
            }
        }
    }

    /// Runs the catalog scenario `name` with every guard on: the caller gets the catalog's result and there is exactly
    /// one report, returned.
    private func onlyReport(ofScenario name: String) throws -> CrashReport? {
        let scenario = try XCTUnwrap(scenario(named: name), name)
        var report: CrashReport?
        withShield(Configuration(guards: .all)) { sink in
            let text = pooledText { scenario.run() }
            CrashShield.flush()
            XCTAssertEqual(text, String(cString: scenario.expectedResult), name)
            XCTAssertEqual(sink.reports.count, 1, name)
            report = sink.reports.first
        }
        return report
    }

    private func scenario(named name: String) -> CSSScenario? {
        var count: Int32 = 0
        guard let table = css_scenarios(&count) else { return nil }
        return (0..<Int(count)).map { table[$0] }.first { String(cString: $0.name) == name }
    }
}
