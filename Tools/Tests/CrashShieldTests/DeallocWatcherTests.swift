import XCTest
import Dispatch
import Foundation
@_spi(Testing) @testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting

/// The dealloc watcher's hooks stay in their classes for the life of the process (an object may still be watched,
/// a `-dealloc` may be in flight); while nothing is watched each is one call to its class's original `-dealloc`
/// (CSRDeallocHook.h). `csr_dealloc_entered_slot()` is -1 on a thread whose `-dealloc`s never left the trampoline.
final class DeallocWatcherTests: ShieldTestCase {
    /// Runs `body` on a new thread (its thread-locals fresh) and returns what it returned.
    private func onNewThread<T>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            result.withLock { $0 = body() }
            done.signal()
        }
        thread.start()
        done.wait()
        return result.current!
    }

    /// Classes of their own: a class keeps its `-dealloc` hook for the rest of the process. The parent inherits
    /// CSSUnwatchedObject's counting `-dealloc` (an added override; no test hooks that class itself), the child the
    /// parent's (hooked first: nested).
    private func makeClasses() throws -> (parent: String, child: String) {
        XCTAssertTrue(css_make_subclass("CSSUnwatchedObject", "CSSAfterStopParent"))
        XCTAssertTrue(css_make_subclass("CSSAfterStopParent", "CSSAfterStopChild"))
        let storage = SideStorage<Int>()
        for name in ["CSSAfterStopChild", "CSSAfterStopParent"] {  // the child first: both end up hooked
            let object = try XCTUnwrap(css_object_new(name))
            storage[object] = 1
            css_object_release(object)
        }
        for name in ["CSSAfterStopChild", "CSSAfterStopParent"] {
            XCTAssertTrue(DeallocWatcher.shared.isHooked(try XCTUnwrap(csr_class_lookup(name))), name)
        }
        return ("CSSAfterStopParent", "CSSAfterStopChild")
    }

    func testAfterStopDeallocationOfWatchedClassesIsOneCallOnEveryThreadAndNeverReports() throws {
        let sink = InMemoryReportSink()
        var configuration = Configuration(guards: [.kvo, .notification, .timer])
        configuration.sinks = [sink]
        try CrashShield.start(configuration)
        let (parent, child) = try makeClasses()
        XCTAssertTrue(css_make_subclass("NSObject", "CSSAfterStopProbe"))
        // While an object is watched, a -dealloc of these classes goes through the replacement (the control: the
        // probe sees the replacement entered).
        let watchedEntered = onNewThread { () -> Int in
            let storage = SideStorage<Int>()
            let kept = css_object_new("CSSAfterStopProbe")!
            storage[kept] = 1
            let object = css_object_new(child)!
            css_object_release(object)
            let entered = csr_dealloc_entered_slot()
            css_object_release(kept)
            return entered
        }
        XCTAssertGreaterThanOrEqual(watchedEntered, 0, "the probe must see the replacement while objects are watched")
        CrashShield.stop()
        XCTAssertEqual(DeallocWatcher.shared.watchedObjectCount, 0, "nothing may be watched after stop() here")

        let threads = 4, perThread = 5_000
        let before = css_dealloc_count("CSSUnwatchedObject")
        let entered = Locked<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread {
                for _ in 0..<perThread {
                    css_object_release(css_object_new(child))
                    css_object_release(css_object_new(parent))
                }
                let slot = csr_dealloc_entered_slot()
                entered.withLock { $0.append(slot) }
                group.leave()
            }.start()
        }
        group.wait()
        XCTAssertEqual(
            entered.current, Array(repeating: -1, count: threads),
            "a -dealloc with nothing watched entered the replacement instead of passing through")
        XCTAssertEqual(
            css_dealloc_count("CSSUnwatchedObject"), before + threads * perThread * 2,
            "every object's -dealloc chain ran exactly once")
        CrashShield.waitForSinks()
        XCTAssertEqual(sink.reports.count, 0, "\(sink.reports.map(\.reason))")
    }

    /// A subclass hooked before its superclass, objects of both dying while something is watched and while nothing
    /// is: each class's own `-dealloc` runs exactly once per object (the trampolines never re-run a subclass's).
    func testNestedHooksRunEachDeallocOnceWatchedOrNot() throws {
        // Both inherit CSSUnwatchedObject's counting -dealloc (added overrides); the child is hooked first.
        XCTAssertTrue(css_make_subclass("CSSUnwatchedObject", "CSSNestedWatchParent"))
        XCTAssertTrue(css_make_subclass("CSSNestedWatchParent", "CSSNestedWatchChild"))
        let storage = SideStorage<Int>()
        let first = try XCTUnwrap(css_object_new("CSSNestedWatchChild"))
        storage[first] = 1
        let parent = try XCTUnwrap(css_object_new("CSSNestedWatchParent"))
        storage[parent] = 2
        css_object_release(parent)
        XCTAssertTrue(DeallocWatcher.shared.isHooked(try XCTUnwrap(csr_class_lookup("CSSNestedWatchChild"))))
        XCTAssertTrue(DeallocWatcher.shared.isHooked(try XCTUnwrap(csr_class_lookup("CSSNestedWatchParent"))))
        for watched in [true, false] {
            let counted = css_dealloc_count("CSSUnwatchedObject")
            let object = try XCTUnwrap(css_object_new("CSSNestedWatchChild"))
            if watched { storage[object] = 3 }
            css_object_release(object)
            XCTAssertEqual(css_dealloc_count("CSSUnwatchedObject"), counted + 1, "watched: \(watched)")
            if watched { css_object_release(first) }
        }
        XCTAssertEqual(storage.count, 0)
    }
}
