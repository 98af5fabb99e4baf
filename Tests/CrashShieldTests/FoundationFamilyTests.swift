@testable import CrashShield
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The Foundation families beyond the first eleven (issue 24, CSSFoundationScenarios.m): each call stopped with the
/// running Foundation's own exception and reason and a safe result, every valid and invalid edge against Foundation
/// itself (the differential probes), and what Foundation accepts left alone.
final class FoundationFamilyTests: ShieldTestCase {
    /// Each scenario protected: what the caller got, and exactly GNUstep's exception and reason in one report.
    private func assertReports(_ expected: [String: (exception: String, reason: String)], selector: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        for (name, failure) in expected.sorted(by: { $0.key < $1.key }) {
            let scenario = try XCTUnwrap(CatalogScenario.named(name), name, file: file, line: line)
            try withShield(Configuration(guards: .all)) { sink in
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
        try assertReports(["string.stringWithCStringEncoding.null": (invalid, "[NSString+stringWithCString:encoding:]: NULL cString")],
                          selector: "stringWithCString:encoding:")
        try assertReports(["string.initWithCStringEncoding.null": (invalid, "[NSString-initWithCString:encoding:]: NULL cString"),
                           "mutableString.initWithCStringEncoding.null": (invalid, "[NSString-initWithCString:encoding:]: NULL cString")],
                          selector: "initWithCString:encoding:")
        try assertReports(["string.initWithBytesLengthEncoding.null": (invalid, "-initWithBytes:lenth:encoding given nul bytes"),
                           "mutableString.initWithBytesLengthEncoding.null": (invalid, "-initWithBytes:lenth:encoding given nul bytes"),
                           "mutableString.initWithBytesLengthEncoding.nullUnicode":
                               ("SIGSEGV", "-[GSMutableString initWithBytes:length:encoding:] with NULL bytes and length 4: the bytes are read")],
                          selector: "initWithBytes:length:encoding:")
        #endif
    }

    /// Apple's rules, emulated: CoreFoundation's `NULL cString` for the C-string forms; NULL bytes read (a crash).
    func testCStringConstructorsUnderAppleRules() throws {
        #if !canImport(Darwin)
        try underAppleRules {
            try assertReports(["string.stringWithCStringEncoding.null": ("NSInvalidArgumentException", "*** +[NSString stringWithCString:encoding:]: NULL cString")],
                              selector: "stringWithCString:encoding:")
            try assertReports(["string.initWithCStringEncoding.null": ("NSInvalidArgumentException", "*** -[GSPlaceholderString initWithCString:encoding:]: NULL cString")],
                              selector: "initWithCString:encoding:")
            try assertReports(["string.initWithBytesLengthEncoding.null":
                                   ("SIGSEGV", "-[GSPlaceholderString initWithBytes:length:encoding:] with NULL bytes and length 3: the bytes are read")],
                              selector: "initWithBytes:length:encoding:")
        }
        #endif
    }

    // MARK: getCharacters:range:

    /// Every range edge (ends past 2^64 included) on run-time, constant, mutable and non-Latin strings: GNUstep's
    /// range check, and constant strings' own walk (which accepts a wrapped end equal to the length).
    func testGetCharactersRangeBehavesAsFoundation() throws {
        try assertRangeProbesBehaveAsFoundation(["string.getCharacters:range:", "constantString.getCharacters:range:",
                                                 "mutableString.getCharacters:range:", "wideString.getCharacters:range:"],
                                                selector: "getCharacters:range:")
    }

    func testGetCharactersRangeReasonsAreGNUstepsAndBufferIsUntouched() throws {
        #if !canImport(Darwin)
        let range = "NSRangeException"
        try assertReports(["string.getCharactersRange.pastEnd": (range, "in getCharacters:range:, range { 3, 3 } extends beyond size (5)"),
                           "constantString.getCharactersRange.notFound":
                               (range, "in getCharacters:range:, range { 9223372036854775807, 0 } extends beyond string"),
                           "mutableString.getCharactersRange.wrappingRange":
                               (range, "in getCharacters:range:, range { 2, 18446744073709551615 } extends beyond size (5)")],
                          selector: "getCharacters:range:")
        #endif
    }

    // MARK: Attributed strings

    /// The designated initializer and what funnels into it, with nil and with strings; the mutations GNUstep accepts
    /// with nil (append, insert at i <= length, set) left alone, an insert past the end stopped where it funnels.
    func testAttributedStringsBehaveAsFoundation() throws {
        let compared = try assertProbesBehaveAsFoundation(Probe.all("attributedClass.", "mutableAttributedClass.", "mutableAttributedString.appendAttributedString",
                                                                    "mutableAttributedString.insertAttributedString", "mutableAttributedString.setAttributedString"))
        XCTAssertGreaterThan(compared, 50)
    }

    func testAttributedStringReasonsAreGNUsteps() throws {
        #if !canImport(Darwin)
        let nilString = "aString object passed to -[GSAttributedString initWithString:attributes:] is nil"
        try assertReports(["attributedString.initWithStringAttributes.nil": ("NSInvalidArgumentException", nilString),
                           "mutableAttributedString.initWithAttributedString.nil": ("NSInvalidArgumentException", nilString)],
                          selector: "initWithString:attributes:")
        try assertReports(["mutableAttributedString.insertAttributedString.pastEnd":
                               ("NSRangeException", "in replaceCharactersInRange:withString:, range { 6, 0 } extends beyond size (5)")],
                          selector: "replaceCharactersInRange:withAttributedString:")
        #endif
    }
}
