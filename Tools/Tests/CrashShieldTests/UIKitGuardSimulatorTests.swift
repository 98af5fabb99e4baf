#if canImport(UIKit) && !os(watchOS)
@testable import CrashShield
import CrashShieldTesting
import UIKit
import XCTest

/// The opt-in UIKit guard on the real classes: runs on an iOS simulator (.github/workflows/apple.yml: this class on an
/// iPhone, `UIKitGuardIPadSimulatorTests` below on an iPad, `WebKitPanelSimulatorTests` for WKWebView's panels),
/// compiled out where UIKit is absent. `UIKitGuardTests` runs the same calls here on fixture classes shaped like these.
final class UIKitGuardSimulatorTests: ShieldTestCase {
    func testNaNGeometryOfARealLayerIsSkippedAndReported() throws {
        withShield(Configuration(guards: .uikit)) { sink in
            let layer = CALayer()
            layer.frame = CGRect(x: 1, y: 2, width: 30, height: 40)
            let position = layer.position, bounds = layer.bounds
            layer.position = CGPoint(x: CGFloat.nan, y: 43.5)
            layer.bounds = CGRect(x: 0, y: CGFloat.nan, width: 320, height: 291)
            layer.frame = CGRect(x: CGFloat.nan, y: 0, width: 10, height: 10)
            let view = UIView(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
            view.frame = CGRect(x: 0, y: 0, width: CGFloat.nan, height: 10)  // through the layer's setters: no crash
            XCTAssertEqual(layer.position, position)
            XCTAssertEqual(layer.bounds, bounds)
            CrashShield.flush()
            let reasons = sink.reports(in: .uikit).map(\.reason)
            XCTAssertTrue(reasons.contains("CALayer position contains NaN: [nan 43.5]"), "\(reasons)")
            XCTAssertTrue(reasons.contains("CALayer bounds contains NaN: [0 nan; 320 291]"), "\(reasons)")
            XCTAssertTrue(sink.reports(in: .uikit).allSatisfy { $0.exceptionName == "CALayerInvalidGeometry" })
        }
    }

    func testValidGeometryIsUnchanged() throws {
        func run() -> [CGRect] {
            let layer = CALayer()
            layer.frame = CGRect(x: 10, y: 20, width: 100, height: 50)
            layer.position = CGPoint(x: 3, y: 4)
            layer.bounds = CGRect(x: 0, y: 0, width: 320, height: 291)
            return [layer.frame, layer.bounds, CGRect(origin: layer.position, size: .zero)]
        }
        let unguarded = run()
        withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testPushingAControllerAlreadyOnTheStackIsSkippedAndReported() throws {
        withShield(Configuration(guards: .uikit)) { sink in
            let root = UIViewController(), next = UIViewController()
            let navigation = UINavigationController(rootViewController: root)
            navigation.pushViewController(next, animated: false)
            XCTAssertEqual(navigation.viewControllers.count, 2)
            navigation.pushViewController(next, animated: false)
            navigation.pushViewController(root, animated: false)
            XCTAssertEqual(navigation.viewControllers, [root, next])
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.first?.selector, "pushViewController:animated:")
            XCTAssertEqual(reports.first?.exceptionName, "NSInvalidArgumentException")
            XCTAssertTrue(reports.first?.reason.contains("is pushing the same view controller instance") ?? false)
        }
    }
}

/// Skips a test that needs an app: a key window that presents a controller, or a WKWebView whose web content process
/// runs scripts. A SwiftPM test bundle on a simulator runs in xcodebuild's test runner with no host app:
/// `UIApplicationMain` never ran, so `+[UIApplication sharedApplication]` answers nil (asked by message: Swift's
/// `UIApplication.shared` is declared non-optional). A host app target (an Xcode project whose unit-test bundle has a
/// test host) runs them; .github/workflows/apple.yml says which of them skipped.
@MainActor
func requireHostApplication(_ what: String) throws {
    let shared = (UIApplication.self as AnyObject).perform(NSSelectorFromString("sharedApplication"))?
        .takeUnretainedValue()
    guard shared != nil else {
        throw XCTSkip("\(what) needs a host app (UIApplication); this test bundle runs without one")
    }
}

/// The action sheet on an iPad (regular width), where UIKit presents it as a popover and raises without a location;
/// a class of its own so that apple.yml's iPad step runs it alone (an iPhone adapts the sheet and raises nothing: there
/// it is skipped).
@MainActor  // UIKit is a main-actor API; XCTest runs the tests on the main thread
final class UIKitGuardIPadSimulatorTests: ShieldTestCase {
    func testAnActionSheetWithoutAPopoverSourceGetsThePresentersView() throws {
        try requireHostApplication("presenting an action sheet from a key window")
        let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 1024, height: 768))
        let presenter = UIViewController()
        window.rootViewController = presenter
        window.makeKeyAndVisible()
        defer {
            window.isHidden = true
            window.rootViewController = nil
        }
        presenter.view.layoutIfNeeded()
        guard presenter.traitCollection.horizontalSizeClass == .regular else {
            throw XCTSkip(
                "compact width (\(presenter.traitCollection.horizontalSizeClass.rawValue)): UIKit adapts the sheet; "
                    + "apple.yml runs this test on an iPad")
        }
        try withShield(Configuration(guards: .uikit)) { sink in
            let sheet = UIAlertController(title: "Share", message: nil, preferredStyle: .actionSheet)
            sheet.addAction(UIAlertAction(title: "Cancel", style: .cancel))
            let popover = try XCTUnwrap(sheet.popoverPresentationController, "an action sheet is a popover on an iPad")
            XCTAssertNil(popover.sourceView)
            XCTAssertNil(popover.barButtonItem)
            let presented = expectation(description: "presented")
            presenter.present(sheet, animated: false) { presented.fulfill() }
            XCTAssertTrue(popover.sourceView === presenter.view, "the guard gave the popover the presenter's view")
            let bounds = presenter.view.bounds
            XCTAssertEqual(popover.sourceRect, CGRect(x: bounds.midX, y: bounds.midY, width: 0, height: 0))
            wait(for: [presented], timeout: 30)
            XCTAssertTrue(presenter.presentedViewController === sheet, "the sheet was presented")
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 1, "\(reports.map(\.reason))")
            let report = try XCTUnwrap(reports.first)
            XCTAssertEqual(report.className, "UIViewController")
            XCTAssertEqual(report.selector, "presentViewController:animated:completion:")
            XCTAssertEqual(report.exceptionName, "NSGenericException")
            XCTAssertTrue(
                report.reason.hasPrefix("Your application has presented a UIAlertController (<UIAlertController: 0x"),
                report.reason)
            XCTAssertEqual(report.action, .recovered)
            let dismissed = expectation(description: "dismissed")
            presenter.dismiss(animated: false) { dismissed.fulfill() }
            wait(for: [dismissed], timeout: 30)
        }
    }
}
#endif
