@_spi(CrashShieldTools) @testable import CrashShield
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

    /// The hot table whose marker `className`'s `selector` is now, or -1.
    private func markerTable(_ className: String, _ selector: CSRSelector) -> Int32 {
        var slot = 0
        return csr_hot_marker_table(implementation(className, selector), &slot)
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
        XCTAssertTrue(
            csr_hot_raise_eligible(Int32(CSRHotArrayObjectAtIndex), unsafeBitCast(before, to: CSRIMP.self)),
            "GSArray's objectAtIndex: and GNUstep's raise helpers have no cleanups to skip")
        try withShield(configuration(.atRaise)) { sink in
            XCTAssertEqual(
                implementation("GSArray", objectAtIndex), before, "a valid call runs Foundation's own method")
            XCTAssertNotEqual(implementation("NSException", raise), raiseBefore, "the raise hook is in")
            var className = ""
            withAutoreleasePool {
                let array = css_test_array()
                className = GuardFailure.className(array)
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
            XCTAssertEqual(report.className, className)
            XCTAssertEqual(report.exceptionName, "NSRangeException")
            XCTAssertEqual(report.reason, "Index 5 is out of range 2 (in 'objectAtIndex:')", "GNUstep's own exception")
            XCTAssertEqual(report.action, .recovered)
            let caller = try XCTUnwrap(report.callerFrameIndex.map { report.callStack[$0] })
            XCTAssertEqual(
                caller.symbol.map { $0.contains("css_test_call_objectAtIndex") }, true,
                "the call site is the frame that sent objectAtIndex:, got \(caller.symbol ?? "?")")
        }
        XCTAssertEqual(implementation("NSException", raise), raiseBefore, "stop() puts -raise back")
        var raised: (name: String, reason: String)?
        withAutoreleasePool { raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 5) } }
        XCTAssertEqual(raised?.name, "NSRangeException", "stopped: Foundation raises again")
        #endif
    }

    /// GNUstep's own strings' `characterAtIndex:` stays unhooked, and NSArray's `objectAtIndexedSubscript:` gets a
    /// marker (CSRHotReads.h). A bad index is recovered at the raise, reported once per call with the selector the app
    /// sent and the app's call site; a string's report names the class that owns the implementation (the exception
    /// names no receiver), an array's the receiver's class. NSString's abstract implementation keeps its trampoline;
    /// `.trampolines` hooks every owner, and its reports name the receiver's class.
    func testCharacterAtIndexIsRecoveredUnhookedAndArraySubscriptThroughItsMarker() throws {
        #if canImport(Darwin)
        throw XCTSkip("recovery at the raise is GNUstep's (CSRHotRaise.h)")
        #else
        let characterAtIndex = csr_sel_register("characterAtIndex:")!
        let subscriptSelector = csr_sel_register("objectAtIndexedSubscript:")!
        func isMarker(_ className: String, _ selector: CSRSelector) -> Bool { markerTable(className, selector) >= 0 }
        let owners = ["GSCString", "GSUnicodeString", "GSMutableString", "NSConstantString", "NSString"]
        let before = owners.map { implementation($0, characterAtIndex) }
        for recovery in HotReadRecovery.allCases {
            var configuration = configuration(recovery)
            configuration.guards = [.container, .string]
            withShield(configuration) { sink in
                let atRaise = recovery == .atRaise
                for (owner, old) in zip(owners, before) {
                    let unhooked = implementation(owner, characterAtIndex) == old
                    XCTAssertEqual(unhooked, atRaise && owner != "NSString", "\(owner), \(recovery)")
                    XCTAssertFalse(isMarker(owner, characterAtIndex), "\(owner), \(recovery)")
                }
                XCTAssertEqual(isMarker("NSArray", subscriptSelector), atRaise, "NSArray's subscript, \(recovery)")
                var expected: [String] = []
                withAutoreleasePool {
                    var strings = [UnsafeMutableRawPointer?](repeating: nil, count: 8)
                    let count = Int(css_test_strings(&strings, Int32(strings.count)))
                    XCTAssertEqual(count, 6)
                    for string in strings.prefix(count) {
                        XCTAssertEqual(css_test_call_characterAtIndex(string, 0) == 0, false, "a valid call reads")
                        var result: UInt16 = 99
                        let raised = catchingObjCException { result = css_test_call_characterAtIndex(string, 3) }
                        XCTAssertNil(raised.map { "\($0.name): \($0.reason)" }, GuardFailure.className(string))
                        XCTAssertEqual(result, 0, "the caller got 0 (\(GuardFailure.className(string)))")
                        let named =
                            atRaise
                            ? ObjCClass(of: string)?.owner(of: "characterAtIndex:")?.name ?? "?"
                            : GuardFailure.className(string)
                        expected.append("characterAtIndex: \(named)")
                    }
                    let array = css_test_array()
                    XCTAssertNotNil(css_test_call_subscript(array, 1))
                    var object: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(bitPattern: 1)
                    XCTAssertNil(catchingObjCException { object = css_test_call_subscript(array, 2) }.map(\.reason))
                    XCTAssertNil(object, "array[2] of two objects: nil")
                    expected.append("objectAtIndexedSubscript: \(GuardFailure.className(array))")
                }
                CrashShield.flush()
                let seen = sink.reports.flatMap { report in
                    Array(repeating: "\(report.selector) \(report.className)", count: report.occurrences)
                }
                XCTAssertEqual(seen.sorted(), expected.sorted(), "\(recovery)")
                for report in sink.reports {
                    let caller = report.callerFrameIndex.map { report.callStack[$0].symbol ?? "?" } ?? "none"
                    let function =
                        report.selector == "characterAtIndex:"
                        ? "css_test_call_characterAtIndex"
                        : "css_test_call_subscript"
                    XCTAssertTrue(caller.contains(function), "\(report.selector) \(recovery): caller \(caller)")
                    XCTAssertEqual(report.action, .recovered)
                }
            }
            XCTAssertFalse(isMarker("GSCString", characterAtIndex), "stop() puts Foundation's method back")
        }
        #endif
    }

    /// `array[i]` of an app's own NSArray subclass: NSArray's original jumps into the app's `objectAtIndex:`, which
    /// raises itself or from a function of its own. The marker's receiver and index, and the precondition, make it the
    /// app call's failure: recovered with nil, reported as `objectAtIndexedSubscript:` (as the trampoline did).
    func testArraySubscriptOfAnAppsNSArraySubclassIsRecoveredThroughItsMarker() throws {
        for recovery in HotReadRecovery.allCases {
            withShield(configuration(recovery)) { sink in
                var classes: [String] = []
                withAutoreleasePool {
                    for deep in [false, true] {
                        let array = css_test_app_array(deep)
                        classes.append(GuardFailure.className(array))
                        XCTAssertNotNil(css_test_call_subscript(array, 1))
                        var object: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(bitPattern: 1)
                        let raised = catchingObjCException { object = css_test_call_subscript(array, 2) }
                        XCTAssertNil(raised.map(\.reason), "\(recovery), deep \(deep)")
                        XCTAssertNil(object, "\(recovery), deep \(deep): nil")
                    }
                }
                CrashShield.flush()
                XCTAssertEqual(sink.reports.map(\.className).sorted(), classes.sorted(), "\(recovery)")
                XCTAssertEqual(Set(sink.reports.map(\.selector)), ["objectAtIndexedSubscript:"], "\(recovery)")
                XCTAssertEqual(Set(sink.reports.map(\.exceptionName)), ["NSRangeException"])
            }
        }
    }

    /// GSString's own `characterAtIndex:` is protected where it raises, not hooked: a call through the implementation
    /// kept from before `start()` is recovered too, and reported with the class that owns it. NSArray's subscript
    /// marker called on nil answers nil, as NSArray's own method does. (A marker recovers only calls that went through
    /// it: `testReplaceCharactersGetsAMarker...`.)
    func testUnhookedCharacterOriginalsRecoverEveryCallAndAMarkerOnNilAnswersNil() throws {
        #if canImport(Darwin)
        throw XCTSkip("recovery at the raise is GNUstep's (CSRHotRaise.h)")
        #else
        var strings: [UnsafeMutableRawPointer?] = [nil]
        withAutoreleasePool { XCTAssertEqual(css_test_strings(&strings, 1), 1) }
        let text = strings[0]  // a constant string: never released
        let className = GuardFailure.className(text)
        let kept = try XCTUnwrap(css_test_character_implementation(className))
        var configuration = configuration(.atRaise)
        configuration.guards = [.container, .string]
        withShield(configuration) { sink in
            XCTAssertEqual(css_test_character_implementation(className), kept, "\(className) stays unhooked")
            XCTAssertNil(css_test_call_subscript_implementation_on_nil(), "nil answers nil through the marker")
            withAutoreleasePool {
                XCTAssertEqual(css_test_call_characterAtIndex(text, 0), 0x61)
                var result: UInt16 = 99
                XCTAssertNil(
                    catchingObjCException { result = css_test_call_character_implementation(kept, text, 9) }.map(
                        \.reason))
                XCTAssertEqual(result, 0, "the kept implementation is the protected one")
                XCTAssertNil(catchingObjCException { _ = css_test_call_characterAtIndex(text, 9) }.map(\.reason))
            }
            CrashShield.flush()
            let calls = sink.reports.flatMap {
                Array(repeating: "\($0.selector) \($0.className)", count: $0.occurrences)
            }
            XCTAssertEqual(calls, Array(repeating: "characterAtIndex: \(className)", count: 2))
        }
        #endif
    }

    /// A class whose own `objectAtIndex:` has a trampoline, reached through `array[i]`'s marker: the trampoline
    /// catches (the marker cannot), and reports the call the app made, `objectAtIndexedSubscript:`, once.
    func testATrampolineUnderArraySubscriptsMarkerReportsTheAppsCall() throws {
        #if canImport(Darwin)
        throw XCTSkip("markers are GNUstep's on x86_64 (CSRHotReads.h)")
        #else
        try withShield(configuration(.atRaise)) { sink in
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
        #endif
    }

    /// The container guard (GSArray) and the string guard (markers) share the raise hook: switching either off keeps
    /// it for the other, and it goes only with the last.
    func testTheRaiseHookStaysWhileEitherHotReadGuardNeedsIt() throws {
        #if canImport(Darwin)
        throw XCTSkip("no raise hook on Apple platforms")
        #else
        let raiseBefore = implementation("NSException", raise)
        var configuration = configuration(.atRaise)
        configuration.guards = [.container, .string]
        try withShield(configuration) { sink in
            func stopped(_ body: @escaping () -> Void) -> Bool {
                var raised: (name: String, reason: String)?
                withAutoreleasePool { raised = catchingObjCException(body) }
                return raised == nil
            }
            var strings: [UnsafeMutableRawPointer?] = [nil]
            withAutoreleasePool { XCTAssertEqual(css_test_strings(&strings, 1), 1) }
            let text = strings[0]  // the first is a constant string: never released
            try CrashShield.setGuard(.container, enabled: false)
            XCTAssertNotEqual(implementation("NSException", raise), raiseBefore, "the string guard still needs it")
            XCTAssertTrue(stopped { _ = css_test_call_characterAtIndex(text, 9) }, "markers still recover")
            XCTAssertFalse(stopped { _ = css_test_call_objectAtIndex(css_test_array(), 5) }, "arrays are unguarded")
            try CrashShield.setGuard(.container, enabled: true)
            try CrashShield.setGuard(.string, enabled: false)
            XCTAssertNotEqual(implementation("NSException", raise), raiseBefore, "the container guard still needs it")
            XCTAssertTrue(stopped { _ = css_test_call_objectAtIndex(css_test_array(), 5) })
            XCTAssertFalse(stopped { _ = css_test_call_characterAtIndex(text, 9) }, "strings are unguarded")
            try CrashShield.setGuard(.container, enabled: false)
            XCTAssertEqual(implementation("NSException", raise), raiseBefore, "reverted with the last of them")
            try CrashShield.setGuard([.container, .string], enabled: true)
            XCTAssertTrue(stopped { _ = css_test_call_characterAtIndex(text, 9) })
            CrashShield.flush()
            let calls = sink.reports.flatMap { Array(repeating: $0.selector, count: $0.occurrences) }
            XCTAssertEqual(calls.sorted(), ["characterAtIndex:", "characterAtIndex:", "objectAtIndex:"])
        }
        XCTAssertEqual(implementation("NSException", raise), raiseBefore, "stop() puts -raise back")
        #endif
    }

    /// GSMutableString's `replaceCharactersInRange:withString:` gets a marker (its range check raises before it changes
    /// anything): a range past the end, or one that overflows, is recovered at the raise with the string untouched,
    /// and reported with GNUstep's own text and the app's call site. Not recovered, as without CrashShield: a call
    /// through the implementation kept from before `start()`, an NSRangeException the argument raises inside the method
    /// once the range check passed, and the method's own other exception (a class passed as the string).
    /// `.trampolines`: the check-first trampoline, with the same reports.
    func testReplaceCharactersGetsAMarkerAndItsRangeFailureIsRecoveredAtTheRaise() throws {
        #if canImport(Darwin)
        throw XCTSkip("markers are GNUstep's on x86_64 (CSRHotReads.h)")
        #else
        let replace = csr_sel_register("replaceCharactersInRange:withString:")!
        let kept = try XCTUnwrap(csr_class_methodImplementation(ObjCClass(named: "GSMutableString")!.pointer, replace))
        func isMarker(_ className: String) -> Bool {
            markerTable(className, replace) == Int32(CSRHotMutableStringReplaceCharacters)
        }
        func text(_ string: UnsafeMutableRawPointer?) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            css_test_string_text(string, &buffer, UInt(buffer.count))
            return String(cString: buffer)
        }
        func raised(_ body: @escaping () -> Void) -> String? {
            catchingObjCException(body).map { "\($0.name): \($0.reason)" }
        }
        for recovery in HotReadRecovery.allCases {
            var configuration = configuration(recovery)
            configuration.guards = .string
            withShield(configuration) { sink in
                XCTAssertEqual(isMarker("GSMutableString"), recovery == .atRaise, "\(recovery)")
                XCTAssertFalse(isMarker("NSMutableString"), "NSMutableString's own keeps its check-first trampoline")
                withAutoreleasePool {
                    let string = css_test_mutable_string("abc")
                    let x = css_test_mutable_string("X")
                    css_test_call_replace(string, 1, 1, x)
                    XCTAssertEqual(text(string), "aXc", "a valid call replaces")
                    for (location, length) in [(2, 5), (UInt.max, 2), (1 << 33, 0)] as [(UInt, UInt)] {
                        XCTAssertNil(
                            raised { css_test_call_replace(string, location, length, x) }, "{\(location), \(length)}")
                        XCTAssertEqual(text(string), "aXc", "{\(location), \(length)}: the string is untouched")
                    }
                    // Right after a marker call: the kept implementation raises as without CrashShield.
                    XCTAssertEqual(
                        raised {
                            css_test_call_replace_implementation(
                                unsafeBitCast(kept, to: UnsafeRawPointer.self), string, 5, 1, x)
                        },
                        "NSRangeException: in replaceCharactersInRange:withString:, range { 5, 1 } extends beyond size (3)"
                    )
                    XCTAssertEqual(
                        raised { css_test_call_replace(string, 0, 1, css_test_string_raising_in_length()) },
                        "NSRangeException: CSSRaisingString: length is out of range", "the argument's own failure")
                    XCTAssertEqual(
                        raised { css_test_call_replace(string, 0, 1, css_test_string_class()) },
                        "NSInvalidArgumentException: replace characters with non-string", "not a range failure")
                    XCTAssertEqual(text(string), "aXc")
                }
                CrashShield.flush()
                let seen = sink.reports.map {
                    "\($0.occurrences)x \($0.selector) \($0.className) \($0.exceptionName): \($0.reason)"
                }
                XCTAssertEqual(
                    seen,
                    [
                        "3x replaceCharactersInRange:withString: GSMutableString NSRangeException: in "
                            + "replaceCharactersInRange:withString:, range { 2, 5 } extends beyond size (3)"
                    ],
                    "\(recovery): one call site, GNUstep's text of its first call")
                for report in sink.reports {
                    let caller = report.callerFrameIndex.map { report.callStack[$0].symbol ?? "?" } ?? "none"
                    XCTAssertTrue(caller.contains("css_test_call_replace"), "\(recovery): caller \(caller)")
                    XCTAssertEqual(report.action, .recovered)
                }
            }
            XCTAssertFalse(isMarker("GSMutableString"), "stop() puts Foundation's method back")
        }
        #endif
    }

    /// The raise skips a frame only where its function's unwind table gives the call on the stack no landing pad:
    /// a call outside a cleanup's scope can be skipped, a call inside it cannot (the cleanup must run).
    func testTheRaiseSkipsOnlyCallsWithNothingToRun() throws {
        #if canImport(Darwin)
        throw XCTSkip("no raise hook on Apple platforms")
        #else
        var sites: [UInt] = [0, 0]
        css_test_cleanup_call_sites(&sites)
        XCTAssertTrue(csr_hot_raise_call_is_skippable(UInt(sites[0])), "outside the cleanup's scope")
        XCTAssertFalse(csr_hot_raise_call_is_skippable(UInt(sites[1])), "inside the cleanup's scope")
        #endif
    }

    func testTrampolinesFallBackHooksEveryHotRead() throws {
        let before = implementation("GSArray", objectAtIndex)
        let raiseBefore = implementation("NSException", raise)
        withShield(configuration(.trampolines)) { sink in
            XCTAssertNotEqual(implementation("GSArray", objectAtIndex), before, "the trampoline is installed")
            XCTAssertEqual(implementation("NSException", raise), raiseBefore, "no raise hook")
            withAutoreleasePool { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
            CrashShield.flush()
            XCTAssertEqual(sink.reports.map(\.selector), ["objectAtIndex:"])
        }
        XCTAssertEqual(implementation("GSArray", objectAtIndex), before)
    }

    func testDebugModeLetsGNUstepsExceptionGoOnUnchanged() throws {
        withShield(configuration(.atRaise, mode: .debug)) { sink in
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
        withShield(configuration(.atRaise)) { sink in
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

    /// 100,000 stopped calls in a loop: every one gets nil (0), in bounded time and memory, in both modes; for
    /// `objectAtIndex:` (unhooked at the raise) and `characterAtIndex:` (a marker).
    func testAStormOfStoppedCallsIsBoundedInTimeAndMemory() throws {
        let storm: UInt = 100_000
        let storms: [(name: String, guards: GuardCategory, run: (UInt) -> UInt)] = [
            ("objectAtIndex:", .container, { css_test_storm_objectAtIndex($0) }),
            ("characterAtIndex:", .string, { css_test_storm_characterAtIndex($0) }),
        ]
        for (name, guards, run) in storms {
            for recovery in HotReadRecovery.allCases {
                var configuration = configuration(recovery)
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
                        "hot-read storm, \(name) \(recovery): \(storm) stopped calls, \(String(format: "%.2f", seconds)) s "
                            + "CPU (\(String(format: "%.1f", seconds / Double(storm) * 1e6)) µs each), resident +\(grown / 1024) KiB"
                    )
                    XCTAssertEqual(stopped, storm, "\(name): every bad call got nil / 0")
                    XCTAssertLessThan(seconds, 10, "\(name) \(recovery)")
                    XCTAssertLessThan(grown, 16 << 20, "\(name) \(recovery): resident memory grew by \(grown) bytes")
                    CrashShield.flush()
                    XCTAssertEqual(sink.reports.first?.occurrences, Int(storm) + 1_000, name)
                    XCTAssertEqual(sink.reports.first?.selector, name)
                }
            }
        }
    }
}
