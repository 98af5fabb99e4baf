@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldTesting
import XCTest

final class LifecycleTests: ShieldTestCase {
    /// A guard whose method this system lacks (an OS where NSTimer has no such initializer, say) stays off, named in
    /// the log; every other guard runs. Before, start() failed and the app ran with no guard at all.
    func testAGuardThatCannotInstallStaysOffAndTheOthersRun() throws {
        let missingMethodTimerGuard = GuardDeclaration(.timer) { _ in
            throw HookError.methodNotFound(
                class: "NSTimer", selector: "initWithFireDate:interval:target:selector:userInfo:repeats:")
        }
        GuardRegistry.substitutes.withLock { $0 = [missingMethodTimerGuard] }
        defer { GuardRegistry.substitutes.withLock { $0 = [] } }
        try withShield(Configuration(guards: [.container, .timer, .kvc])) { _ in
            XCTAssertTrue(CrashShield.isRunning)
            XCTAssertEqual(CrashShield.activeGuards, [.container, .kvc], "every guard but the one that cannot install")
            XCTAssertThrowsError(try CrashShield.setGuard(.timer, enabled: true), "switching it on later says why")
            // With others: they are switched on as asked (the timer comes before the main-thread guard in the list).
            XCTAssertThrowsError(try CrashShield.setGuard([.timer, .mainThreadUI], enabled: true))
            XCTAssertEqual(CrashShield.activeGuards, [.container, .kvc, .mainThreadUI])
        }
    }

    func testStartTwiceIsAnErrorAndStopTwiceIsHarmless() throws {
        try CrashShield.start(Configuration(guards: .container))
        XCTAssertTrue(CrashShield.isRunning)
        XCTAssertThrowsError(try CrashShield.start()) { XCTAssertEqual($0 as? CrashShieldError, .alreadyRunning) }
        XCTAssertTrue(CrashShield.activeGuards.contains(.container), "the running configuration is untouched")
        CrashShield.stop()
        CrashShield.stop()
        XCTAssertFalse(CrashShield.isRunning)
        XCTAssertEqual(CrashShield.activeGuards, [])
    }

    func testBadConfigurationIsRejectedWithAClearErrorAndInstallsNothing() {
        let cases: [(Configuration, CrashShieldError)] = [
            (Configuration(unrecognizedSelectorFoundationClasses: ["NoSuchClass"]), .unknownClass("NoSuchClass")),
            (
                Configuration(limits: ReportLimits(maxDistinctReports: 0)),
                .invalidConfiguration("maxDistinctReports must be at least 1, got 0")
            ),
            (
                Configuration(protectedClassPrefixes: [""]),
                .invalidConfiguration("an empty class prefix would protect every class")
            ),
            (
                Configuration(modeOverrides: [[.kvo, .kvc]: .debug]),
                .invalidConfiguration("mode overrides take single guards, got kvc,kvo")
            ),
        ]
        for (configuration, expected) in cases {
            XCTAssertThrowsError(try CrashShield.start(configuration)) {
                XCTAssertEqual($0 as? CrashShieldError, expected)
            }
            XCTAssertFalse(CrashShield.isRunning)
            // -dealloc hooks of the dealloc watcher (side storage, observation guards) stay for the process's life.
            XCTAssertTrue(
                HookEngine.shared.activeHooks.allSatisfy { $0.selector.name == "dealloc" },
                "\(HookEngine.shared.activeHooks)")
        }
    }

    func testCategoriesAndPresets() {
        XCTAssertEqual(GuardCategory.all.members.count, 11)
        XCTAssertFalse(GuardCategory.productionSafe.contains(.zombie), "zombies are opt-in")
        XCTAssertFalse(GuardCategory.productionSafe.contains(.uikit), "the UIKit guard is opt-in")
        XCTAssertEqual(GuardCategory(name: "kvo"), .kvo)
        XCTAssertNil(GuardCategory(name: "nope"))
        XCTAssertTrue(CrashShield.availableGuards.contains(.container))
        XCTAssertEqual(Configuration.debug.mode(for: .container), .debug)
        XCTAssertEqual(Configuration(modeOverrides: [.mainThreadUI: .debug]).mode(for: .mainThreadUI), .debug)
    }

    func testCEntryPointStartsAndRejectsANilHandler() {
        XCTAssertEqual(CrashShieldRuntime.crashshield_set_report_handler(nil, nil), CrashShieldStatusInvalidArgument)
        XCTAssertEqual(CrashShieldRuntime.crashshield_start(false), CrashShieldStatusOK)
        XCTAssertEqual(CrashShieldRuntime.crashshield_start(false), CrashShieldStatusAlreadyRunning)
        CrashShieldRuntime.crashshield_stop()
        XCTAssertFalse(CrashShield.isRunning)
    }
}
