import XCTest
@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting

/// Zombies of app objects (CSSZombieTarget: 200 bytes, owns a CSSZombiePart, answers value 42), released and messaged
/// from Objective-C.
final class ZombieGuardTests: ShieldTestCase {
    private static let dealloc = ObjCSelector("dealloc")

    private func target(file: StaticString = #filePath, line: UInt = #line) throws -> CSRObject {
        try XCTUnwrap(css_object_new("CSSZombieTarget"), file: file, line: line)
    }

    private var targetSize: Int { csr_class_getInstanceSize(csr_class_lookup("CSSZombieTarget")) }

    private func configuration(
        _ mode: GuardMode = .release, _ options: ZombieOptions = ZombieOptions()
    ) -> Configuration {
        var configuration = Configuration(guards: .zombie, mode: mode)
        configuration.zombies = options
        return configuration
    }

    func testMessageToAZombieIsReportedAndAnswersNil() throws {
        var options = ZombieOptions()
        options.recordsDeallocationStack = true
        try withShield(configuration(.release, options)) { sink in
            let targetDeallocs = css_zombie_target_dealloc_count(), partDeallocs = css_zombie_part_dealloc_count()
            let object = try target()
            XCTAssertEqual(css_zombie_send_value(object), 42)
            css_object_release(object)
            XCTAssertEqual(css_zombie_target_dealloc_count(), targetDeallocs + 1, "the class's own -dealloc ran")
            XCTAssertEqual(css_zombie_part_dealloc_count(), partDeallocs + 1, "its instance variables were released")
            XCTAssertEqual(ZombiePool.shared.usage.count, 2, "the target and its part (also an app object)")
            XCTAssertEqual(css_zombie_send_value(object), 0, "a zombie answers 0")
            XCTAssertEqual(css_zombie_send_value(object), 0)
            CrashShield.flush()
            let reports = sink.reports(in: .zombie)
            XCTAssertEqual(reports.count, 1)
            let report = try XCTUnwrap(reports.first)
            XCTAssertEqual(report.className, "CSSZombieTarget", "the report names the original class")
            XCTAssertEqual(report.selector, "value")
            XCTAssertEqual(report.exceptionName, "SIGSEGV")
            XCTAssertEqual(report.action, .recovered)
            XCTAssertEqual(report.occurrences, 2)
            XCTAssertTrue(report.thread.isMain)
            XCTAssertTrue(
                report.reason.hasPrefix("*** -[CSSZombieTarget value]: message sent to deallocated instance 0x"))
            XCTAssertEqual(report.details["address"], "0x" + String(UInt(bitPattern: object), radix: 16))
            XCTAssertNotNil(report.details["deallocatedAt"], "where the object was deallocated")
            XCTAssertNotNil(report.callerFrame)
            XCTAssertEqual(ZombiePool.shared.usage.count, 2, "messages do not free the zombie")
        }
        XCTAssertEqual(ZombiePool.shared.usage.count, 0, "stop() frees every zombie")
    }

    /// A message whose answer is a struct returned in memory: on x86_64 its first argument is the answer's address and
    /// self and _cmd come one register later (objc_msgSend_stret on Apple's simulators and Intel Macs; GCC's libobjc
    /// calls the IMP so here). The zombie still names the receiver's class and the selector.
    func testStructReturningMessageToAZombieIsReportedWithItsSelector() throws {
        try withShield(configuration()) { sink in
            let object = try target()
            XCTAssertEqual(css_zombie_send_frame(object), 10)
            css_object_release(object)
            _ = css_zombie_send_frame(object)  // unspecified answer; must not crash nor misname the call
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .zombie).first)
            XCTAssertEqual(sink.reports(in: .zombie).count, 1)
            XCTAssertEqual(report.className, "CSSZombieTarget")
            XCTAssertEqual(report.selector, "frame")
            XCTAssertEqual(report.details["address"], "0x" + String(UInt(bitPattern: object), radix: 16))
        }
    }

    func testEverySelectorIsCaughtIncludingMemoryManagement() throws {
        try withShield(configuration()) { sink in
            let object = try target()
            css_object_release(object)
            css_zombie_send_release(object)  // an over-release
            XCTAssertEqual(String(cString: css_zombie_send_description(object)), "nil")
            XCTAssertEqual(Set(sink.reports(in: .zombie).map(\.selector)), ["release", "description"])
        }
    }

    func testDebugModeReportsThenFailsLoudly() throws {
        try withShield(configuration(.debug)) { sink in
            let object = try target()
            css_object_release(object)
            let raised = catchingObjCException { _ = css_zombie_send_value(object) }
            XCTAssertEqual(raised?.name, "NSInternalInconsistencyException")
            XCTAssertTrue(
                raised?.reason.contains("-[CSSZombieTarget value]: message sent to deallocated instance") ?? false,
                raised?.reason ?? "nothing raised")
            XCTAssertEqual(sink.reports(in: .zombie).first?.action, .failedLoudly)
        }
    }

    func testOnlyConfiguredClassesBecomeZombies() throws {
        var options = ZombieOptions()
        options.classNames = ["CSSZombiePart"]
        try withShield(configuration(.release, options)) { _ in
            let filter = ZombieClassFilter.shared
            XCTAssertTrue(filter.isProtected(csr_class_lookup("CSSZombiePart")))
            XCTAssertFalse(filter.isProtected(csr_class_lookup("CSSZombieTarget")), "not listed")
            XCTAssertFalse(filter.isProtected(csr_class_lookup("NSObject")))
            XCTAssertFalse(filter.isProtected(csr_class_lookup("CSRZombie")), "CrashShield's own classes never")
            let object = try target()  // owns one part
            css_object_release(object)
            XCTAssertEqual(ZombiePool.shared.usage.count, 1, "only the part is kept")
        }
        // Default: the app's own classes, never system classes; prefixes select by name.
        withShield(configuration()) { _ in
            let filter = ZombieClassFilter.shared
            XCTAssertTrue(filter.isProtected(csr_class_lookup("CSSZombieTarget")))
            XCTAssertTrue(filter.isProtected(csr_class_lookup("CSSTrackedObject")))
            for system in ["NSObject", "NSString", "NSMutableArray", "GSMutableArray", "NSThread"] {
                if let cls = csr_class_lookup(system) { XCTAssertFalse(filter.isProtected(cls), system) }
            }
        }
        var prefixed = configuration()
        prefixed.protectedClassPrefixes = ["CSSTracked"]
        withShield(prefixed) { _ in
            XCTAssertTrue(ZombieClassFilter.shared.isProtected(csr_class_lookup("CSSTrackedChild")))
            XCTAssertFalse(ZombieClassFilter.shared.isProtected(csr_class_lookup("CSSZombieTarget")))
        }
        var excluded = configuration()
        excluded.excludedClassNames = ["CSSZombieTarget"]
        withShield(excluded) { _ in
            XCTAssertFalse(ZombieClassFilter.shared.isProtected(csr_class_lookup("CSSZombieTarget")))
        }
    }

    func testUnprotectedObjectsAreFreedAsUsual() throws {
        try withShield(configuration()) { _ in
            let before = css_dealloc_count("CSSUnwatchedObject")
            withAutoreleasePool {
                for _ in 0..<100 {
                    let string = csr_string_create("not an app object")  // autoreleased NSString
                    XCTAssertNotNil(string)
                }
            }
            XCTAssertEqual(ZombiePool.shared.usage.count, 0, "system objects are never kept")
            let object = try XCTUnwrap(css_object_new("CSSUnwatchedObject"))  // an app class: kept
            css_object_release(object)
            XCTAssertEqual(css_dealloc_count("CSSUnwatchedObject"), before + 1)
            XCTAssertEqual(ZombiePool.shared.usage.count, 1)
        }
    }

    func testCountBoundIsHonouredExactlyOldestFreedFirst() throws {
        var options = ZombieOptions()
        options.maxCount = 5
        try withShield(configuration(.release, options)) { sink in
            var objects: [CSRObject] = []
            for _ in 0..<20 {
                let object = try target()
                objects.append(object)
                css_object_release(object)
                XCTAssertLessThanOrEqual(ZombiePool.shared.usage.count, 5)
            }
            // Parts are app objects too: each target keeps its part as a zombie, 2 zombies per target.
            let usage = ZombiePool.shared.usage
            XCTAssertEqual(usage.count, 5)
            XCTAssertEqual(usage.evicted, 35)
            // The newest target is still a zombie; older ones were freed for real and are never touched again.
            XCTAssertEqual(css_zombie_send_value(objects.last!), 0)
            XCTAssertEqual(sink.reports(in: .zombie).count, 1)
        }
    }

    func testByteBoundIsHonouredExactly() throws {
        var options = ZombieOptions()
        options.classNames = ["CSSZombieTarget"]  // parts are freed at once
        options.maxBytes = 3 * targetSize + targetSize / 2
        try withShield(configuration(.release, options)) { _ in
            for _ in 0..<10 {
                css_object_release(try target())
                XCTAssertLessThanOrEqual(ZombiePool.shared.usage.bytes, options.maxBytes)
            }
            XCTAssertEqual(ZombiePool.shared.usage.count, 3)
            XCTAssertEqual(ZombiePool.shared.usage.bytes, 3 * targetSize)
        }
    }

    func testObjectsLargerThanTheLimitAreFreedAtOnce() throws {
        var options = ZombieOptions()
        options.classNames = ["CSSZombieTarget"]
        options.maxObjectSize = targetSize - 1
        try withShield(configuration(.release, options)) { _ in
            css_object_release(try target())
            XCTAssertEqual(ZombiePool.shared.usage.count, 0)
        }
    }

    func testValidUseIsUnchanged() throws {
        func run() throws -> [Int] {
            let targetDeallocs = css_zombie_target_dealloc_count(), partDeallocs = css_zombie_part_dealloc_count()
            var results: [Int] = []
            for _ in 0..<10 {
                let object = try target()
                results.append(css_zombie_send_value(object))
                css_object_release(object)
            }
            results.append(css_zombie_target_dealloc_count() - targetDeallocs)
            results.append(css_zombie_part_dealloc_count() - partDeallocs)
            return results
        }
        let unguarded = try run()
        var guarded: [Int] = []
        try withShield(configuration()) { sink in
            guarded = try run()
            XCTAssertTrue(sink.reports.isEmpty)
        }
        XCTAssertEqual(guarded, unguarded)
        XCTAssertEqual(unguarded, Array(repeating: 42, count: 10) + [10, 10])
    }

    func testConcurrentDeallocationsKeepTheBound() throws {
        var options = ZombieOptions()
        options.maxCount = 100
        withShield(configuration(.release, options)) { sink in
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<2_000 {
                    guard let object = css_object_new("CSSZombieTarget") else { continue }
                    css_object_release(object)
                }
            }
            XCTAssertEqual(ZombiePool.shared.usage.count, 100)
            XCTAssertEqual(ZombiePool.shared.usage.evicted, 16_000 - 100)
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    /// A dealloc watcher registration whose hook the zombie replacement would skip (its hook below ours on
    /// NSObject) still gets its cleanup; and watcher hooks on the class chain with the zombie guard on.
    func testWorksWithSideStorageAndTheDeallocWatcher() throws {
        final class Observer: DeallocObserver {
            let calls = Locked<[UInt]>([])
            func objectWillDeallocate(_ object: CSRObject) { calls.withLock { $0.append(UInt(bitPattern: object)) } }
        }
        try withShield(configuration()) { sink in
            // 1. A side table on the zombie's class: the watcher hooks CSSZombieTarget's -dealloc, above ours.
            let handled = Locked<[Int]>([])
            let table = SideStorage<Int> { _, value in handled.withLock { $0.append(value) } }
            let object = try target()
            table[object] = 7
            XCTAssertEqual(DeallocWatcher.shared.isHooked(csr_class_lookup("CSSZombieTarget")), true)
            css_object_release(object)
            XCTAssertEqual(handled.current, [7], "the side table was cleaned up once")
            XCTAssertEqual(table.count, 0)
            XCTAssertEqual(css_zombie_send_value(object), 0)
            XCTAssertEqual(sink.reports(in: .zombie).count, 1)
            // 2. A registration whose hook does not run (as if it sat below the zombie replacement).
            let observer = Observer()
            let other = try XCTUnwrap(css_object_new("CSSZombiePart"))
            DeallocWatcher.shared.watch(UInt(bitPattern: other), by: observer)
            css_object_release(other)
            XCTAssertEqual(observer.calls.current, [UInt(bitPattern: other)], "the zombie guard ran the cleanup")
        }
        // Both hooks on one chain, after stop: the watcher's hook stays, the zombie guard's is gone.
        let object = try target()
        let handled = Locked<Int>(0)
        let table = SideStorage<Int> { _, _ in handled.withLock { $0 += 1 } }
        table[object] = 1
        css_object_release(object)
        XCTAssertEqual(handled.current, 1)
        XCTAssertEqual(ZombiePool.shared.usage.count, 0)
    }

    func testStopRevertsTheHookAndTheKillSwitchFreesZombies() throws {
        let nsobject = try XCTUnwrap(csr_class_lookup("NSObject"))
        let before = csr_class_methodImplementation(nsobject, Self.dealloc.pointer)
        try withShield(configuration()) { _ in
            XCTAssertTrue(HookEngine.shared.activeHooks.contains { $0.point === ZombieGuard.deallocPoint })
            css_object_release(try target())
            XCTAssertEqual(ZombiePool.shared.usage.count, 2)
            try CrashShield.setGuard(.zombie, enabled: false)
            XCTAssertEqual(ZombiePool.shared.usage.count, 0, "switching the guard off frees every zombie")
            css_object_release(try target())
            XCTAssertEqual(ZombiePool.shared.usage.count, 0)
            try CrashShield.setGuard(.zombie, enabled: true)
            css_object_release(try target())
            XCTAssertEqual(ZombiePool.shared.usage.count, 2)
        }
        XCTAssertEqual(ZombiePool.shared.usage.count, 0)
        XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.point === ZombieGuard.deallocPoint })
        let after = csr_class_methodImplementation(nsobject, Self.dealloc.pointer)
        XCTAssertEqual(unsafeBitCast(before, to: Int.self), unsafeBitCast(after, to: Int.self))
    }

    func testIsOptIn() {
        XCTAssertFalse(GuardCategory.productionSafe.contains(.zombie))
        XCTAssertTrue(CrashShield.availableGuards.contains(.zombie))
        XCTAssertThrowsError(
            try Configuration(guards: .zombie, excludedClassNames: []).with {
                $0.zombies.classNames = ["NoSuchClass"]
            }.validate())
    }
}

private extension Configuration {
    func with(_ change: (inout Configuration) -> Void) -> Configuration {
        var copy = self
        change(&copy)
        return copy
    }
}
