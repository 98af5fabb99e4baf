import XCTest
import Dispatch
@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios

/// Side storage on real Objective-C objects, created and released from Objective-C (CrashShieldScenarios' tracked
/// classes; no Foundation class is hooked here).
final class SideStorageTests: XCTestCase {
    private static let dealloc = ObjCSelector("dealloc")

    private func newObject(_ className: String, file: StaticString = #filePath, line: UInt = #line) throws -> CSRObject
    {
        try XCTUnwrap(css_object_new(className), "no class \(className)", file: file, line: line)
    }

    private func deallocIMP(_ className: String) -> UInt {
        guard let cls = csr_class_lookup(className), let imp = csr_class_methodImplementation(cls, Self.dealloc.pointer)
        else { return 0 }
        return UInt(bitPattern: unsafeBitCast(imp, to: Int.self))
    }

    private func deallocHooks(on className: String) -> [Hook] {
        HookEngine.shared.activeHooks.filter { $0.selector == Self.dealloc && $0.targetClass.name == className }
    }

    /// Records `onDeallocate` calls: value, class name read from the dying object, address.
    private final class Calls<Value>: @unchecked Sendable {
        let calls = Locked<[(value: Value, className: String, address: UInt)]>([])
        func record(_ object: CSRObject, _ value: Value) {
            let name = String(cString: csr_class_getName(csr_object_getClass(object)))
            calls.withLock { $0.append((value, name, UInt(bitPattern: object))) }
        }
        var count: Int { calls.current.count }
    }

    /// An object whose class frees it by its own -release, without -dealloc (Apple's toll-free-bridged objects:
    /// CF's `_CFRelease`): a -dealloc hook never sees it go, so nothing is stored for it; an entry would outlive it
    /// and pass to the next object at its address.
    func testObjectsFreedWithoutDeallocAreNotWatched() throws {
        let table = SideStorage<Int>()
        guard let object = css_object_new("CSSSelfFreeingObject") else {
            throw XCTSkip("CSSSelfFreeingObject overrides -release: manual reference counting only")
        }
        XCTAssertThrowsError(try table.setValue(1, for: object)) {
            XCTAssertEqual($0 as? HookError, .noDealloc(class: "CSSSelfFreeingObject"))
        }
        let tracked = css_dealloc_count("CSSTrackedObject")
        css_object_release(object)  // freed by its -release: CSSTrackedObject's -dealloc never runs
        XCTAssertEqual(css_dealloc_count("CSSTrackedObject"), tracked, "the fixture frees without -dealloc")
        XCTAssertNil(table[object], "no entry outlives the object")
        XCTAssertEqual(table.count, 0)
        // Its superclass, whose -release is NSObject's, is watched as before.
        let live = try newObject("CSSTrackedObject")
        XCTAssertNoThrow(try table.setValue(2, for: live))
        css_object_release(live)
        XCTAssertEqual(table.count, 0)
    }

    func testStoresReadsReplacesAndRemoves() throws {
        let calls = Calls<Int>()
        let table = SideStorage<Int>(onDeallocate: calls.record)
        let object = try newObject("CSSTrackedObject")
        XCTAssertNil(table[object])
        table[object] = 42
        XCTAssertEqual(table[object], 42)
        XCTAssertEqual(table.count, 1)
        table[object] = 7
        XCTAssertEqual(table[object], 7)
        XCTAssertEqual(table.count, 1)
        XCTAssertEqual(table.removeValue(for: object), 7)
        XCTAssertNil(table.removeValue(for: object))
        XCTAssertEqual(table.count, 0)
        table[object] = 1
        table[object] = nil
        XCTAssertNil(table[object])
        css_object_release(object)
        XCTAssertEqual(calls.count, 0, "a removed value is not reported at dealloc")
    }

    func testDeallocationRemovesValueAndCallsHandlerOnceBeforeMemoryIsFreed() throws {
        let calls = Calls<String>()
        let table = SideStorage<String>(onDeallocate: calls.record)
        let object = try newObject("CSSTrackedObject")
        let address = UInt(bitPattern: object)
        let deallocsBefore = css_dealloc_count("CSSTrackedObject")
        table[object] = "payload"
        XCTAssertEqual(table.count, 1)
        css_object_release(object)
        XCTAssertEqual(table.count, 0)
        let recorded = calls.calls.current
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.value, "payload")
        XCTAssertEqual(recorded.first?.className, "CSSTrackedObject", "the handler can still read the object's class")
        XCTAssertEqual(recorded.first?.address, address)
        XCTAssertEqual(css_dealloc_count("CSSTrackedObject"), deallocsBefore + 1, "the original -dealloc ran once")
        XCTAssertFalse(deallocHooks(on: "CSSTrackedObject").isEmpty)
    }

    func testOtherClassesAreNotHooked() throws {
        let nsobjectBefore = deallocIMP("NSObject")
        let unwatchedBefore = deallocIMP("CSSUnwatchedObject")
        let table = SideStorage<Int>()
        let watched = try newObject("CSSTrackedObject")
        table[watched] = 1
        let other = try newObject("CSSUnwatchedObject")
        XCTAssertNil(table[other])
        XCTAssertEqual(deallocIMP("NSObject"), nsobjectBefore, "NSObject's -dealloc is never hooked")
        XCTAssertEqual(deallocIMP("CSSUnwatchedObject"), unwatchedBefore, "an unwatched class keeps its -dealloc")
        XCTAssertTrue(deallocHooks(on: "NSObject").isEmpty)
        XCTAssertTrue(deallocHooks(on: "CSSUnwatchedObject").isEmpty)
        XCTAssertEqual(deallocHooks(on: "CSSTrackedObject").count, 1)
        let unwatchedDeallocs = css_dealloc_count("CSSUnwatchedObject")
        css_object_release(other)
        XCTAssertEqual(css_dealloc_count("CSSUnwatchedObject"), unwatchedDeallocs + 1)
        css_object_release(watched)
        XCTAssertEqual(table.count, 0)
    }

    func testClassThatInheritsDeallocGetsAnOverride() throws {
        let nsobjectBefore = deallocIMP("NSObject")
        let calls = Calls<Int>()
        let table = SideStorage<Int>(onDeallocate: calls.record)
        let object = try newObject("CSSInheritingObject")
        table[object] = 5
        let hooks = deallocHooks(on: "CSSInheritingObject")
        XCTAssertEqual(hooks.count, 1)
        XCTAssertEqual(hooks.first?.origin, .addedOverride)
        XCTAssertEqual(deallocIMP("NSObject"), nsobjectBefore)
        css_object_release(object)
        XCTAssertEqual(calls.calls.current.map(\.value), [5])
        XCTAssertEqual(table.count, 0)
    }

    func testTwoTablesOnOneObjectBothCleanUp() throws {
        let first = Calls<Int>(), second = Calls<String>()
        let numbers = SideStorage<Int>(onDeallocate: first.record)
        let names = SideStorage<String>(onDeallocate: second.record)
        let object = try newObject("CSSTrackedObject")
        let kept = try newObject("CSSTrackedObject")
        numbers[object] = 1
        names[object] = "one"
        names[kept] = "kept"
        css_object_release(object)
        XCTAssertEqual(first.calls.current.map(\.value), [1])
        XCTAssertEqual(second.calls.current.map(\.value), ["one"])
        XCTAssertEqual(numbers.count, 0)
        XCTAssertEqual(names.count, 1)
        XCTAssertEqual(names[kept], "kept")
        css_object_release(kept)
        XCTAssertEqual(names.count, 0)
        XCTAssertEqual(second.calls.current.map(\.value), ["one", "kept"])
    }

    func testTableGoingAwayFirstIsHarmless() throws {
        let object = try newObject("CSSTrackedObject")
        do {
            let table = SideStorage<Int>(onDeallocate: { _, _ in XCTFail("a dead table is not called") })
            table[object] = 1
        }
        css_object_release(object)
    }

    func testReusedAddressHasNoValue() throws {
        let table = SideStorage<Int>()
        let object = try newObject("CSSReuseObject")
        let address = UInt(bitPattern: object)
        table[object] = 99
        css_object_release(object)
        var held: [CSRObject] = []
        defer { held.forEach { css_object_release($0) } }
        var reused = false
        for _ in 0..<1000 {
            let candidate = try newObject("CSSReuseObject")
            XCTAssertNil(table[candidate])
            held.append(candidate)
            if UInt(bitPattern: candidate) == address { reused = true; break }
        }
        XCTAssertTrue(reused, "the allocator did not reuse the address in 1000 tries (test inconclusive)")
        XCTAssertEqual(table.count, 0)
    }

    func testConcurrentStoreRemoveRelease() throws {
        let deallocated = Calls<Int>()
        let table = SideStorage<Int>(onDeallocate: deallocated.record)
        let other = SideStorage<String>()
        let threads = 8, iterations = 2000
        let expectedReports = Locked(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var kept: [CSRObject] = []
            var reports = 0
            for index in 0..<iterations {
                guard let object = css_object_new("CSSConcurrentObject") else { return }
                let value = thread * iterations + index
                table[object] = value
                if index % 2 == 0 { other[object] = "v\(value)" }
                XCTAssertEqual(table[object], value)
                if index % 3 == 0 { table[object] = nil } else { reports += 1 }
                if index % 5 == 0 {
                    kept.append(object)  // released later, in a batch
                } else {
                    css_object_release(object)
                }
                if kept.count > 16 { kept.forEach { css_object_release($0) }; kept.removeAll() }
            }
            kept.forEach { css_object_release($0) }
            expectedReports.withLock { $0 += reports }
        }
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(other.count, 0)
        XCTAssertEqual(deallocated.count, expectedReports.current)
        XCTAssertEqual(Set(deallocated.calls.current.map(\.value)).count, deallocated.count, "each value once")
    }

    func testSubclassOfWatchedClassCleansUp() throws {
        let calls = Calls<Int>()
        let table = SideStorage<Int>(onDeallocate: calls.record)
        let parent = try newObject("CSSTrackedObject")
        table[parent] = 1  // hooks CSSTrackedObject
        let child = try newObject("CSSTrackedChild")
        table[child] = 2
        XCTAssertTrue(
            deallocHooks(on: "CSSTrackedChild").isEmpty, "the subclass inherits the hook through [super dealloc]")
        let childDeallocs = css_dealloc_count("CSSTrackedChild"), parentDeallocs = css_dealloc_count("CSSTrackedObject")
        css_object_release(child)
        XCTAssertEqual(calls.calls.current.map(\.value), [2])
        XCTAssertEqual(calls.calls.current.first?.className, "CSSTrackedChild")
        XCTAssertEqual(css_dealloc_count("CSSTrackedChild"), childDeallocs + 1)
        XCTAssertEqual(css_dealloc_count("CSSTrackedObject"), parentDeallocs + 1)
        css_object_release(parent)
        XCTAssertEqual(calls.calls.current.map(\.value), [2, 1])
        XCTAssertEqual(table.count, 0)
    }

    func testSubclassCreatedAtRunTimeCleansUp() throws {
        let calls = Calls<Int>()
        let table = SideStorage<Int>(onDeallocate: calls.record)
        let parent = try newObject("CSSTrackedObject")
        table[parent] = 1
        XCTAssertTrue(css_make_subclass("CSSTrackedObject", "CSSRuntimeTrackedSubclass"))
        let object = try newObject("CSSRuntimeTrackedSubclass")
        table[object] = 3
        let parentDeallocs = css_dealloc_count("CSSTrackedObject")
        css_object_release(object)
        XCTAssertEqual(calls.calls.current.map(\.value), [3])
        XCTAssertEqual(calls.calls.current.first?.className, "CSSRuntimeTrackedSubclass")
        XCTAssertEqual(css_dealloc_count("CSSTrackedObject"), parentDeallocs + 1)
        css_object_release(parent)
        XCTAssertEqual(table.count, 0)
    }

    /// The subclass is hooked first, then its superclass: one dealloc chain reaches the hook twice.
    func testSubclassHookedBeforeItsSuperclass() throws {
        let calls = Calls<String>()
        let table = SideStorage<String>(onDeallocate: calls.record)
        let derived = try newObject("CSSNestDerived")
        table[derived] = "derived"
        let base = try newObject("CSSNestBase")
        table[base] = "base"
        XCTAssertEqual(deallocHooks(on: "CSSNestDerived").count, 1)
        XCTAssertEqual(deallocHooks(on: "CSSNestBase").count, 1)
        let derivedDeallocs = css_dealloc_count("CSSNestDerived"), baseDeallocs = css_dealloc_count("CSSNestBase")
        css_object_release(derived)
        XCTAssertEqual(calls.calls.current.map(\.value), ["derived"])
        XCTAssertEqual(css_dealloc_count("CSSNestDerived"), derivedDeallocs + 1)
        XCTAssertEqual(css_dealloc_count("CSSNestBase"), baseDeallocs + 1, "each -dealloc runs exactly once")
        css_object_release(base)
        XCTAssertEqual(calls.calls.current.map(\.value), ["derived", "base"])
        XCTAssertEqual(css_dealloc_count("CSSNestDerived"), derivedDeallocs + 1)
        XCTAssertEqual(css_dealloc_count("CSSNestBase"), baseDeallocs + 2)
        // A fresh derived object after both are hooked.
        let again = try newObject("CSSNestDerived")
        table[again] = "again"
        css_object_release(again)
        XCTAssertEqual(calls.calls.current.map(\.value), ["derived", "base", "again"])
        XCTAssertEqual(css_dealloc_count("CSSNestBase"), baseDeallocs + 3)
        XCTAssertEqual(table.count, 0)
    }
}

/// Key-value observing swaps an object's class for a subclass made at run time (isa-swizzling).
final class SideStorageKVOTests: XCTestCase {
    func testObjectObservedAfterItGotAValue() throws {
        var recorded: [(Int, String)] = []
        let table = SideStorage<Int>(onDeallocate: { object, value in
            recorded.append((value, String(cString: csr_class_getName(csr_object_getClass(object)))))
        })
        let object = try XCTUnwrap(css_object_new("CSSObservedObject"))
        table[object] = 10
        let observedClass = String(cString: css_kvo_observe(object))
        print("KVO class while observed: \(observedClass)")
        XCTAssertEqual(table[object], 10)
        css_kvo_unobserve(object)
        css_object_release(object)
        XCTAssertEqual(recorded.map(\.0), [10])
        print("class seen by onDeallocate: \(recorded.first?.1 ?? "-")")
        XCTAssertEqual(table.count, 0)
    }

    func testObjectObservedBeforeItGetsAValue() throws {
        var recorded: [Int] = []
        let table = SideStorage<Int>(onDeallocate: { _, value in recorded.append(value) })
        let object = try XCTUnwrap(css_object_new("CSSObservedLateObject"))
        let observedClass = String(cString: css_kvo_observe(object))
        XCTAssertNotEqual(observedClass, "CSSObservedLateObject", "KVO swapped the class")
        table[object] = 20  // hooks the class the object claims (-class), not the KVO subclass
        XCTAssertEqual(
            HookEngine.shared.activeHooks.filter {
                $0.selector.name == "dealloc" && $0.targetClass.name == observedClass
            }.count, 0)
        XCTAssertEqual(
            HookEngine.shared.activeHooks.filter {
                $0.selector.name == "dealloc" && $0.targetClass.name == "CSSObservedLateObject"
            }.count, 1)
        // GNUstep gives the object its own class back when the last observer goes; the value must still be cleaned up.
        css_kvo_unobserve(object)
        css_object_release(object)
        XCTAssertEqual(recorded, [20], "observed class: \(observedClass)")
        XCTAssertEqual(table.count, 0)
        let plain = try XCTUnwrap(css_object_new("CSSObservedLateObject"))
        table[plain] = 21
        css_object_release(plain)
        XCTAssertEqual(recorded, [20, 21])
        XCTAssertEqual(table.count, 0)
    }
}
