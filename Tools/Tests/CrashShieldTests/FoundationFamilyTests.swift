@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The Foundation families beyond the first eleven (issue 24, CSSFoundationScenarios.m): each call stopped with the
/// running Foundation's own exception and reason and a safe result, every valid and invalid edge against Foundation
/// itself (the differential probes), and what Foundation accepts left alone.
final class FoundationFamilyTests: ShieldTestCase {
    /// Each scenario protected: what the caller got, and exactly GNUstep's exception and reason in one report.
    private func assertReports(
        _ expected: [String: (exception: String, reason: String)], selector: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for (name, failure) in expected.sorted(by: { $0.key < $1.key }) {
            let scenario = try XCTUnwrap(CatalogScenario.named(name), name, file: file, line: line)
            withShield(Configuration(guards: .all)) { sink in
                XCTAssertEqual(scenario.perform(), scenario.expectedResult, name, file: file, line: line)
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.exceptionName), [failure.exception], name, file: file, line: line)
                XCTAssertEqual(sink.reports.map(\.reason), [failure.reason], name, file: file, line: line)
                XCTAssertEqual(sink.reports.first?.selector, selector, name, file: file, line: line)
            }
        }
    }

    // MARK: C-string and byte constructors

    /// NULL C strings and NULL bytes of every length and encoding, non-NULL ones of every length, against Foundation.
    func testCStringConstructorsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("stringClass.", "mutableStringClass."))
        XCTAssertGreaterThan(compared, 60)
    }

    func testCStringConstructorReasonsAreGNUsteps() throws {
        #if !canImport(Darwin)
        let invalid = "NSInvalidArgumentException"
        try assertReports(
            [
                "string.stringWithCStringEncoding.null": (
                    invalid, "[NSString+stringWithCString:encoding:]: NULL cString"
                )
            ],
            selector: "stringWithCString:encoding:")
        try assertReports(
            [
                "string.initWithCStringEncoding.null": (invalid, "[NSString-initWithCString:encoding:]: NULL cString"),
                "mutableString.initWithCStringEncoding.null": (
                    invalid, "[NSString-initWithCString:encoding:]: NULL cString"
                ),
            ],
            selector: "initWithCString:encoding:")
        try assertReports(
            [
                "string.initWithBytesLengthEncoding.null": (invalid, "-initWithBytes:lenth:encoding given nul bytes"),
                "mutableString.initWithBytesLengthEncoding.null": (
                    invalid, "-initWithBytes:lenth:encoding given nul bytes"
                ),
                "mutableString.initWithBytesLengthEncoding.nullUnicode":
                    (
                        "SIGSEGV",
                        "-[GSMutableString initWithBytes:length:encoding:] with NULL bytes and length 4: the bytes are read"
                    ),
            ],
            selector: "initWithBytes:length:encoding:")
        #endif
    }

    /// Apple's rules, emulated: CoreFoundation's `NULL cString` for the C-string forms; NULL bytes read (a crash).
    func testCStringConstructorsUnderAppleRules() throws {
        #if !canImport(Darwin)
        try underAppleRules {
            try assertReports(
                [
                    "string.stringWithCStringEncoding.null": (
                        "NSInvalidArgumentException", "*** +[NSString stringWithCString:encoding:]: NULL cString"
                    )
                ],
                selector: "stringWithCString:encoding:")
            try assertReports(
                [
                    "string.initWithCStringEncoding.null": (
                        "NSInvalidArgumentException",
                        "*** -[GSPlaceholderString initWithCString:encoding:]: NULL cString"
                    )
                ],
                selector: "initWithCString:encoding:")
            try assertReports(
                [
                    "string.initWithBytesLengthEncoding.null":
                        (
                            "SIGSEGV",
                            "-[GSPlaceholderString initWithBytes:length:encoding:] with NULL bytes and length 3: the bytes are read"
                        )
                ],
                selector: "initWithBytes:length:encoding:")
        }
        #endif
    }

    // MARK: getCharacters:range:

    /// Every range edge (ends past 2^64 included) on run-time, constant, mutable and non-Latin strings: GNUstep's
    /// range check, and constant strings' own walk (which accepts a wrapped end equal to the length).
    func testGetCharactersRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(
            [
                "string.getCharacters:range:", "constantString.getCharacters:range:",
                "mutableString.getCharacters:range:", "wideString.getCharacters:range:",
                "wideConstantString.getCharacters:range:",
            ],
            selector: "getCharacters:range:")
    }

    func testGetCharactersRangeReasonsAreGNUstepsAndBufferIsUntouched() throws {
        #if !canImport(Darwin)
        let range = "NSRangeException"
        try assertReports(
            [
                "string.getCharactersRange.pastEnd": (
                    range, "in getCharacters:range:, range { 3, 3 } extends beyond size (5)"
                ),
                "constantString.getCharactersRange.notFound":
                    (range, "in getCharacters:range:, range { 9223372036854775807, 0 } extends beyond string"),
                "mutableString.getCharactersRange.wrappingRange":
                    (range, "in getCharacters:range:, range { 2, 18446744073709551615 } extends beyond size (5)"),
            ],
            selector: "getCharacters:range:")
        #endif
    }

    // MARK: Attributed strings

    /// The designated initializer and what funnels into it, with nil and with strings; the mutations GNUstep accepts
    /// with nil (append, insert at i <= length, set) left alone, an insert past the end stopped where it funnels.
    func testAttributedStringsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(
            Probe.all(
                "attributedClass.", "mutableAttributedClass.", "mutableAttributedString.appendAttributedString",
                "mutableAttributedString.insertAttributedString", "mutableAttributedString.setAttributedString"))
        XCTAssertGreaterThan(compared, 50)
    }

    func testAttributedStringReasonsAreGNUsteps() throws {
        #if !canImport(Darwin)
        let nilString = "aString object passed to -[GSAttributedString initWithString:attributes:] is nil"
        try assertReports(
            [
                "attributedString.initWithStringAttributes.nil": ("NSInvalidArgumentException", nilString),
                "mutableAttributedString.initWithAttributedString.nil": ("NSInvalidArgumentException", nilString),
            ],
            selector: "initWithString:attributes:")
        try assertReports(
            [
                "mutableAttributedString.insertAttributedString.pastEnd":
                    (
                        "NSRangeException",
                        "in replaceCharactersInRange:withString:, range { 6, 0 } extends beyond size (5)"
                    )
            ],
            selector: "replaceCharactersInRange:withAttributedString:")
        #endif
    }

    // MARK: Base64 and numbers

    /// Nil, decodable, undecodable and (with the option) ignorable Base64, as strings and data, on both data classes.
    func testBase64InitializersBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("dataClass.", "mutableDataClass."))
        XCTAssertGreaterThan(compared, 30)
    }

    func testBase64ReasonsAreGNUstepsAndTheCallerGetsNil() throws {
        #if !canImport(Darwin)
        // The class GNUstep names is the one `+alloc` hands out: Foundation's own reason, from an unguarded probe.
        func foundationReason(_ probe: String) throws -> String {
            let raised = try XCTUnwrap(Probe.all(probe).first?.run(1)?.raised, probe)
            return String(raised.drop { $0 != ":" }.dropFirst(2))
        }
        let dataClass = try XCTUnwrap(
            foundationReason("dataClass.initWithBase64EncodedString:options:").split(separator: "-").first?.dropFirst())
        let mutableClass = try XCTUnwrap(
            foundationReason("mutableDataClass.initWithBase64EncodedData:options:").split(separator: "-").first?
                .dropFirst())
        try assertReports(
            [
                "data.initWithBase64EncodedString.nil":
                    (
                        "NSInvalidArgumentException",
                        "[\(dataClass)-initWithBase64EncodedString:options:] called with nil string"
                    )
            ],
            selector: "initWithBase64EncodedString:options:")
        try assertReports(
            [
                "mutableData.initWithBase64EncodedData.nil":
                    (
                        "NSInvalidArgumentException",
                        "[\(mutableClass)-initWithBase64EncodedData:options:] called with nil data"
                    )
            ],
            selector: "initWithBase64EncodedData:options:")
        #endif
    }

    // MARK: Keyed archives

    /// `+unarchiveObjectWithData:` of real archives, nil, empty data and data of every other kind against Foundation:
    /// what Foundation raises for is stopped at `initForReadingWithData:` with Foundation's own exception, the rest
    /// answers as without CrashShield.
    func testUnarchivingBehavesAsFoundation() throws {
        let probes = Probe.all("keyedUnarchiverClass.")
        XCTAssertEqual(probes.count, 16)
        let compared = try assertProbesBehaveAsFoundation(probes, selector: "initForReadingWithData:")
        XCTAssertEqual(compared, 16)
        let raising = probes.filter { $0.run(0)?.raised != nil }.map(\.name)
        #if !canImport(Darwin)
        // GNUstep 1.28: text that parses as a string ("hello", "12", "bplist"), an array (text, XML, binary), a
        // keyed archive cut short, and bytes its old serialized format reads past the end of (`getBytes:range:`
        // inside the initializer: not recovered there, or the parser would go on with a buffer it never filled; one
        // report, the initializer's).
        XCTAssertEqual(raising.count, 9, "\(raising)")
        #endif
    }

    /// The report names the app's call, past Foundation's `+unarchiveObjectWithData:`; an excluded class gets
    /// Foundation's own exception and no report.
    /// A read past the end that Foundation's own code makes and relies on (GNUstep's property-list deserializer reads
    /// short data with `getBytes:range:` and lets the exception end the parse): left to Foundation, which raises as
    /// without CrashShield. Recovered, the parser went on with a buffer it never filled and crashed (SIGSEGV).
    func testFoundationsOwnReadsIntoABufferAreLeftToIt() throws {
        let probe = try XCTUnwrap(Probe.all("propertyListSerializationClass.propertyListWithData:").first)
        var raising = 0
        for index in probe.indexes {
            let unguarded = probe.run(index)
            withShield(Configuration(guards: .all)) { sink in
                XCTAssertEqual(probe.run(index), unguarded, "at \(index)")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.method), [], "at \(index)")
            }
            if unguarded?.raised?.contains("getBytes:range:") ?? false { raising += 1 }
        }
        #if !canImport(Darwin)
        XCTAssertGreaterThan(raising, 3)
        #endif
    }

    /// Foundation's parsers (property lists, keyed and old archives, UTF-8 strings, JSON) given 400 short random
    /// byte strings each, with every guard on: each answers or raises exactly as without CrashShield, except that an
    /// unarchiver's initializer that raised answers nil, with one report of the exception it raised. Nothing inside
    /// Foundation's parsing is recovered (a guard that did would let a parser go on with what it made up).
    func testFoundationsParsersGivenRandomBytesBehaveAsFoundation() {
        let seeds: Range<UInt> = 0..<400
        var unguarded: [[String]] = []
        for parser in Int32(0)..<5 {
            unguarded.append(seeds.map { seed in pooledText { css_parse_random_bytes(seed, parser) } })
        }
        var stopped = 0
        withShield(Configuration(guards: .all)) { sink in
            for parser in Int32(0)..<5 {
                for seed in seeds {
                    let expected = unguarded[Int(parser)][Int(seed)]
                    let guarded = pooledText { css_parse_random_bytes(seed, parser) }
                    if parser == 1, expected.hasPrefix("raised "), guarded == "nil" {
                        stopped += 1
                    } else {
                        XCTAssertEqual(guarded, expected, "parser \(parser), seed \(seed)")
                    }
                }
            }
            CrashShield.flush()
            XCTAssertEqual(
                Set(sink.reports.map(\.method)), stopped > 0 ? ["-[NSKeyedUnarchiver initForReadingWithData:]"] : [])
            XCTAssertEqual(sink.reports.map(\.occurrences).reduce(0, +), stopped, "one report for each stopped call")
        }
        #if !canImport(Darwin)
        XCTAssertGreaterThan(stopped, 20)
        #endif
    }

    func testUnarchivingReportsTheAppsCallAndLeavesExcludedClassesAlone() throws {
        #if !canImport(Darwin)
        let scenario = try XCTUnwrap(CatalogScenario.named("keyedUnarchiver.unarchiveObjectWithData.truncatedArchive"))
        var unguarded: (name: String, reason: String)?
        withAutoreleasePool { unguarded = catchingObjCException { _ = scenario.run() } }
        XCTAssertEqual(unguarded?.name, "NSGenericException")
        withShield(Configuration(guards: .container)) { sink in
            withAutoreleasePool { XCTAssertEqual(scenario.perform(), "nil") }
            CrashShield.flush()
            let report = sink.reports.first
            XCTAssertEqual(report?.className, "NSKeyedUnarchiver")
            XCTAssertEqual(report?.reason, unguarded?.reason)
            XCTAssertEqual(report?.action, .recovered)
            let caller = try? XCTUnwrap(report?.callerFrame)
            XCTAssertFalse(caller?.image.contains("gnustep-base") ?? true, "\(String(describing: caller))")
        }
        withShield(Configuration(guards: .container, excludedClassNames: ["NSKeyedUnarchiver"])) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = scenario.run() } }
            XCTAssertEqual(raised?.name, unguarded?.name)
            XCTAssertEqual(raised?.reason, unguarded?.reason)
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.method), [])
        }
        #endif
    }

    /// Apple's rules stop only Apple's data failures (NSInvalidArgumentException, NSArchiverArchiveInconsistency):
    /// GNUstep's NSGenericException for a truncated archive, a name Apple's initializer never raises, goes on.
    func testUnarchivingUnderAppleRulesStopsOnlyApplesDataFailures() throws {
        #if !canImport(Darwin)
        defer { FoundationRules.current = FoundationRules.platform }
        FoundationRules.current = .apple
        let text = try XCTUnwrap(CatalogScenario.named("keyedUnarchiver.unarchiveObjectWithData.text"))
        let truncated = try XCTUnwrap(CatalogScenario.named("keyedUnarchiver.unarchiveObjectWithData.truncatedArchive"))
        withShield(Configuration(guards: .container)) { sink in
            withAutoreleasePool { XCTAssertEqual(text.perform(), "nil") }
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = truncated.run() } }
            XCTAssertEqual(raised?.name, "NSGenericException")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.exceptionName), ["NSInvalidArgumentException"])
        }
        #endif
    }

    /// compare: and isEqualToNumber: with nil and with numbers, on integer, unsigned, floating-point and boolean
    /// numbers; a zero float's isEqualToNumber:nil (GNUstep answers YES, raising nothing) left alone.
    func testNumberComparisonsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(
            Probe.all("intNumber.", "unsignedNumber.", "doubleNumber.", "boolNumber.", "zeroFloatNumber."))
        XCTAssertGreaterThan(compared, 40)
        let zero = try XCTUnwrap(Probe.all("zeroFloatNumber.isEqualToNumber:").first)
        XCTAssertEqual(
            zero.run(1)?.result, "YES", "GNUstep's float isEqualToNumber:nil compares with 0 and raises nothing")
        XCTAssertNil(zero.run(1)?.raised)
    }

    func testNumberReasonsAreGNUsteps() throws {
        #if !canImport(Darwin)
        try assertReports(
            [
                "number.compare.nil": ("NSInvalidArgumentException", "nil argument for compare:"),
                "number.isEqualToNumber.nil": ("NSInvalidArgumentException", "nil argument for compare:"),
            ],
            selector: "compare:")
        #endif
    }

    // MARK: NSMutableArray

    /// Index sets past the end, of other sizes than the objects, nil ones; removeObject:inRange: at every range edge
    /// (GNUstep raises for none: left alone).
    func testMutableArrayIndexSetsAndRangesBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(
            Probe.all("mutableArray.replaceObjectsAtIndexes", "emptyMutableArray.replaceObjectsAtIndexes"),
            selector: "replaceObjectsAtIndexes:withObjects:")
        XCTAssertGreaterThan(compared, 30)
        try assertRangeProbesBehaveAsFoundation(
            ["mutableArray.removeObject:inRange:", "mutableArray.removeObject:nil inRange:"],
            selector: "removeObject:inRange:")
    }

    func testReplaceObjectsAtIndexesReasonIsGNUstepsAndNothingIsReplaced() throws {
        #if !canImport(Darwin)
        try assertReports(
            [
                "mutableArray.replaceObjectsAtIndexes.pastEnd":
                    ("NSRangeException", "Index 5 is out of range 3 (in 'replaceObjectAtIndex:withObject:')")
            ],
            selector: "replaceObjectsAtIndexes:withObjects:")
        #endif
    }

    /// Apple's rules, emulated: a count mismatch and a range past the end of removeObject:inRange: raise there
    /// (GNUstep accepts both), stopped with the receiver untouched; valid calls unchanged.
    func testMutableArrayUnderAppleRules() throws {
        #if !canImport(Darwin)
        try underAppleRules {
            let pair = try XCTUnwrap(Probe.all("mutableArray.replaceObjectsAtIndexes:{0,i} withObjects:(x)").first)
            let remove = try XCTUnwrap(Probe.all("mutableArray.removeObject:inRange:{0,i}").first)
            try withShield(Configuration(guards: .container)) { sink in
                for (probe, index) in [(pair, UInt(1)), (remove, UInt(5))] {
                    let outcome = try XCTUnwrap(probe.run(index))
                    XCTAssertNil(outcome.raised, probe.name)
                    XCTAssertEqual(outcome.after, outcome.before, "\(probe.name): the receiver untouched")
                }
                CrashShield.flush()
                XCTAssertEqual(
                    sink.reports.map(\.selector), ["replaceObjectsAtIndexes:withObjects:", "removeObject:inRange:"])
                XCTAssertEqual(
                    sink.reports.first?.reason,
                    "*** -[GSMutableArray replaceObjectsAtIndexes:withObjects:]: count of array (1) differs from count of index set (2)"
                )
                sink.removeAll()
                // Valid under both rules: {0} with (x), and {0, 3} removing "b".
                for (probe, index) in [(pair, UInt(0)), (remove, UInt(3))] {
                    let outcome = try XCTUnwrap(probe.run(index))
                    XCTAssertNil(outcome.raised, probe.name)
                    XCTAssertNotEqual(outcome.after, outcome.before, "\(probe.name): the valid call made")
                }
                CrashShield.flush()
                XCTAssertEqual(sink.reports.count, 0)
            }
        }
        #endif
    }

    // MARK: NSURL

    /// File URLs from nil, absolute and relative paths; `URLByAppendingPathComponent:nil` (GNUstep answers the URL).
    func testFileURLsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("urlClass."))
        XCTAssertGreaterThan(compared, 20)
    }

    func testFileURLReasonsAreGNUstepsAndTheCallerGetsNil() throws {
        #if !canImport(Darwin)
        try assertReports(
            [
                "url.fileURLWithPath.nil": (
                    "NSInvalidArgumentException", "[NSURL initFileURLWithPath:] nil string parameter"
                )
            ],
            selector: "initFileURLWithPath:")
        try assertReports(
            [
                "url.initFileURLWithPathIsDirectory.nil":
                    ("NSInvalidArgumentException", "[NSURL initFileURLWithPath:isDirectory:] nil string parameter")
            ],
            selector: "initFileURLWithPath:isDirectory:")
        #endif
    }

    // MARK: NSDate

    /// compare: with nil and with dates (GNUstep raises for nil; isEqualToDate:nil answers NO, left alone).
    func testDateComparisonsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("date.", "distantFuture."))
        XCTAssertGreaterThan(compared, 20)
    }

    func testDateCompareReasonIsGNUstepsAndNotHookedUnderAppleRules() throws {
        #if !canImport(Darwin)
        try assertReports(
            [
                "date.compare.nil": ("NSInvalidArgumentException", "nil argument for compare:"),
                "distantPast.compare.nil": ("NSInvalidArgumentException", "nil argument for compare:"),
            ],
            selector: "compare:")
        func dateCompareHooks() throws -> Int {
            let session = try XCTUnwrap(Session.current.load(ordering: .acquiring))
            let date = try XCTUnwrap(ObjCClass(named: "NSDate"))
            return session.installed.values.flatMap(\.hooks).filter {
                $0.point.selector.name == "compare:" && $0.targetClass.isKind(of: date)
            }.count
        }
        try withShield(Configuration(guards: .container)) { _ in XCTAssertGreaterThan(try dateCompareHooks(), 0) }
        try underAppleRules {
            // Apple's NSDate does not raise for compare:nil: nothing to hook.
            try withShield(Configuration(guards: .container)) { _ in XCTAssertEqual(try dateCompareHooks(), 0) }
        }
        #endif
    }

    // MARK: NSUserDefaults values that are not property lists

    /// Property lists (scalars, nested and mutable containers, and the number- and date-keyed dictionaries GNUstep
    /// accepts) stored as without CrashShield; NSNull, URLs and sets, at the top or deep inside, stopped with GNUstep's
    /// exact reason and the key left holding what it held.
    func testUserDefaultsValuesBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("userDefaults."), selector: "setObject:forKey:")
        XCTAssertEqual(compared, 16)
    }

    func testNonPropertyListDefaultsReasonsAreGNUstepsAndTheDefaultsAreUnchanged() throws {
        #if !canImport(Darwin)
        let invalid = "NSInvalidArgumentException"
        try assertReports(
            [
                "userDefaults.setObjectForKey.nullInDictionary":
                    (
                        invalid,
                        "attempt to set non property list object ({a = \"<null>\"; }) for key (CrashShieldPlistKey)"
                    ),
                "userDefaults.setObjectForKey.url":
                    (
                        invalid,
                        "attempt to set non property list object (https://example.com/a) for key (CrashShieldPlistKey)"
                    ),
            ],
            selector: "setObject:forKey:")
        #endif
    }

    /// GNUstep checks the key first: an empty key with a value that is no property list raises GNUstep's bad-key
    /// reason, which CrashShield leaves to it (no report, the same exception).
    func testABadKeyBeforeABadValueIsLeftToGNUstep() throws {
        #if !canImport(Darwin)
        func setNullUnderEmptyKey() -> String {
            var raised = ""
            withAutoreleasePool { raised = String(cString: css_defaults_set_null_under_empty_key()) }
            return raised
        }
        let foundation = setNullUnderEmptyKey()
        XCTAssertEqual(foundation, "NSInvalidArgumentException: attempt to set object with bad key ()")
        withShield(Configuration(guards: .all)) { sink in
            let guarded = setNullUnderEmptyKey()
            CrashShield.flush()
            XCTAssertEqual(guarded, foundation)
            XCTAssertEqual(sink.reports.count, 0)
        }
        #endif
    }

    /// Apple's rules, emulated: only string keys (a number- or date-keyed dictionary is stopped), Apple's reason; the
    /// valid values still stored.
    func testNonPropertyListDefaultsUnderAppleRules() throws {
        #if !canImport(Darwin)
        try underAppleRules {
            // A date key's description depends on the time zone: its reason is checked around it.
            let expected = [
                "NumberKey": "Attempt to insert non-property list object {1 = one; } for key CrashShieldPlistKey",
                "DateKey": "Attempt to insert non-property list object {\"* = v; } for key CrashShieldPlistKey",
                "NullInDictionary":
                    "Attempt to insert non-property list object {a = \"<null>\"; } for key CrashShieldPlistKey",
            ]
            for (name, reason) in expected.sorted(by: { $0.key < $1.key }) {
                let probe = try XCTUnwrap(Probe.all("userDefaults.setObject:\(name) forKey:").first, name)
                try withShield(Configuration(guards: .all)) { sink in
                    let outcome = try XCTUnwrap(probe.run(0))
                    XCTAssertNil(outcome.raised, name)
                    XCTAssertEqual(outcome.result, "kept", "\(name): the defaults unchanged")
                    CrashShield.flush()
                    XCTAssertEqual(sink.reports.count, 1, name)
                    let parts = reason.components(separatedBy: "*")
                    let reported = sink.reports.first?.reason ?? ""
                    XCTAssertTrue(
                        reported.hasPrefix(parts[0]) && reported.hasSuffix(parts.last!), "\(name): \(reported)")
                    if parts.count == 1 { XCTAssertEqual(reported, reason, name) }
                    XCTAssertEqual(sink.reports.first?.exceptionName, "NSInvalidArgumentException", name)
                }
            }
            try withShield(Configuration(guards: .all)) { sink in
                for name in ["String", "Nested", "EmptyDictionary", "Date", "Data"] {
                    let probe = try XCTUnwrap(Probe.all("userDefaults.setObject:\(name) forKey:").first, name)
                    let outcome = try XCTUnwrap(probe.run(0))
                    XCTAssertNil(outcome.raised, name)
                    XCTAssertNotEqual(outcome.result, "kept", "\(name): stored")
                }
                CrashShield.flush()
                XCTAssertEqual(sink.reports.count, 0)
            }
        }
        #endif
    }
}
