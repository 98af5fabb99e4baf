@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// Configuration that would hurt the app is refused with a clear error; redaction runs before any sink.
final class ConfigurationSafetyTests: ShieldTestCase {
    private func assertRefused(
        _ configuration: Configuration, mentioning text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try CrashShield.start(configuration), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
        XCTAssertFalse(CrashShield.isRunning, "nothing stays installed", file: file, line: line)
    }

    func testZombiePoolsThatWouldKeepEveryObjectOrGrowUnboundedAreRefused() {
        var rootClass = Configuration(guards: .zombie)
        rootClass.zombies.classNames = ["NSObject"]
        assertRefused(rootClass, mentioning: "root class")
        var huge = Configuration(guards: .zombie)
        huge.zombies.maxBytes = Int.max
        assertRefused(huge, mentioning: "maxBytes")
        var countless = Configuration(guards: .zombie)
        countless.zombies.maxCount = Int.max
        assertRefused(countless, mentioning: "maxCount")
    }

    func testAStaleExcludedClassNameIsSkippedAndTheGuardsStillRun() throws {
        var configuration = Configuration(guards: .container)
        configuration.excludedClassNames = ["MYLegacyParser"]  // the README's example: a class since removed
        withShield(configuration) { sink in
            XCTAssertTrue(CrashShield.isRunning)
            XCTAssertNil(css_test_bad_call(), "the guard runs")
            XCTAssertEqual(sink.reports.count, 1)
        }
    }

    func testExcludingARootClassOrPrefixesOfFoundationsOwnClassesIsRefused() throws {
        for root in ["NSObject", "NSProxy"] {
            var configuration = Configuration(guards: .container)
            configuration.excludedClassNames = ["MYLegacyParser", root]
            assertRefused(configuration, mentioning: "'\(root)' is a root class")
        }
        for prefix in ["NS", "N", "_", "__NS", "GS", "CF", "UI", "NSStr", "NSMutableArr"] {
            var configuration = Configuration(guards: [.unrecognizedSelector, .zombie])
            configuration.protectedClassPrefixes = ["MY", prefix]
            assertRefused(configuration, mentioning: "protectedClassPrefixes: '\(prefix)'")
        }
        // A prefix of the app's own, a Swift module's classes, or one complete Foundation class name are fine.
        for prefix in ["MY", "_TtC5MyApp", "NSLock", "NSObject"] {
            var configuration = Configuration(guards: [.unrecognizedSelector])
            configuration.protectedClassPrefixes = [prefix]
            withShield(configuration) { _ in XCTAssertTrue(CrashShield.isRunning, prefix) }
        }
        // The zombie guard matches ancestors: a root class's name would keep every freed object.
        var zombies = Configuration(guards: [.zombie])
        zombies.protectedClassPrefixes = ["MY", "NSObject"]
        assertRefused(zombies, mentioning: "matches the root class 'NSObject'")
        var later = Configuration(guards: [.unrecognizedSelector])
        later.protectedClassPrefixes = ["NSObject"]
        try withShield(later) { _ in
            XCTAssertThrowsError(try CrashShield.setGuard(.zombie, enabled: true)) { error in
                XCTAssertTrue("\(error)".contains("root class 'NSObject'"), "\(error)")
            }
            XCTAssertFalse(CrashShield.activeGuards.contains(.zombie))
        }
    }

    func testNoGuardsAndMissingClassesAreWarnedOnceNotRefused() throws {
        var configuration = Configuration(guards: [])
        configuration.excludedClassNames = ["MYLegacyParser"]
        configuration.mainThreadOnlyMethods["MYMissingView"] = ["setNeedsLayout"]
        let warnings = configuration.warnings
        XCTAssertEqual(warnings.count, 3, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("guards is empty"), warnings[0])
        XCTAssertTrue(warnings[1].contains("excludedClassNames: no class 'MYLegacyParser'"), warnings[1])
        XCTAssertTrue(warnings[2].contains("mainThreadOnlyMethods: no class 'MYMissingView'"), warnings[2])
        withShield(configuration) { _ in XCTAssertEqual(CrashShield.activeGuards, []) }
        withShield(configuration) { _ in }
        XCTAssertTrue(CrashShield.loggedWarnings.current.isSuperset(of: warnings), "logged (once per process)")
        XCTAssertEqual(Configuration(guards: .mainThreadUI).warnings, [], "UIView of the default is not warned about")
    }

    func testGuardBitsThatNameNoGuardAreRefused() throws {
        assertRefused(Configuration(guards: GuardCategory(rawValue: 1 << 30)), mentioning: "name no guard")
        try withShield(Configuration(guards: .container)) { _ in
            XCTAssertThrowsError(try CrashShield.setGuard(GuardCategory(rawValue: 1 << 31), enabled: false)) { error in
                XCTAssertTrue("\(error)".contains("name no guard"), "\(error)")
            }
            XCTAssertEqual(CrashShield.activeGuards, .container, "a refused call changes nothing")
        }
        XCTAssertThrowsError(try CrashShield.setGuard(.container, enabled: true)) { error in
            XCTAssertEqual(error as? CrashShieldError, .notRunning, "one way to fail: an error, not a Bool")
        }
    }

    func testRedactionRunsBeforeAnySinkAndKeepsTheReportsIdentity() throws {
        var configuration = Configuration(guards: .container)
        configuration.redact = Redaction.withoutAppData
        try withShield(configuration) { sink in
            XCTAssertNil(css_test_bad_call())
            let delivered = try XCTUnwrap(sink.reports.first)
            XCTAssertEqual(delivered.reason, "(redacted)")
            XCTAssertEqual(delivered.exceptionName, "NSRangeException")
            XCTAssertEqual(delivered.selector, "objectAtIndex:")
            XCTAssertEqual(CrashShield.reports.first?.reason, "(redacted)", "what CrashShield keeps is redacted too")
        }
        // A redactor that raises: the report keeps no reason and no details, and the app's call is unaffected.
        configuration.redact = { _ in csr_raise("NSGenericException", "redactor bug") }
        withShield(configuration) { sink in
            XCTAssertNil(catchingObjCException { XCTAssertNil(css_test_bad_call()) })
            XCTAssertEqual(sink.reports.first?.reason, "(redaction failed)")
            XCTAssertEqual(sink.reports.first?.signature.isEmpty, false)
        }
    }

    func testTheCReportHandlerCanBeUnregistered() throws {
        let calls = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { calls.deallocate() }
        calls.pointee = 0
        XCTAssertEqual(
            CrashShieldRuntime.crashshield_set_report_handler(
                { _, context in
                    context!.assumingMemoryBound(to: Int.self).pointee += 1
                }, calls), CrashShieldStatusOK)
        XCTAssertEqual(CrashShieldRuntime.crashshield_start(false), CrashShieldStatusOK)
        defer { CrashShieldRuntime.crashshield_stop() }
        XCTAssertNil(css_test_bad_call())
        XCTAssertTrue(CrashShieldRuntime.crashshield_flush(5))
        XCTAssertEqual(calls.pointee, 1)
        CrashShieldRuntime.crashshield_clear_report_handler()
        XCTAssertEqual(CrashShieldRuntime.crashshield_set_report_handler(nil, nil), CrashShieldStatusInvalidArgument)
        XCTAssertNil(css_test_bad_call())
        XCTAssertTrue(CrashShieldRuntime.crashshield_flush(5))
        XCTAssertEqual(calls.pointee, 1, "no call after the handler was unregistered")
    }
}
