@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import XCTest

/// The container guard in this process: safe values, reports, modes, deny list, kill switch, storms, and valid calls
/// unchanged. (Crash-then-survive in child processes is the crash matrix's job.)
final class ContainerGuardTests: ShieldTestCase {
    private func validCallsText() -> String {
        var text = ""
        withAutoreleasePool { text = String(cString: css_valid_container_calls()) }
        return text
    }

    func testValidCallsGiveIdenticalResultsGuardedAndUnguarded() throws {
        let unguarded = validCallsText()
        XCTAssertTrue(unguarded.contains("mutations="), unguarded)
        withShield { sink in
            XCTAssertEqual(validCallsText(), unguarded)
            XCTAssertEqual(sink.reports.count, 0, "valid calls must not report: \(sink.reports.map(\.method))")
        }
        XCTAssertEqual(validCallsText(), unguarded)
    }

    /// Indexes at count, count + 1, 2^32 and above, NSNotFound; nil index sets and objects: what GNUstep accepts
    /// (it truncates ordered-set indexes to 32 bits, inserts through a nil index set) reaches it unchanged; what it
    /// raises for is recovered with the receiver untouched and one report naming its exception.
    func testIndexEdgesBehaveAsFoundationWithEveryGuardOn() throws {
        let calls = try assertProbesBehaveAsFoundation(
            Probe.all("array.", "mutableArray.", "orderedSet.", "mutableOrderedSet."))
        XCTAssertGreaterThan(calls, 380)
    }

    // MARK: Ranges whose end passes 2^64 ({i, UInt.max}, {UInt.max, i}, {2^63 + i, 2^63}; i from 0 past count)

    func testOverflowingRangesSubarrayWithRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("array.subarrayWithRange:")
    }

    func testOverflowingRangesGetObjectsRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("array.getObjects:range:", "mutableArray.getObjects:range:")
    }

    /// Issue 32: unguarded before; GS_RANGE_CHECK rejects every wrapping end, and so does the guard.
    func testOverflowingRangesIndexOfObjectInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "array.indexOfObject:inRange:", "mutableArray.indexOfObjectIdenticalTo:inRange:")
    }

    func testOverflowingRangesOrderedSetGetObjectsRange() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "orderedSet.getObjects:range:", "mutableOrderedSet.getObjects:range:")
    }

    func testOverflowingRangesRemoveObjectsInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableArray.removeObjectsInRange:")
    }

    /// GNUstep's check wraps: a range whose end wraps within the array passes it and fails in removeObjectsInRange:.
    func testOverflowingRangesReplaceObjectsInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableArray.replaceObjectsInRange:withObjectsFromArray:")
    }

    func testOverflowingRangesSubdataWithRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("data.subdataWithRange:", "mutableData.subdataWithRange:")
    }

    func testOverflowingRangesGetBytesRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("data.getBytes:range:", "mutableData.getBytes:range:")
    }

    /// GNUstep checks the range before the data: with both bad, the range exception is Foundation's.
    func testOverflowingRangesRangeOfData() throws {
        try assertOverflowingRangesBehaveAsFoundation(
            "data.rangeOfData:options:range:", "data.rangeOfData:nil options:range:")
    }

    func testOverflowingRangesResetBytesInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableData.resetBytesInRange:")
    }

    /// Only a location past the end is made here: GNUstep copies past its buffer for an end past 2^64 (the crash
    /// matrix's mutableData.replaceBytes.endPast2e64, and `testReplaceBytesWhoseEndPasses2e64IsStopped`).
    func testOverflowingRangesReplaceBytesInRange() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableData.replaceBytesInRange:withBytes:")
    }

    /// GNUstep accepts an end that wraps (to at most the location) and stays within its buffer.
    func testOverflowingRangesReplaceBytesInRangeLength() throws {
        try assertOverflowingRangesBehaveAsFoundation("mutableData.replaceBytesInRange:withBytes:length:")
    }

    /// GNUstep's replacements write past the data's buffer for an end past 2^64 (`replaceBytesInRange:withBytes:`)
    /// and any end past the end (`...withBytes:length:`): stopped, the data untouched, reported with the signal.
    func testDataReplacementsThatWritePastTheBufferAreStopped() throws {
        #if !canImport(Darwin)
        let scenarios = ["mutableData.replaceBytes.endPast2e64", "mutableData.replaceBytesLength.endPastEnd"]
        try assertScenariosRecover(scenarios.map { try XCTUnwrap(CatalogScenario.named($0)) }, guards: .container)
        #endif
    }

    func testOutOfRangeReadReturnsNilAndReportsTheCallSite() throws {
        try withShield { sink in
            withAutoreleasePool {
                XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5))
            }
            let report = try XCTUnwrap(sink.reports.first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.category, .container)
            XCTAssertEqual(report.selector, "objectAtIndex:")
            XCTAssertEqual(report.exceptionName, "NSRangeException")
            XCTAssertEqual(report.action, .recovered)
            XCTAssertFalse(report.isClassMethod)
            XCTAssertTrue(report.className.contains("Array"), report.className)
            XCTAssertEqual(
                report.callerFrame?.symbol, "css_test_call_objectAtIndex",
                "the caller is the app function that made the bad call")
            XCTAssertTrue(report.thread.isMain || report.thread.id > 0)
            XCTAssertFalse(report.hint.isEmpty)
            XCTAssertEqual(report.occurrences, 1)
        }
    }

    /// `arrayByAddingObject:nil`'s recovery answers the receiver's copy at +0, as the method's own answer is: an
    /// immutable array's copy is the array retained, so a copy handed out at +1 would leave its count higher.
    func testArrayByAddingNilRecoveryLeaksNothing() throws {
        try withShield(Configuration(guards: .container)) { sink in
            XCTAssertEqual(css_array_adding_nil_retain_growth(50), 0, "one array leaked per stopped call")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .container).first)
            XCTAssertEqual(report.selector, "arrayByAddingObject:")
            XCTAssertEqual(report.action, .recovered)
        }
    }

    func testDebugModeReportsThenFailsLikeTheOriginalForAppCode() throws {
        withShield(Configuration(guards: .container, mode: .debug)) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertEqual(sink.reports.first?.action, .failedLoudly, "the report is delivered before the failure")
            XCTAssertEqual(
                sink.reports.first?.reason, raised?.reason, "the report names exactly what Foundation raised")
        }
    }

    /// Also where GNUstep's implementation calls other guarded methods (`insertObjects:atIndexes:` calls
    /// `insertObject:atIndex:`) or the app calls a convenience constructor: one report, and the failure is loud.
    func testDebugModeFailsLikeFoundationOnceForEveryScenario() throws {
        let scenarios = CatalogScenario.all(category: "container").filter { !$0.exception.hasPrefix("SIG") }  // they kill the process
        XCTAssertGreaterThan(scenarios.count, 50)
        for scenario in scenarios {
            try assertDebugModeFailsLikeFoundation(scenario, guards: .container)
        }
    }

    func testDebugModeRecoversForCallsFromSystemCode() throws {
        // A call whose caller lives in a system image (here: every image counts as a system image).
        withShield(Configuration(guards: .container, mode: .debug, isAppImage: { _ in false })) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
            }
            XCTAssertNil(raised)
            XCTAssertEqual(sink.reports.first?.action, .recovered)
        }
    }

    func testDenyListedClassesBehaveAsWithoutCrashShield() throws {
        withShield(Configuration(guards: .container, excludedClassNames: ["NSArray"])) { sink in
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            }
            XCTAssertEqual(raised?.name, "NSRangeException")
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testKillSwitchRevertsAndReinstallsAtRunTime() throws {
        try withShield(Configuration(guards: .container)) { sink in
            XCTAssertNoThrow(try CrashShield.setGuard(.container, enabled: false))
            XCTAssertFalse(CrashShield.activeGuards.contains(.container))
            var raised: (name: String, reason: String)?
            withAutoreleasePool {
                raised = catchingObjCException { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            }
            XCTAssertEqual(raised?.name, "NSRangeException", "switched off: the original behaviour")
            XCTAssertNoThrow(try CrashShield.setGuard(.container, enabled: true))
            withAutoreleasePool { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
            XCTAssertEqual(sink.reports.count, 1)
        }
    }

    func testCrashStormStaysBoundedAndCounted() throws {
        let storm: UInt = 200_000
        withShield(Configuration(guards: .container, limits: ReportLimits(maxDistinctReports: 8))) { sink in
            // CPU time of this thread, not wall time: the bound is about CrashShield's work, and a loaded machine
            // (CI neighbours) stretches wall time two- to threefold.
            let start = threadCPUSeconds()
            XCTAssertEqual(css_test_storm_objectAtIndex(storm), storm, "every bad call got nil")
            let seconds = threadCPUSeconds() - start
            CrashShield.flush()
            XCTAssertEqual(sink.reports.count, 1, "one call site, one report")
            XCTAssertEqual(sink.reports.first?.occurrences, Int(storm), "every occurrence counted")
            XCTAssertLessThan(sink.deliveryCount, 10, "sinks see 1, 10, 100, ... and the flush, not every occurrence")
            // Each bad `objectAtIndex:` is an exception raised and caught in the trampoline (about 13 µs optimized and
            // idle, up to 100 µs debug and loaded): the bound holds the storm linear, not the raise's cost.
            XCTAssertLessThan(seconds, 40, "a storm of \(storm) bad calls took \(seconds)s of CPU")
        }
    }

    func testStartAndStopWhileOtherThreadsCallThroughTheHooks() throws {
        let calls: UInt = 60_000
        let group = DispatchGroup()
        let correct = Locked<UInt>(0)
        for _ in 0..<3 {
            DispatchQueue.global().async(group: group) {
                let right = css_test_mixed_calls(calls)
                correct.withLock { $0 += right }
            }
        }
        for round in 0..<40 {
            try CrashShield.start(Configuration(guards: .container))
            if round % 2 == 0 { try CrashShield.setGuard(.container, enabled: false) }
            CrashShield.stop()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(correct.current, 3 * calls, "every valid call returned the right object throughout")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { $0.point.selector.name == "objectAtIndex:" }.isEmpty)
    }

    func testStopRestoresEveryOriginalImplementation() throws {
        let arrays = try XCTUnwrap(ClassFamily("NSArray", "NSMutableArray"))
        let selectors: [ObjCSelector] = [
            "objectAtIndex:", "addObject:", "initWithObjects:count:", "removeObjectsInRange:",
        ]
        func implementations() -> [Int] {
            arrays.members.flatMap { cls in
                selectors.map { unsafeBitCast(csr_class_methodImplementation(cls.pointer, $0.pointer), to: Int.self) }
            }
        }
        let before = implementations()
        try CrashShield.start(Configuration(guards: .container))
        XCTAssertNotEqual(implementations(), before)
        CrashShield.stop()
        XCTAssertEqual(implementations(), before, "nothing of CrashShield stays installed after stop")
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { $0.point.selector.name == "objectAtIndex:" }.isEmpty)
    }
}
