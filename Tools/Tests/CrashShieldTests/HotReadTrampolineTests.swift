@_spi(CrashShieldTools) @testable import CrashShield
import CrashShieldProofKit
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// The hot reads (`objectAtIndex:`, `array[i]`, `characterAtIndex:`) as every platform runs them: a C trampoline on
/// every owner calls the original under `@try` (CSRHotReads.h); a bad index is caught, confirmed and recovered, and
/// nothing else of Foundation's is hooked for them (no raise hook).
final class HotReadTrampolineTests: ShieldTestCase {
    private let objectAtIndex = csr_sel_register("objectAtIndex:")!
    private let raise = csr_sel_register("raise")!

    private func implementation(_ className: String, _ selector: CSRSelector) -> UInt {
        let imp = csr_class_methodImplementation(ObjCClass(named: className)!.pointer, selector)
        return UInt(bitPattern: imp.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
    }

    private func configuration(mode: GuardMode = .release) -> Configuration {
        Configuration(guards: .container, mode: mode, isAppImage: { _ in true })
    }

    /// `array[i]` of an app's own NSArray subclass: NSArray's original jumps into the app's `objectAtIndex:`, which
    /// raises itself or from a function of its own. The outer trampoline decides: recovered with nil, reported once as
    /// the call the app made, `objectAtIndexedSubscript:`.
    func testArraySubscriptOfAnAppsNSArraySubclassIsRecoveredAndReportedOnce() throws {
        do {
            withShield(configuration()) { sink in
                var classes: [String] = []
                withAutoreleasePool {
                    for deep in [false, true] {
                        let array = css_test_app_array(deep)
                        classes.append(GuardFailure.className(array))
                        XCTAssertNotNil(css_test_call_subscript(array, 1))
                        var object: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(bitPattern: 1)
                        let raised = catchingObjCException { object = css_test_call_subscript(array, 2) }
                        XCTAssertNil(raised.map(\.reason), "deep \(deep)")
                        XCTAssertNil(object, "deep \(deep): nil")
                    }
                }
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.className).sorted(), classes.sorted())
                XCTAssertEqual(Set(sink.reports.map(\.selector)), ["objectAtIndexedSubscript:"])
                XCTAssertEqual(Set(sink.reports.map(\.exceptionName)), ["NSRangeException"])
            }
        }
    }

    /// A class whose own `objectAtIndex:` has a trampoline, reached through `array[i]`'s trampoline: the outer one
    /// decides, and reports the call the app made, `objectAtIndexedSubscript:`, once.
    func testATrampolineUnderArraySubscriptsTrampolineReportsTheAppsCallOnce() throws {
        try withShield(configuration()) { sink in
            let hook = try HookEngine.shared.install(
                ArrayHooks.objectAtIndex, on: XCTUnwrap(ObjCClass(named: "CSSAppArray")))
            defer { hook.revert() }
            withAutoreleasePool {
                let array = css_test_app_array(false)
                var object: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(bitPattern: 1)
                XCTAssertNil(catchingObjCException { object = css_test_call_subscript(array, 2) }.map(\.reason))
                XCTAssertNil(object)
                XCTAssertNil(css_test_call_objectAtIndex(array, 3), "objectAtIndex: itself, through its trampoline")
            }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.selector).sorted(), ["objectAtIndex:", "objectAtIndexedSubscript:"])
        }
    }

    func testEveryOwnerGetsItsTrampolineAndNoRaiseHook() throws {
        let before = implementation("GSArray", objectAtIndex)
        let raiseBefore = implementation("NSException", raise)
        withShield(configuration()) { sink in
            XCTAssertNotEqual(implementation("GSArray", objectAtIndex), before, "the trampoline is installed")
            XCTAssertEqual(implementation("NSException", raise), raiseBefore, "no raise hook")
            withAutoreleasePool { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.selector), ["objectAtIndex:"])
        }
        XCTAssertEqual(implementation("GSArray", objectAtIndex), before)
    }

    func testDebugModeLetsGNUstepsExceptionGoOnUnchanged() throws {
        withShield(configuration(mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 7) }
            }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertEqual(raised?.reason, "Index 7 is out of range 2 (in 'objectAtIndex:')")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.action), [.failedLoudly])
        }
    }

    func testOtherExceptionsRaiseAsWithoutCrashShield() throws {
        withShield(configuration()) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { csr_raise("NSInvalidArgumentException", "not a hot read") }
            }
            XCTAssertEqual(raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(raised?.reason, "not a hot read")
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    /// 100,000 stopped calls in a loop: every one gets nil (0), in bounded time and memory, for `objectAtIndex:` and
    /// `characterAtIndex:`.
    func testAStormOfStoppedCallsIsBoundedInTimeAndMemory() throws {
        let storm: UInt = 100_000
        let storms: [(name: String, guards: GuardCategory, run: (UInt) -> UInt)] = [
            ("objectAtIndex:", .container, { css_test_storm_objectAtIndex($0) }),
            ("characterAtIndex:", .string, { css_test_storm_characterAtIndex($0) }),
        ]
        for (name, guards, run) in storms {
            do {
                var configuration = configuration()
                configuration.guards = guards
                withShield(configuration) { sink in
                    withAutoreleasePool { _ = run(1_000) }  // warm: first report, caches
                    let resident = csp_resident_bytes()
                    let start = threadCPUSeconds()
                    var stopped: UInt = 0
                    for _ in 0..<100 { withAutoreleasePool { stopped += run(storm / 100) } }
                    let seconds = threadCPUSeconds() - start
                    let grown = Int(csp_resident_bytes()) - Int(resident)
                    print(
                        "hot-read storm, \(name): \(storm) stopped calls, \(String(format: "%.2f", seconds)) s "
                            + "CPU (\(String(format: "%.1f", seconds / Double(storm) * 1e6)) µs each), resident +\(grown / 1024) KiB"
                    )
                    XCTAssertEqual(stopped, storm, "\(name): every bad call got nil / 0")
                    // A stopped hot read is a raised exception caught in the trampoline: about 13 µs in the optimized
                    // build on an idle machine, up to 100 µs in the debug build on a loaded one. The bound is about
                    // staying linear (one report, a counter per call), not about the raise's cost.
                    XCTAssertLessThan(seconds, 30, name)
                    XCTAssertLessThan(grown, 16 << 20, "\(name): resident memory grew by \(grown) bytes")
                    CrashShield.flush()
                    XCTAssertEqual(sink.reports.first?.occurrences, Int(storm) + 1_000, name)
                    XCTAssertEqual(sink.reports.first?.selector, name)
                }
            }
        }
    }
}
