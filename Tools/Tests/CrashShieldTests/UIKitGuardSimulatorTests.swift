#if canImport(UIKit) && !os(watchOS)
@testable import CrashShield
import CrashShieldTesting
import UIKit
import XCTest

/// The opt-in UIKit guard on the real classes: runs on an iOS simulator (.github/workflows/apple.yml), compiled out
/// where UIKit is absent. `UIKitGuardTests` runs the same calls here on fixture classes shaped like these.
final class UIKitGuardSimulatorTests: ShieldTestCase {
    func testNaNGeometryOfARealLayerIsSkippedAndReported() throws {
        try withShield(Configuration(guards: .uikit)) { sink in
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
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty)
        }
    }

    func testPushingAControllerAlreadyOnTheStackIsSkippedAndReported() throws {
        try withShield(Configuration(guards: .uikit)) { sink in
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
#endif
