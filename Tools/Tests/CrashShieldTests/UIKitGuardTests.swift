@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The opt-in UIKit guard on fixture classes shaped like CALayer and UINavigationController (CSSUIKitFixtures.m: they
/// raise what Core Animation and UIKit raise), installed in their place: the bad call is skipped and reported with the
/// exception the fixture raises unguarded; valid calls are unchanged; debug mode raises the same; stop() restores.
/// On an iOS simulator, `UIKitGuardSimulatorTests` runs the same calls on the real classes.
final class UIKitGuardTests: ShieldTestCase {
    private var savedNames = UIKitGuard.ClassNames()

    override func setUp() {
        super.setUp()
        savedNames = UIKitGuard.classNames.current
        UIKitGuard.classNames.withLock {
            $0 = .init(
                layer: "CSSLayer", navigationController: "CSSNavigationController",
                viewController: "CSSPresentingController", alertController: "CSSAlertController",
                panelDelegates: ["CSSPanelDelegate"])
        }
    }

    override func tearDown() {
        super.tearDown()
        UIKitGuard.classNames.withLock { $0 = savedNames }
    }

    private func geometry(_ layer: CSRObject) -> [Double] {
        var values = [Double](repeating: 0, count: 6)
        css_layer_geometry(layer, &values)
        return values
    }

    private func rect(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> CSSShapeRect {
        CSSShapeRect(x: x, y: y, width: width, height: height)
    }

    /// Each bad geometry call with the selector the report names.
    private var badGeometry: [(selector: String, call: (CSRObject) -> Void)] {
        [
            ("setPosition:", { css_layer_set_position($0, .nan, 43.5) }),
            ("setPosition:", { css_layer_set_position($0, 75.75, .nan) }),
            ("setBounds:", { css_layer_set_bounds($0, self.rect(0, .nan, 320, 291)) }),
            ("setFrame:", { css_layer_set_frame($0, self.rect(.nan, 0, 10, 10)) }),
            ("setFrame:", { css_layer_set_frame($0, self.rect(0, 0, 10, .nan)) }),
            ("setFrame:", { css_layer_set_frame($0, self.rect(-.infinity, 0, .infinity, 10)) }),
        ]  // position: -inf + inf
    }

    func testNaNGeometryIsSkippedAndReportedAsCoreAnimationRaisesIt() throws {
        for (index, bad) in badGeometry.enumerated() {
            let plain = try XCTUnwrap(css_layer_new())
            defer { css_object_release(plain) }
            let raised = try XCTUnwrap(
                catchingObjCException { bad.call(plain) }, "case \(index): the fixture must raise")
            XCTAssertEqual(raised.name, "CALayerInvalidGeometry")
            try withShield(Configuration(guards: .uikit)) { sink in
                let layer = try XCTUnwrap(css_layer_new())
                defer { css_object_release(layer) }
                css_layer_set_frame(layer, rect(1, 2, 30, 40))
                let before = geometry(layer)
                XCTAssertNil(catchingObjCException { bad.call(layer) }, "case \(index) raised under the guard")
                XCTAssertEqual(geometry(layer), before, "case \(index): the layer changed")
                CrashShield.flush()
                let report = try XCTUnwrap(sink.reports(in: .uikit).first, "case \(index): no report")
                XCTAssertEqual(sink.reports.count, 1)
                XCTAssertEqual(report.className, "CSSLayer")
                XCTAssertEqual(report.selector, bad.selector)
                XCTAssertEqual(report.exceptionName, raised.name)
                XCTAssertEqual(report.reason, raised.reason, "case \(index)")
                XCTAssertEqual(report.action, .recovered)
            }
        }
    }

    /// The anchor point the layer has is the one setFrame: uses.
    func testFrameReasonUsesTheLayersAnchorPoint() throws {
        let plain = try XCTUnwrap(css_layer_new())
        defer { css_object_release(plain) }
        css_layer_set_anchor(plain, 0, 1)
        let raised = try XCTUnwrap(catchingObjCException { css_layer_set_frame(plain, self.rect(5, .nan, 10, 10)) })
        XCTAssertEqual(raised.reason, "CALayer position contains NaN: [5 nan]")
        try withShield(Configuration(guards: .uikit)) { sink in
            let layer = try XCTUnwrap(css_layer_new())
            defer { css_object_release(layer) }
            css_layer_set_anchor(layer, 0, 1)
            css_layer_set_frame(layer, rect(5, .nan, 10, 10))
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .uikit).first?.reason, raised.reason)
        }
    }

    func testValidGeometryIsUnchanged() throws {
        func run() throws -> [[Double]] {
            let layer = try XCTUnwrap(css_layer_new())
            defer { css_object_release(layer) }
            var seen: [[Double]] = []
            css_layer_set_position(layer, 3, 4); seen.append(geometry(layer))
            css_layer_set_bounds(layer, rect(0, 0, 320, 291)); seen.append(geometry(layer))
            css_layer_set_frame(layer, rect(10, 20, 100, 50)); seen.append(geometry(layer))
            css_layer_set_frame(layer, rect(.infinity, 0, 10, 10)); seen.append(geometry(layer))  // inf, not NaN: taken
            css_layer_set_position(layer, -0.0, .greatestFiniteMagnitude); seen.append(geometry(layer))
            return seen
        }
        let unguarded = try run()
        var guarded: [[Double]] = []
        try withShield(Configuration(guards: .uikit)) { sink in
            guarded = try run()
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
        XCTAssertEqual(guarded, unguarded)
    }

    func testPushingAControllerAlreadyOnTheStackIsSkippedAndReported() throws {
        let plain = try XCTUnwrap(css_navigation_new()), plainController = try XCTUnwrap(css_view_controller_new())
        defer { css_object_release(plain); css_object_release(plainController) }
        css_navigation_push(plain, plainController, true)
        let raised = try XCTUnwrap(catchingObjCException { css_navigation_push(plain, plainController, false) })
        XCTAssertEqual(raised.name, "NSInvalidArgumentException")
        XCTAssertEqual(css_navigation_count(plain), 1)
        try withShield(Configuration(guards: .uikit)) { sink in
            let navigation = try XCTUnwrap(css_navigation_new())
            let first = try XCTUnwrap(css_view_controller_new()), second = try XCTUnwrap(css_view_controller_new())
            defer { [navigation, first, second].forEach { css_object_release($0) } }
            css_navigation_push(navigation, first, true)
            css_navigation_push(navigation, second, false)
            XCTAssertEqual(css_navigation_count(navigation), 2, "valid pushes go through")
            XCTAssertNil(catchingObjCException { css_navigation_push(navigation, first, true) })
            XCTAssertEqual(css_navigation_count(navigation), 2, "the push was skipped")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSNavigationController")
            XCTAssertEqual(report.selector, "pushViewController:animated:")
            XCTAssertEqual(report.exceptionName, raised.name)
            let expected =
                "<CSSNavigationController: \(GuardFailure.address(UnsafeRawPointer(navigation)))> is pushing the same "
                + "view controller instance (<CSSViewController: \(GuardFailure.address(UnsafeRawPointer(first)))>) more than "
                + "once which is not supported and is most likely an error in the application"
            XCTAssertTrue(report.reason.hasPrefix(expected), report.reason)
            // The fixture words it the same way (its own addresses).
            XCTAssertTrue(raised.reason.hasPrefix("<CSSNavigationController: 0x"), raised.reason)
            XCTAssertTrue(
                raised.reason.contains("> is pushing the same view controller instance (<CSSViewController: 0x"))
        }
    }

    func testDebugModeRaisesWhatCoreAnimationRaises() throws {
        try withShield(Configuration(guards: .uikit, mode: .debug)) { sink in
            let layer = try XCTUnwrap(css_layer_new())
            defer { css_object_release(layer) }
            let raised = try XCTUnwrap(catchingObjCException { css_layer_set_position(layer, .nan, 2) })
            XCTAssertEqual(raised.name, "CALayerInvalidGeometry")
            XCTAssertEqual(raised.reason, "CALayer position contains NaN: [nan 2]")
            XCTAssertEqual(sink.reports(in: .uikit).first?.action, .failedLoudly)
        }
    }

    func testOptInAndStopRestoresTheClasses() throws {
        XCTAssertFalse(GuardCategory.productionSafe.contains(.uikit))
        XCTAssertFalse(Configuration.production.guards.contains(.uikit))
        XCTAssertTrue(GuardCategory.all.contains(.uikit))
        XCTAssertEqual(GuardCategory(name: "uikit"), .uikit)
        withShield(Configuration.production) { _ in
            XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.targetClass.name == "CSSLayer" })
        }
        withShield(Configuration(guards: .uikit)) { _ in
            let hooked = HookEngine.shared.activeHooks.filter {
                ["CSSLayer", "CSSNavigationController"].contains($0.targetClass.name)
            }
            XCTAssertEqual(
                Set(hooked.map(\.selector.name)),
                [
                    "setPosition:", "setBounds:", "setFrame:", "pushViewController:animated:",
                    "popToViewController:animated:",
                ])
            XCTAssertTrue(
                HookEngine.shared.activeHooks.contains {
                    $0.targetClass.name == "CSSPresentingController"
                        && $0.selector.name == "presentViewController:animated:completion:"
                })
        }
        XCTAssertFalse(HookEngine.shared.activeHooks.contains { $0.targetClass.name == "CSSLayer" })
        let layer = try XCTUnwrap(css_layer_new())
        defer { css_object_release(layer) }
        XCTAssertEqual(
            catchingObjCException { css_layer_set_position(layer, .nan, 1) }?.name, "CALayerInvalidGeometry",
            "unguarded again after stop()")
    }

    /// Where UIKit is absent (here, an app extension without it) the guard installs nothing and starts.
    func testMissingClassesAreSkipped() throws {
        UIKitGuard.classNames.withLock {
            $0 = .init(
                layer: "CSSNoSuchLayer", navigationController: "CSSNoSuchNavigation",
                viewController: "CSSNoSuchController",
                alertController: "CSSNoSuchAlert")
        }
        withShield(Configuration(guards: .uikit)) { _ in
            XCTAssertTrue(CrashShield.activeGuards.contains(.uikit))
        }
    }

    // MARK: Action sheets

    /// On an iPad (regular width) an action sheet without a popover location raises; under the guard it gets the
    /// presenting controller's view as source (the centre of its bounds), is presented, and is reported.
    func testAnActionSheetWithoutAPopoverSourceGetsThePresentersView() throws {
        let plainPresenter = try XCTUnwrap(css_presenter_new(true)), plainAlert = try XCTUnwrap(css_alert_new(0, true))
        defer { css_object_release(plainPresenter); css_object_release(plainAlert) }
        let raised = try XCTUnwrap(catchingObjCException { css_presenter_present(plainPresenter, plainAlert) })
        XCTAssertEqual(raised.name, "NSGenericException")
        try withShield(Configuration(guards: .uikit)) { sink in
            let presenter = try XCTUnwrap(css_presenter_new(true)), alert = try XCTUnwrap(css_alert_new(0, true))
            defer { css_object_release(presenter); css_object_release(alert) }
            XCTAssertNil(catchingObjCException { css_presenter_present(presenter, alert) })
            XCTAssertEqual(css_presenter_presentations(presenter), 1, "presented")
            var rect = [Double](repeating: -1, count: 4)
            XCTAssertTrue(css_alert_source(alert, &rect), "the popover got a source view")
            XCTAssertEqual(rect, [100, 50, 0, 0], "the centre of the presenter's view")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.selector, "presentViewController:animated:completion:")
            XCTAssertEqual(report.exceptionName, raised.name)
            let alertText = "CSSAlertController: \(GuardFailure.address(UnsafeRawPointer(alert)))"
            let presenterText = "CSSPresentingController: \(GuardFailure.address(UnsafeRawPointer(presenter)))"
            XCTAssertEqual(
                report.reason,
                raised.reason.replacingOccurrences(of: "CSSAlertController: 0x", with: "@A@")
                    .replacingOccurrences(of: "CSSPresentingController: 0x", with: "@P@")
                    .replacingOccurrences(of: #"@A@[0-9a-f]+"#, with: alertText, options: .regularExpression)
                    .replacingOccurrences(of: #"@P@[0-9a-f]+"#, with: presenterText, options: .regularExpression))
        }
    }

    /// Left alone: an alert (not a sheet), a sheet with a source, a sheet in a compact environment (an iPhone:
    /// UIKit adapts it, nothing raises), a sheet without a popover controller, and other controllers.
    func testOtherPresentationsAreUntouched() throws {
        try withShield(Configuration(guards: .uikit)) { sink in
            for (regular, style, popover) in [(true, 1, true), (false, 0, true), (true, 0, false)] {
                let presenter = try XCTUnwrap(css_presenter_new(regular)),
                    alert = try XCTUnwrap(css_alert_new(style, popover))
                defer { css_object_release(presenter); css_object_release(alert) }
                XCTAssertNil(catchingObjCException { css_presenter_present(presenter, alert) })
                var rect = [Double](repeating: 0, count: 4)
                XCTAssertFalse(css_alert_source(alert, &rect), "no source given: \(regular) \(style) \(popover)")
                XCTAssertEqual(css_presenter_presentations(presenter), 1)
            }
            let presenter = try XCTUnwrap(css_presenter_new(true)), other = try XCTUnwrap(css_view_controller_new())
            defer { css_object_release(presenter); css_object_release(other) }
            css_presenter_present(presenter, other)
            XCTAssertEqual(css_presenter_presentations(presenter), 1)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    // MARK: WKWebView JavaScript panels

    private static let panelSelectors = [
        "webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:",
        "webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:",
        "webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:",
    ]

    /// Runs panel `panel` on a new delegate of `behaviour` (CSSShapes.h): the calls WebKit's handler got and its last
    /// answer, after the run and (a kept handler) after the delegate answered later; a delegate answering on its own
    /// thread (4): after that thread ended only (at the run's return it may or may not have answered yet).
    private func runPanel(_ panel: Int, behaviour: Int) throws -> [String] {
        let delegate = try XCTUnwrap(css_panel_delegate_new(behaviour))
        defer { css_object_release(delegate) }
        var answer = [CChar](repeating: 0, count: 64)
        let calls = css_webview_run_panel(delegate, panel, &answer, UInt(answer.count))
        var seen = behaviour == 4 ? [] : ["\(calls) \(String(cString: answer))"]
        if behaviour == 2 || behaviour == 4 {
            css_panel_delegate_finish(delegate)
            let later = css_webview_last_calls(&answer, UInt(answer.count))
            seen.append("\(later) \(String(cString: answer))")
        }
        return seen
    }

    /// A delegate that drops WebKit's handler: WebKit raises when the block is destroyed; under the guard, WebKit's
    /// handler gets the default answer once (alert: called; confirm: NO; text input: nil) and the drop is reported
    /// with WebKit's exception and reason.
    func testADroppedPanelHandlerGetsTheDefaultAnswerAndIsReported() throws {
        for (panel, answer) in ["called", "NO", "nil"].enumerated() {
            let raised = try XCTUnwrap(
                catchingObjCException { _ = try? self.runPanel(panel, behaviour: 0) }, "panel \(panel) must raise")
            XCTAssertEqual(raised.name, "NSInternalInconsistencyException")
            XCTAssertEqual(
                raised.reason,
                "Completion handler passed to -[CSSPanelDelegate \(Self.panelSelectors[panel])] was not called")
            try withShield(Configuration(guards: .uikit)) { sink in
                var seen: [String] = []
                XCTAssertNil(catchingObjCException { seen = (try? self.runPanel(panel, behaviour: 0)) ?? [] })
                XCTAssertEqual(seen, ["1 \(answer)"], "panel \(panel)")
                CrashShield.flush()
                let report = try XCTUnwrap(sink.reports(in: .uikit).first, "panel \(panel): no report")
                XCTAssertEqual(sink.reports.count, 1)
                XCTAssertEqual(report.className, "CSSPanelDelegate")
                XCTAssertEqual(report.selector, Self.panelSelectors[panel])
                XCTAssertEqual(report.exceptionName, raised.name)
                XCTAssertEqual(report.reason, raised.reason)
                XCTAssertEqual(report.action, .recovered)
            }
        }
    }

    /// WebKit names the class that implements the delegate method, not a subclass (or KVO class) that inherits it:
    /// so does the report, for a subclass instance that drops the handler of a hooked class's method.
    func testADroppedHandlerOfASubclassNamesTheClassImplementingTheMethod() throws {
        func run() {
            guard let delegate = css_panel_delegate_subclass_new(0) else { return }
            defer { css_object_release(delegate) }
            var answer = [CChar](repeating: 0, count: 64)
            _ = css_webview_run_panel(delegate, 1, &answer, UInt(answer.count))
        }
        let raised = try XCTUnwrap(catchingObjCException { run() }, "the subclass's drop must raise")
        let expected = "Completion handler passed to -[CSSPanelDelegate \(Self.panelSelectors[1])] was not called"
        XCTAssertEqual(raised.reason, expected)
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertNil(catchingObjCException { run() })
            XCTAssertEqual(css_webview_last_calls(nil, 0), 1, "answered NO")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSPanelDelegate")
            XCTAssertEqual(report.reason, raised.reason)
        }
    }

    /// Delegates that answer (at once, twice, or later from a kept handler) behave exactly as without the guard:
    /// WebKit's handler gets their answers, nothing is reported.
    func testPanelHandlersTheDelegateCallsAreUnchanged() throws {
        func run() throws -> [[String]] {
            try (0..<3).flatMap { panel in try [1, 2, 3].map { try runPanel(panel, behaviour: $0) } }
        }
        let unguarded = try run()
        XCTAssertEqual(unguarded[0], ["1 called"])
        XCTAssertEqual(unguarded[1], ["0 ", "1 called"], "kept: answered later")
        XCTAssertEqual(unguarded[5], ["2 YES"])
        XCTAssertEqual(unguarded[6], ["1 typed"])
        var guarded: [[String]] = []
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertTrue(
                HookEngine.shared.activeHooks.contains {
                    $0.targetClass.name == "CSSPanelDelegate" && $0.selector.name == Self.panelSelectors[2]
                })
            guarded = try run()
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
        XCTAssertEqual(guarded, unguarded)
    }

    /// App code may call WebKit's handler from any thread: a delegate that answers on a thread it starts inside the
    /// method (the thread calls and releases the wrapper while the hook releases its own reference on this one; either
    /// may be the last) gets its answer to WebKit once, as without the guard, and nothing is reported. Run under
    /// ThreadSanitizer too (Tools built with `--sanitize=thread`).
    func testPanelHandlersAnsweredOnAnotherThreadAreUnchanged() throws {
        let rounds = 50
        func run() throws -> [[String]] {
            try (0..<3).flatMap { panel in try (0..<rounds).map { _ in try runPanel(panel, behaviour: 4) } }
        }
        let unguarded = try run()
        XCTAssertEqual(unguarded, ["1 called", "1 YES", "1 typed"].flatMap { Array(repeating: [$0], count: rounds) })
        var guarded: [[String]] = []
        try withShield(Configuration(guards: .uikit)) { sink in
            guarded = try run()
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
        XCTAssertEqual(guarded, unguarded)
    }

    /// Debug mode: WebKit's own check raises as without the guard (its handler is not answered), after the report.
    func testDebugModeLetsWebKitRaiseForADroppedHandler() throws {
        try withShield(Configuration(guards: .uikit, mode: .debug)) { sink in
            let raised = try XCTUnwrap(catchingObjCException { _ = try? self.runPanel(1, behaviour: 0) })
            XCTAssertEqual(raised.name, "NSInternalInconsistencyException")
            XCTAssertEqual(
                raised.reason,
                "Completion handler passed to -[CSSPanelDelegate \(Self.panelSelectors[1])] was not called")
            XCTAssertEqual(css_webview_last_calls(nil, 0), 0, "not answered in debug mode")
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .uikit).first?.action, .failedLoudly)
        }
        // stop() reverted the hook: unguarded again.
        XCTAssertNotNil(catchingObjCException { _ = try? self.runPanel(0, behaviour: 0) })
    }

    /// Without named delegates the guard finds the app's classes that implement a panel method themselves: here the
    /// test binary is the app (the fixture delegate is hooked and its dropped handler answered), then it is not.
    func testPanelDelegatesAreFoundAmongTheAppsClasses() throws {
        UIKitGuard.classNames.withLock { $0.panelDelegates = nil }
        let appImage: @Sendable (String) -> Bool = { $0.hasSuffix(".xctest") }
        try withShield(Configuration(guards: .uikit, isAppImage: appImage)) { sink in
            let hooked = HookEngine.shared.activeHooks.filter { $0.targetClass.name == "CSSPanelDelegate" }
            XCTAssertEqual(Set(hooked.map(\.selector.name)), Set(Self.panelSelectors))
            XCTAssertFalse(
                HookEngine.shared.activeHooks.contains {
                    Self.panelSelectors.contains($0.selector.name) && $0.targetClass.name != "CSSPanelDelegate"
                })
            XCTAssertEqual(try runPanel(2, behaviour: 0), ["1 nil"])
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .uikit).count, 1)
        }
        withShield(Configuration(guards: .uikit, isAppImage: { _ in false })) { _ in
            XCTAssertFalse(HookEngine.shared.activeHooks.contains { Self.panelSelectors.contains($0.selector.name) })
        }
    }
}
