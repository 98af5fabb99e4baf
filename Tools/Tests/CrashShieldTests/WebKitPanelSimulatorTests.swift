#if canImport(WebKit) && canImport(UIKit)
@testable import CrashShield
import CrashShieldTesting
import ObjectiveC
import UIKit
import WebKit
import XCTest

// The opt-in uikit guard on WebKit's own JavaScript panels: a real WKWebView in a window runs `alert`, `confirm` and
// `prompt`, and WebKit calls these delegates (.github/workflows/apple.yml runs this class on an iOS simulator; compiled
// out where UIKit or WebKit is absent). `UIKitGuardTests` runs the same drops on fixture classes here.
//
// The guard finds panel delegates at `start()` among the app's own classes: the class lists of the loaded images the
// session counts as the app's (`Configuration.isAppImage`; by default every image outside the system's folders and
// the simulator's runtime root, so the test bundle, loaded from DerivedData, is one), looked up again by name
// (`UIKitGuard.appClasses`). A nested or `private` Swift class is not found that way: these delegates are top-level,
// internal and named for Objective-C.

/// A WKUIDelegate that releases WebKit's completion handler without calling it (the handler goes when the method
/// returns), for each panel.
@objc(CSSimDroppingPanelDelegate)
final class SimulatorDroppingPanelDelegate: NSObject, WKUIDelegate {
    /// The panels WebKit asked for ("alert x", "confirm y", "prompt z d").
    var panels: [String] = []

    func webView(
        _ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping () -> Void
    ) {
        panels.append("alert \(message)")
    }

    func webView(
        _ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping (Bool) -> Void
    ) {
        panels.append("confirm \(message)")
    }

    func webView(
        _ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String, defaultText: String?,
        initiatedByFrame frame: WKFrameInfo, completionHandler: @escaping (String?) -> Void
    ) {
        panels.append("prompt \(prompt) \(defaultText ?? "nil")")
    }
}

/// A WKUIDelegate that answers every panel at once: OK, confirmed, "typed <default text>".
@objc(CSSimAnsweringPanelDelegate)
final class SimulatorAnsweringPanelDelegate: NSObject, WKUIDelegate {
    var panels: [String] = []

    func webView(
        _ webView: WKWebView, runJavaScriptAlertPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping () -> Void
    ) {
        panels.append("alert \(message)")
        completionHandler()
    }

    func webView(
        _ webView: WKWebView, runJavaScriptConfirmPanelWithMessage message: String, initiatedByFrame frame: WKFrameInfo,
        completionHandler: @escaping (Bool) -> Void
    ) {
        panels.append("confirm \(message)")
        completionHandler(true)
    }

    func webView(
        _ webView: WKWebView, runJavaScriptTextInputPanelWithPrompt prompt: String, defaultText: String?,
        initiatedByFrame frame: WKFrameInfo, completionHandler: @escaping (String?) -> Void
    ) {
        panels.append("prompt \(prompt) \(defaultText ?? "nil")")
        completionHandler("typed \(defaultText ?? "nil")")
    }
}

/// Tells when the page finished loading.
final class SimulatorPageLoadWaiter: NSObject, WKNavigationDelegate {
    let loaded: XCTestExpectation
    var failure: Error?

    init(_ loaded: XCTestExpectation) { self.loaded = loaded }

    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!) { loaded.fulfill() }

    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: Error) {
        failure = error
        loaded.fulfill()
    }

    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: Error) {
        failure = error
        loaded.fulfill()
    }
}

/// What `evaluateJavaScript` handed back.
final class SimulatorScriptResult {
    var value: Any?
    var error: Error?
}

@MainActor  // UIKit and WebKit are main-actor APIs; XCTest runs the tests on the main thread
final class WebKitPanelSimulatorTests: ShieldTestCase {
    private static let alertSelector = "webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:"
    private static let confirmSelector =
        "webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:"
    private static let promptSelector =
        "webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:"
    /// WebKit's web content process starts on the first load: give a cold simulator time.
    private static let timeout: TimeInterval = 60

    /// A WKWebView filling the root view of a key window, with a page loaded and `delegate` as its UI delegate;
    /// `body` runs scripts in it. The window is taken down afterwards.
    private func withWebView(
        uiDelegate delegate: WKUIDelegate, _ body: (_ run: (String) -> SimulatorScriptResult) throws -> Void
    ) throws {
        try requireHostApplication("a WKWebView in a key window running scripts")
        let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
        let controller = UIViewController()
        let webView = WKWebView(frame: window.bounds, configuration: WKWebViewConfiguration())
        webView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        controller.view.addSubview(webView)
        window.rootViewController = controller
        window.makeKeyAndVisible()
        defer {
            webView.uiDelegate = nil
            webView.navigationDelegate = nil
            window.isHidden = true
            window.rootViewController = nil
        }
        webView.uiDelegate = delegate
        let waiter = SimulatorPageLoadWaiter(expectation(description: "page loaded"))
        webView.navigationDelegate = waiter
        webView.loadHTMLString("<!DOCTYPE html><html><body><p>panels</p></body></html>", baseURL: nil)
        wait(for: [waiter.loaded], timeout: Self.timeout)
        XCTAssertNil(waiter.failure, "the page did not load")
        try body { script in
            let result = SimulatorScriptResult()
            let finished = expectation(description: script)
            webView.evaluateJavaScript(script) { value, error in
                result.value = value
                result.error = error
                finished.fulfill()
            }
            wait(for: [finished], timeout: Self.timeout)
            return result
        }
    }

    /// Whether the running session hooked `selector` on the delegate class named `name` (found among the app's
    /// classes); fails the test, saying why, when it did not.
    private func hooked(_ name: String, _ selector: String, file: StaticString = #filePath, line: UInt = #line) -> Bool
    {
        let found = HookEngine.shared.activeHooks.contains {
            $0.targetClass.name == name && $0.selector.name == selector
        }
        if !found {
            let image = NSClassFromString(name).flatMap { class_getImageName($0) }.map { String(cString: $0) }
            let isApp = image.map { Session.current.load(ordering: .acquiring)?.isAppImage($0) }
            XCTFail(
                "the uikit guard did not hook -[\(name) \(selector)]: its image \(image ?? "(none)"), an app image: "
                    + "\(String(describing: isApp))", file: file, line: line)
        }
        return found
    }

    /// Runs `script` (one panel) with a delegate that drops WebKit's handler, under the guard in release mode: the app
    /// goes on, the script gets the panel's default answer, and one report names WebKit's exception and reason.
    private func dropPanel(_ script: String, selector: String, panel: String, result expected: String) throws {
        try withShield(Configuration(guards: .uikit)) { sink in
            // Unhooked, the script below would raise in WebKit and end the test process: stop here instead.
            guard hooked("CSSimDroppingPanelDelegate", selector) else { return }
            let delegate = SimulatorDroppingPanelDelegate()
            try withWebView(uiDelegate: delegate) { run in
                let result = run(script)
                XCTAssertNil(result.error, "\(String(describing: result.error))")
                XCTAssertEqual(result.value as? String, expected, "the default answer reached the script")
                let again = run("'still running'")
                XCTAssertEqual(again.value as? String, "still running")
            }
            XCTAssertEqual(delegate.panels, [panel], "the delegate's method ran")
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 1, "\(reports.map(\.reason))")
            let report = try XCTUnwrap(reports.first)
            XCTAssertEqual(report.className, "CSSimDroppingPanelDelegate")
            XCTAssertEqual(report.selector, selector)
            XCTAssertEqual(report.exceptionName, "NSInternalInconsistencyException")
            XCTAssertEqual(
                report.reason, "Completion handler passed to -[CSSimDroppingPanelDelegate \(selector)] was not called")
            XCTAssertEqual(report.action, .recovered)
        }
    }

    func testADroppedAlertHandlerIsAnsweredAndReported() throws {
        try dropPanel(
            "alert('x'); 'after the alert'", selector: Self.alertSelector, panel: "alert x", result: "after the alert")
    }

    func testADroppedConfirmHandlerAnswersFalse() throws {
        try dropPanel("String(confirm('y'))", selector: Self.confirmSelector, panel: "confirm y", result: "false")
    }

    func testADroppedTextInputHandlerAnswersNull() throws {
        try dropPanel("String(prompt('z', 'd'))", selector: Self.promptSelector, panel: "prompt z d", result: "null")
    }

    /// A delegate that answers: the script gets its answers, with and without the guard, and nothing is reported.
    func testAnsweredPanelsAreUnchanged() throws {
        let script = "[String(alert('x')), String(confirm('y')), String(prompt('z', 'd'))].join(',')"
        func answers() throws -> (String?, [String]) {
            let delegate = SimulatorAnsweringPanelDelegate()
            var value: String?
            try withWebView(uiDelegate: delegate) { run in
                let result = run(script)
                XCTAssertNil(result.error, "\(String(describing: result.error))")
                value = result.value as? String
            }
            return (value, delegate.panels)
        }
        let unguarded = try answers()
        XCTAssertEqual(unguarded.0, "undefined,true,typed d")
        XCTAssertEqual(unguarded.1, ["alert x", "confirm y", "prompt z d"])
        try withShield(Configuration(guards: .uikit)) { sink in
            for selector in [Self.alertSelector, Self.confirmSelector, Self.promptSelector] {
                XCTAssertTrue(hooked("CSSimAnsweringPanelDelegate", selector))
            }
            let guarded = try answers()
            XCTAssertEqual(guarded.0, unguarded.0)
            XCTAssertEqual(guarded.1, unguarded.1)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }
}
#endif
