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

    // MARK: Scrolling, presenting and popping (UIKitNavigationGuardTests runs the same on fixtures)

    /// UIKit's own raise first (unguarded, on the same view, so the address is the same), then the guard: the scroll
    /// is skipped and the report's reason is UIKit's up to the view's description, which it cuts to class and address.
    func testScrollingATableViewToAMissingRowIsSkippedAndReported() throws {
        let source = SimulatorIndexedSource(counts: [3, 0])
        let table = UITableView(frame: CGRect(x: 0, y: 0, width: 320, height: 200), style: .plain)
        table.register(UITableViewCell.self, forCellReuseIdentifier: SimulatorIndexedSource.identifier)
        table.dataSource = source
        table.reloadData()
        let bad = [IndexPath(row: 5, section: 0), IndexPath(row: 0, section: 1), IndexPath(row: 0, section: 2)]
        let raised = bad.map { path in
            catchingObjCException { table.scrollToRow(at: path, at: .top, animated: false) }
        }
        XCTAssertEqual(raised.map { $0?.name }, Array(repeating: "NSRangeException", count: 3), "\(raised)")
        try withShield(Configuration(guards: .uikit)) { sink in
            let offset = table.contentOffset
            for path in bad {
                XCTAssertNil(catchingObjCException { table.scrollToRow(at: path, at: .top, animated: false) })
            }
            XCTAssertEqual(table.contentOffset, offset, "skipped")
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 3, "\(reports.map(\.reason))")
            for (report, raised) in zip(reports, raised) {
                XCTAssertEqual(report.exceptionName, "NSRangeException")
                XCTAssertEqual(report.selector, "scrollToRowAtIndexPath:atScrollPosition:animated:")
                XCTAssertTrue(
                    raised?.reason.hasPrefix(String(report.reason.dropLast())) ?? false,
                    "UIKit: \(raised?.reason ?? "-")\nreport: \(report.reason)")
            }
        }
    }

    func testScrollingACollectionViewToAMissingItemIsSkippedAndReported() throws {
        let source = SimulatorIndexedSource(counts: [3])
        let layout = UICollectionViewFlowLayout()
        layout.itemSize = CGSize(width: 50, height: 50)
        let collection = UICollectionView(
            frame: CGRect(x: 0, y: 0, width: 320, height: 100), collectionViewLayout: layout)
        collection.register(UICollectionViewCell.self, forCellWithReuseIdentifier: SimulatorIndexedSource.identifier)
        collection.dataSource = source
        collection.reloadData()
        collection.layoutIfNeeded()
        let bad = [IndexPath(item: 3, section: 0), IndexPath(item: 0, section: 1)]
        let raised = bad.map { path in
            catchingObjCException { collection.scrollToItem(at: path, at: .top, animated: false) }
        }
        XCTAssertEqual(raised.first??.name, "NSInternalInconsistencyException", "\(raised)")
        try withShield(Configuration(guards: .uikit)) { sink in
            for path in bad {
                XCTAssertNil(catchingObjCException { collection.scrollToItem(at: path, at: .top, animated: false) })
            }
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 2, "\(reports.map(\.reason))")
            let report = try XCTUnwrap(reports.first)
            XCTAssertEqual(report.exceptionName, raised.first??.name)
            XCTAssertTrue(
                raised.first??.reason.hasPrefix(String(report.reason.dropLast(2))) ?? false,
                "UIKit: \(raised.first??.reason ?? "-")\nreport: \(report.reason)")
            // The section's text is unverified (FoundationFailures.swift): printed for the log, not asserted.
            print(
                "collection view, section out of bounds: UIKit: \(raised.last??.reason ?? "-"); report: \(reports[1].reason)"
            )
        }
    }

    /// Valid targets (a table row of NSNotFound scrolls to its section) reach UIKit: the same content offsets.
    func testValidScrollsAreUnchanged() throws {
        func run() -> [CGPoint] {
            let source = SimulatorIndexedSource(counts: [30, 0, 5])
            let table = UITableView(frame: CGRect(x: 0, y: 0, width: 320, height: 200), style: .plain)
            table.register(UITableViewCell.self, forCellReuseIdentifier: SimulatorIndexedSource.identifier)
            table.dataSource = source
            table.reloadData()
            var offsets: [CGPoint] = []
            for path in [
                IndexPath(row: 20, section: 0), IndexPath(row: NSNotFound, section: 1), IndexPath(row: 4, section: 2),
            ] {
                table.scrollToRow(at: path, at: .top, animated: false)
                offsets.append(table.contentOffset)
            }
            return offsets
        }
        let unguarded = run()
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    /// Swift's `present(_:animated:completion:)` takes no nil: the Objective-C method is called through its IMP, as
    /// Objective-C code (or a force-unwrapped storyboard lookup bridged as nil) would call it.
    func testPresentingNilIsSkippedAndReported() throws {
        typealias Present = @convention(c) (AnyObject, Selector, AnyObject?, Bool, AnyObject?) -> Void
        let presenter = UIViewController()
        let selector = NSSelectorFromString("presentViewController:animated:completion:")
        let raised = catchingObjCException {
            unsafeBitCast(presenter.method(for: selector), to: Present.self)(presenter, selector, nil, false, nil)
        }
        XCTAssertEqual(raised?.name, "NSInvalidArgumentException")
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertNil(
                catchingObjCException {
                    unsafeBitCast(presenter.method(for: selector), to: Present.self)(
                        presenter, selector, nil, false, nil)
                })
            XCTAssertNil(presenter.presentedViewController)
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(report.exceptionName, "NSInvalidArgumentException")
            XCTAssertEqual(report.reason, raised?.reason)
        }
    }

    func testPoppingToAControllerNotOnTheStackIsSkippedAndReported() throws {
        let root = UIViewController(), next = UIViewController(), stranger = UIViewController()
        let navigation = UINavigationController(rootViewController: root)
        navigation.pushViewController(next, animated: false)
        let raised = catchingObjCException { _ = navigation.popToViewController(stranger, animated: false) }
        XCTAssertEqual(raised?.name, "NSInternalInconsistencyException")
        XCTAssertEqual(raised?.reason, "Tried to pop to a view controller that doesn't exist.")
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertNil(navigation.popToViewController(stranger, animated: false), "nothing popped")
            XCTAssertEqual(navigation.viewControllers, [root, next])
            XCTAssertEqual(navigation.popToViewController(root, animated: false), [next], "a valid pop goes through")
            XCTAssertEqual(navigation.viewControllers, [root])
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 1, "\(reports.map(\.reason))")
            XCTAssertEqual(reports.first?.selector, "popToViewController:animated:")
            XCTAssertEqual(reports.first?.reason, raised?.reason)
        }
    }

    /// Constraints between views of two hierarchies: UIKit raises (unguarded, on the same constraint); guarded, the
    /// constraint stays inactive, the others of `activate` are activated, and the reason is UIKit's.
    func testActivatingAConstraintAcrossHierarchiesIsSkippedAndReported() throws {
        let rootA = UIView(), child = UIView(), rootB = UIView()
        rootA.addSubview(child)
        let bad = child.leadingAnchor.constraint(equalTo: rootB.trailingAnchor)
        let good = child.topAnchor.constraint(equalTo: rootA.topAnchor)
        let raised = catchingObjCException { bad.isActive = true }
        XCTAssertEqual(raised?.name, "NSGenericException")
        XCTAssertFalse(bad.isActive)
        try withShield(Configuration(guards: .uikit)) { sink in
            bad.isActive = true
            XCTAssertFalse(bad.isActive, "not activated")
            NSLayoutConstraint.activate([bad, good])
            XCTAssertEqual([bad.isActive, good.isActive], [false, true])
            CrashShield.flush()
            let reports = sink.reports(in: .uikit)
            XCTAssertEqual(reports.count, 2, "\(reports.map(\.reason))")
            XCTAssertEqual(reports.first?.exceptionName, "NSGenericException")
            XCTAssertEqual(reports.first?.reason, raised?.reason)
        }
    }
}

/// Table and collection data: `counts[section]` rows or items.
final class SimulatorIndexedSource: NSObject, UITableViewDataSource, UICollectionViewDataSource {
    static let identifier = "cell"
    let counts: [Int]
    init(counts: [Int]) { self.counts = counts }
    func numberOfSections(in tableView: UITableView) -> Int { counts.count }
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { counts[section] }
    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        tableView.dequeueReusableCell(withIdentifier: Self.identifier, for: indexPath)
    }
    func numberOfSections(in collectionView: UICollectionView) -> Int { counts.count }
    func collectionView(_ collectionView: UICollectionView, numberOfItemsInSection section: Int) -> Int {
        counts[section]
    }
    func collectionView(_ collectionView: UICollectionView, cellForItemAt indexPath: IndexPath) -> UICollectionViewCell
    {
        collectionView.dequeueReusableCell(withReuseIdentifier: Self.identifier, for: indexPath)
    }
}

/// A controller presented a second time: needs a key window that presents (a host app; skipped in a SwiftPM test
/// bundle, .github/workflows/apple.yml counts it among the skipped).
@MainActor
final class UIKitPresentationHostedSimulatorTests: ShieldTestCase {
    func testPresentingAControllerAlreadyPresentedIsSkippedAndReported() throws {
        try requireHostApplication("presenting from a key window")
        let window = UIWindow(frame: CGRect(x: 0, y: 0, width: 390, height: 844))
        let presenter = UIViewController(), other = UIViewController(), presented = UIViewController()
        window.rootViewController = presenter
        window.makeKeyAndVisible()
        defer {
            window.isHidden = true
            window.rootViewController = nil
        }
        let shown = expectation(description: "presented")
        presenter.present(presented, animated: false) { shown.fulfill() }
        wait(for: [shown], timeout: 30)
        try withShield(Configuration(guards: .uikit)) { sink in
            var completed = false
            presenter.present(presented, animated: false) { completed = true }
            XCTAssertFalse(completed, "the completion of a skipped presentation is not called")
            XCTAssertTrue(presented.presentingViewController === presenter)
            XCTAssertNil(other.presentedViewController)
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(report.exceptionName, "NSInvalidArgumentException")
            XCTAssertTrue(
                report.reason.hasPrefix("Application tried to present modally a view controller <UIViewController: 0x"),
                report.reason)
            XCTAssertTrue(report.reason.contains("that is already being presented by <UIViewController: 0x"))
        }
        let dismissed = expectation(description: "dismissed")
        presenter.dismiss(animated: false) { dismissed.fulfill() }
        wait(for: [dismissed], timeout: 30)
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
