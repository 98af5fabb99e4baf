import XCTest
@testable import CrashShield
import CrashShieldMatrix
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting

/// Main-thread-only methods on CSSView (the catalog's stand-in for UIView: its methods raise what UIKit raises when
/// called off the main thread, and count the calls per thread kind).
final class MainThreadGuardTests: ShieldTestCase {
    private func configuration(_ mode: GuardMode = .release) -> Configuration {
        var configuration = Configuration(guards: .mainThreadUI, mode: mode)
        configuration.mainThreadOnlyMethods["CSSView"] = Scenario.catalogViewMethods
        return configuration
    }

    private func view(file: StaticString = #filePath, line: UInt = #line) throws -> CSRObject {
        try XCTUnwrap(css_view_new(), file: file, line: line)
    }

    /// Calls `selector` from a background thread; returns the exception it raised there, if any.
    private func callInBackground(_ view: CSRObject, _ selector: String, times: UInt = 1) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let raised = css_view_call_in_background(view, selector, times, &buffer, buffer.count)
        return raised ? String(cString: buffer) : nil
    }

    func testOffMainCallRunsLaterOnTheMainThreadAndIsReported() throws {
        try withShield(configuration()) { sink in
            let view = try view()
            defer { css_object_release(view) }
            XCTAssertNil(callInBackground(view, "setNeedsLayout"), "the call does not raise on the background thread")
            XCTAssertTrue(css_view_wait_for_main_calls(view, 1, 5), "the call ran once the main run loop ran")
            XCTAssertEqual(css_view_calls(view, false), 0, "it never ran on the background thread")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .mainThreadUI).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSView")
            XCTAssertEqual(report.selector, "setNeedsLayout")
            XCTAssertEqual(report.exceptionName, "NSInternalInconsistencyException")
            XCTAssertEqual(report.reason, Violation.uikitLayoutReason)
            XCTAssertEqual(report.details["method"], "-[CSSView setNeedsLayout]")
            XCTAssertNotNil(report.details["thread"])
            XCTAssertFalse(report.thread.isMain)
            XCTAssertEqual(report.action, .recovered)
            XCTAssertNotNil(report.callerFrame)
        }
    }

    func testArgumentsAreKeptUntilTheCallRuns() throws {
        try withShield(configuration()) { _ in
            let view = try view()
            defer { css_object_release(view) }
            XCTAssertNil(callInBackground(view, "setNeedsDisplayInRect:"))
            XCTAssertTrue(css_view_wait_for_main_calls(view, 1, 5))
            XCTAssertEqual(String(cString: css_view_last_rect(view)), "{1,2,3,4}", "the rect was copied")
        }
        // The receiver is retained until then.
        try withShield(configuration()) { _ in
            let view = try view()
            defer { css_object_release(view) }
            XCTAssertEqual(css_object_retain_count(view), 1)
            XCTAssertNil(callInBackground(view, "setNeedsDisplay"))
            XCTAssertEqual(css_object_retain_count(view), 2, "the pending call keeps the view alive")
            XCTAssertTrue(css_view_wait_for_main_calls(view, 1, 5))
            XCTAssertTrue(css_view_wait_for_main_calls(view, 2, 0.1) == false)
            XCTAssertEqual(css_object_retain_count(view), 1, "and lets it go once it ran")
        }
    }

    /// A view released on a background thread whose -dealloc sends itself a main-thread-only method: run later, the
    /// call would reach a freed object (retaining it there does not keep it: objc4's rootRetain does not count a
    /// deallocating object; GNUstep's count goes 0 -> 1 and the later release frees it twice). It runs in place, as
    /// without CrashShield, and one report says why.
    func testCallFromDeallocOnABackgroundThreadRunsInPlace() throws {
        try withShield(configuration()) { sink in
            let before = css_dying_view_in_place_calls()
            css_release_in_background(try XCTUnwrap(css_dying_view_new()))
            XCTAssertEqual(css_dying_view_in_place_calls() - before, 1, "the call ran inside -dealloc, not later")
            CrashShield.flush()
            let reports = sink.reports(in: .mainThreadUI)
            XCTAssertEqual(reports.count, 1)
            XCTAssertEqual(reports.first?.className, "CSSDyingView")
            XCTAssertEqual(reports.first?.details["deallocating"], "receiver")
            XCTAssertEqual(reports.first?.details["recovery"], "run in place: its receiver is being deallocated")
            // Nothing was left for the main thread (a pending call would run on the freed view while it spins).
            let probe = try view()
            defer { css_object_release(probe) }
            XCTAssertFalse(css_view_wait_for_main_calls(probe, 1, 0.2))
        }
    }

    /// Another library exchanges the guarded method's implementation with its own after `start()`: its method then
    /// sends its alias to reach the original, and the hook is entered under the alias's name. Off the main thread
    /// the call still runs later, with the class's original: never silently dropped.
    func testMethodExchangedAfterStartStillRunsTheOriginal() throws {
        var swizzled = configuration()
        swizzled.mainThreadOnlyMethods = ["CSSSwizzledView": ["setNeedsLayout"]]
        try withShield(swizzled) { sink in
            let view = try XCTUnwrap(css_swizzled_view_new())
            defer { css_object_release(view) }
            css_swizzled_view_exchange()
            defer { css_swizzled_view_exchange() }
            let swizzleCalls = css_swizzled_view_swizzle_calls()
            XCTAssertNil(callInBackground(view, "setNeedsLayout"))
            XCTAssertEqual(css_swizzled_view_swizzle_calls() - swizzleCalls, 1, "the library's method ran")
            XCTAssertTrue(css_view_wait_for_main_calls(view, 1, 5), "the original ran later on the main thread")
            XCTAssertEqual(css_view_calls(view, false), 0)
            css_view_call_on_main(view, "setNeedsLayout")
            XCTAssertEqual(css_view_calls(view, true), 2, "on the main thread it goes straight to the original")
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .mainThreadUI).count, 1)
        }
    }

    func testCallsOnTheMainThreadAreUnchanged() throws {
        func run() throws -> [Int] {
            let view = try view()
            defer { css_object_release(view) }
            for selector in Scenario.catalogViewMethods { css_view_call_on_main(view, selector) }
            return [css_view_calls(view, true), css_view_calls(view, false)]
        }
        let unguarded = try run()
        var guarded: [Int] = []
        try withShield(configuration()) { sink in
            guarded = try run()
            XCTAssertTrue(sink.reports.isEmpty)
        }
        XCTAssertEqual(guarded, unguarded)
        XCTAssertEqual(guarded, [Scenario.catalogViewMethods.count, 0])
    }

    /// The default list is UIView's pure invalidations (issue 32: `setNeedsUpdateConstraints` and
    /// `invalidateIntrinsicContentSize` joined the layout and display ones); the catalog's CSSView stands for UIView
    /// with exactly that list. Each of them, called off the main thread, runs later on the main thread, reported.
    func testEachDefaultMethodRunsLaterOnTheMainThread() throws {
        XCTAssertEqual(Configuration.defaultMainThreadOnlyMethods.keys.sorted(), ["UIView"])
        XCTAssertEqual(Configuration.defaultMainThreadOnlyMethods["UIView"], Scenario.catalogViewMethods)
        for selector in ["setNeedsUpdateConstraints", "invalidateIntrinsicContentSize"] {
            XCTAssertTrue(Scenario.catalogViewMethods.contains(selector), selector)
        }
        var configuration = Configuration(guards: .mainThreadUI)
        configuration.mainThreadOnlyMethods = ["CSSView": Configuration.defaultMainThreadOnlyMethods["UIView"] ?? []]
        try withShield(configuration) { sink in
            for selector in Scenario.catalogViewMethods {
                let view = try view()
                defer { css_object_release(view) }
                XCTAssertNil(callInBackground(view, selector), selector)
                XCTAssertTrue(css_view_wait_for_main_calls(view, 1, 5), selector)
                XCTAssertEqual(css_view_calls(view, false), 0, selector)
            }
            CrashShield.flush()
            XCTAssertEqual(
                sink.reports(in: .mainThreadUI).map(\.selector).sorted(), Scenario.catalogViewMethods.sorted())
        }
    }

    func testDebugModeFailsAtOnceNamingMethodAndThread() throws {
        try withShield(configuration(.debug)) { sink in
            let view = try view()
            defer { css_object_release(view) }
            let raised = try XCTUnwrap(callInBackground(view, "layoutIfNeeded"))
            XCTAssertTrue(
                raised.hasPrefix(
                    "NSInternalInconsistencyException: -[CSSView layoutIfNeeded] must be called on the main thread only; called on thread "
                ), raised)
            XCTAssertEqual(css_view_calls(view, false), 0, "the original did not run")
            XCTAssertFalse(css_view_wait_for_main_calls(view, 1, 0.2), "nor was it sent to the main thread")
            XCTAssertEqual(sink.reports(in: .mainThreadUI).first?.action, .failedLoudly)
        }
    }

    func testEveryFrameCallsAreAggregatedPerCallSite() throws {
        try withShield(configuration()) { sink in
            let view = try view()
            defer { css_object_release(view) }
            XCTAssertNil(callInBackground(view, "setNeedsLayout", times: 1000))
            XCTAssertTrue(css_view_wait_for_main_calls(view, 1000, 20), "every call ran on the main thread")
            CrashShield.flush()
            let reports = sink.reports(in: .mainThreadUI)
            XCTAssertEqual(reports.count, 1, "one report per call site")
            XCTAssertEqual(reports.first?.occurrences, 1000)
            XCTAssertLessThanOrEqual(sink.deliveryCount, 6, "deliveries at 1, 10, 100, 1000 and on flush")
        }
    }

    func testStopRestoresEveryMethod() throws {
        withShield(configuration()) { _ in
            XCTAssertEqual(
                HookEngine.shared.activeHooks.filter { $0.targetClass.name == "CSSView" }.count,
                Scenario.catalogViewMethods.count)
        }
        XCTAssertTrue(HookEngine.shared.activeHooks.filter { $0.targetClass.name == "CSSView" }.isEmpty)
        let view = try view()
        defer { css_object_release(view) }
        XCTAssertEqual(
            callInBackground(view, "setNeedsLayout"),
            "NSInternalInconsistencyException: " + Violation.uikitLayoutReason, "unguarded again")
    }

    func testConfiguration() throws {
        // Default: UIView, which does not exist here, is skipped.
        withShield(Configuration(guards: .mainThreadUI)) { _ in
            XCTAssertTrue(CrashShield.activeGuards.contains(.mainThreadUI))
        }
        var returnsValue = Configuration(guards: .mainThreadUI)
        returnsValue.mainThreadOnlyMethods = ["NSMutableString": ["length"]]
        XCTAssertThrowsError(try CrashShield.start(returnsValue)) { error in
            guard case .invalidConfiguration(let text) = error as? CrashShieldError else { return XCTFail("\(error)") }
            XCTAssertTrue(text.contains("-[NSMutableString length]"), text)
        }
        // A root class or a runtime/memory-management selector would be worse than no guard: refused by name.
        for (className, selector, expected) in [
            ("NSObject", "setNeedsLayout", "root class"),
            ("CSSView", "retain", "memory-management"),
            ("CSSView", "forwardInvocation:", "forwarding"),
        ] {
            var hostile = Configuration(guards: .mainThreadUI)
            hostile.mainThreadOnlyMethods = [className: [selector]]
            XCTAssertThrowsError(try CrashShield.start(hostile)) { error in
                guard case .invalidConfiguration(let text) = error as? CrashShieldError else {
                    return XCTFail("\(error)")
                }
                XCTAssertTrue(text.contains(expected), text)
            }
        }
        XCTAssertFalse(CrashShield.isRunning)
        var missing = Configuration(guards: .mainThreadUI)
        missing.mainThreadOnlyMethods = ["CSSView": ["noSuchMethod"]]
        XCTAssertThrowsError(try CrashShield.start(missing))
        XCTAssertEqual(csr_call_shape("v16@0:8"), Int32(CSRCallShapeNone.rawValue))
        XCTAssertEqual(csr_call_shape("v24@0:8@16"), Int32(CSRCallShapeObject.rawValue))
        XCTAssertEqual(csr_call_shape("v20@0:8c16"), Int32(CSRCallShapeWord.rawValue))
        XCTAssertEqual(csr_call_shape("v48@0:8{_NSRect={_NSPoint=dd}{_NSSize=dd}}16"), Int32(CSRCallShapeRect.rawValue))
        XCTAssertEqual(csr_call_shape("v48@0:8{CGRect={CGPoint=dd}{CGSize=dd}}16"), Int32(CSRCallShapeRect.rawValue))
        XCTAssertEqual(csr_call_shape("@16@0:8"), -1)
        XCTAssertEqual(csr_call_shape("v32@0:8@16@24"), -1)
    }
}
