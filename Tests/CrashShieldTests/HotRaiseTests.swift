@testable import CrashShield
import CrashShieldProofKit
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import XCTest

/// Recovery at the raise (`HotReadRecovery.atRaise`, CSRHotRaise.m): GSArray's `objectAtIndex:` stays unhooked, a bad
/// index is recovered when GNUstep raises it, and `.trampolines` puts the trampoline back.
final class HotRaiseTests: ShieldTestCase {
    private let objectAtIndex = csr_sel_register("objectAtIndex:")!
    private let raise = csr_sel_register("raise")!

    private func implementation(_ className: String, _ selector: CSRSelector) -> UInt {
        let imp = csr_class_methodImplementation(ObjCClass(named: className)!.pointer, selector)
        return UInt(bitPattern: imp.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
    }

    private func configuration(_ recovery: HotReadRecovery, mode: GuardMode = .release) -> Configuration {
        var configuration = Configuration(guards: .container, mode: mode, isAppImage: { _ in true })
        configuration.hotReadRecovery = recovery
        return configuration
    }

    func testGSArrayStaysUnhookedAndABadIndexIsRecoveredAtTheRaise() throws {
        #if canImport(Darwin)
        throw XCTSkip("Apple platforms keep the trampolines (Docs/AppleRuntime.md)")
        #else
        let before = implementation("GSArray", objectAtIndex)
        let raiseBefore = implementation("NSException", raise)
        XCTAssertTrue(csr_hot_raise_eligible(Int32(CSRHotArrayObjectAtIndex), unsafeBitCast(before, to: CSRIMP.self)),
                      "GSArray's objectAtIndex: and GNUstep's raise helpers have no cleanups to skip")
        try withShield(configuration(.atRaise)) { sink in
            XCTAssertEqual(implementation("GSArray", objectAtIndex), before, "a valid call runs Foundation's own method")
            XCTAssertNotEqual(implementation("NSException", raise), raiseBefore, "the raise hook is in")
            let array = css_test_array()
            withAutoreleasePool {
                XCTAssertNotNil(css_test_call_objectAtIndex(array, 1))
                var result: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(bitPattern: 1)
                let raised = catchingObjCException { result = css_test_call_objectAtIndex(array, 5) }
                XCTAssertNil(raised.map { "\($0.name): \($0.reason)" }, "recovered before anything was raised")
                XCTAssertNil(result, "the caller got nil")
            }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.count, 1)
            let report = try XCTUnwrap(sink.reports.first)
            XCTAssertEqual(report.selector, "objectAtIndex:")
            XCTAssertEqual(report.className, GuardFailure.className(array))
            XCTAssertEqual(report.exceptionName, "NSRangeException")
            XCTAssertEqual(report.reason, "Index 5 is out of range 2 (in 'objectAtIndex:')", "GNUstep's own exception")
            XCTAssertEqual(report.action, .recovered)
            let caller = try XCTUnwrap(report.callerFrameIndex.map { report.callStack[$0] })
            XCTAssertEqual(caller.symbol.map { $0.contains("css_test_call_objectAtIndex") }, true,
                           "the call site is the frame that sent objectAtIndex:, got \(caller.symbol ?? "?")")
        }
        XCTAssertEqual(implementation("NSException", raise), raiseBefore, "stop() puts -raise back")
        var raised: (name: String, reason: String)?
        withAutoreleasePool { raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 5) } }
        XCTAssertEqual(raised?.name, "NSRangeException", "stopped: Foundation raises again")
        #endif
    }

    func testTrampolinesFallBackHooksEveryHotRead() throws {
        let before = implementation("GSArray", objectAtIndex)
        let raiseBefore = implementation("NSException", raise)
        try withShield(configuration(.trampolines)) { sink in
            XCTAssertNotEqual(implementation("GSArray", objectAtIndex), before, "the trampoline is installed")
            XCTAssertEqual(implementation("NSException", raise), raiseBefore, "no raise hook")
            withAutoreleasePool { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.selector), ["objectAtIndex:"])
        }
        XCTAssertEqual(implementation("GSArray", objectAtIndex), before)
    }

    func testDebugModeLetsGNUstepsExceptionGoOnUnchanged() throws {
        try withShield(configuration(.atRaise, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 7) } }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertEqual(raised?.reason, "Index 7 is out of range 2 (in 'objectAtIndex:')")
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.action), [.failedLoudly])
        }
    }

    func testOtherExceptionsRaiseAsWithoutCrashShield() throws {
        try withShield(configuration(.atRaise)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool { raised = catchingObjCException { csr_raise("NSInvalidArgumentException", "not a hot read") } }
            XCTAssertEqual(raised?.name, "NSInvalidArgumentException")
            XCTAssertEqual(raised?.reason, "not a hot read")
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    /// 100,000 stopped calls in a loop: every one gets nil, in bounded time and memory, in both modes.
    func testAStormOfStoppedCallsIsBoundedInTimeAndMemory() throws {
        let storm: UInt = 100_000
        for recovery in HotReadRecovery.allCases {
            try withShield(configuration(recovery)) { sink in
                withAutoreleasePool { _ = css_test_storm_objectAtIndex(1_000) }   // warm: first report, caches
                let resident = csp_resident_bytes()
                let start = threadCPUSeconds()
                var nils: UInt = 0
                for _ in 0..<100 { withAutoreleasePool { nils += css_test_storm_objectAtIndex(storm / 100) } }
                let seconds = threadCPUSeconds() - start
                let grown = Int(csp_resident_bytes()) - Int(resident)
                print("hot-read storm, \(recovery): \(storm) stopped calls, \(String(format: "%.2f", seconds)) s CPU "
                      + "(\(String(format: "%.1f", seconds / Double(storm) * 1e6)) µs each), resident +\(grown / 1024) KiB")
                XCTAssertEqual(nils, storm, "every bad call got nil")
                XCTAssertLessThan(seconds, 10, recovery.rawValue)
                XCTAssertLessThan(grown, 16 << 20, "\(recovery): resident memory grew by \(grown) bytes")
                CrashShield.flush()
                XCTAssertEqual(sink.reports.first?.occurrences, Int(storm) + 1_000)
            }
        }
    }
}
