@testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation
import XCTest

/// The opt-in UIKit guard's scroll, presentation and pop checks (issue 32 §3) on fixture classes shaped like
/// UITableView, UICollectionView, UIViewController and UINavigationController (CSSUIKitFixtures.m: each raises what
/// UIKit raises when the precondition fails), installed in their place: unguarded the bad call raises; guarded it is
/// skipped and reported with that exception and reason; valid calls reach the original unchanged; debug mode raises
/// the same. On an iOS simulator, `UIKitGuardSimulatorTests` runs the same calls on the real classes.
final class UIKitNavigationGuardTests: ShieldTestCase {
    private var savedNames = UIKitGuard.ClassNames()

    override func setUp() {
        super.setUp()
        savedNames = UIKitGuard.classNames.current
        UIKitGuard.classNames.withLock {
            $0 = .init(
                layer: "CSSLayer", navigationController: "CSSNavigationController",
                viewController: "CSSPresentingController", alertController: "CSSAlertController",
                tableView: "CSSTableView", collectionView: "CSSCollectionView", layoutConstraint: "CSSLayoutConstraint",
                panelDelegates: ["CSSPanelDelegate"])
        }
    }

    override func tearDown() {
        super.tearDown()
        UIKitGuard.classNames.withLock { $0 = savedNames }
    }

    private func indexedView(collection: Bool, _ counts: [Int]) throws -> CSRObject {
        try XCTUnwrap(css_indexed_view_new(collection, counts, counts.count))
    }

    private func scroll(_ view: CSRObject, _ indexes: [UInt], position: Int = 1, animated: Bool = true) {
        css_indexed_view_scroll(view, indexes, UInt(indexes.count), position, animated)
    }

    /// (scrolls so far, last section, last row/item, last position, last animated)
    private func scrolls(_ view: CSRObject) -> [Int] {
        var last = [Int](repeating: -7, count: 4)
        let count = css_indexed_view_scrolls(view, &last)
        return [count] + last
    }

    // MARK: Scrolling to an index path that does not exist

    /// Each bad scroll target, as (collection, counts, index path, selector, exception).
    private static let badScrolls: [(Bool, [Int], [UInt], String, String)] = [
        (false, [3], [0, 5], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (false, [3], [0, 3], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (false, [2, 0], [1, 0], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (false, [4], [1, 0], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (false, [], [0, 0], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (false, [1], [UInt.max, 0], "scrollToRowAtIndexPath:atScrollPosition:animated:", "NSRangeException"),
        (true, [0], [0, 0], "scrollToItemAtIndexPath:atScrollPosition:animated:", "NSInternalInconsistencyException"),
        (
            true, [1000], [0, 1000], "scrollToItemAtIndexPath:atScrollPosition:animated:",
            "NSInternalInconsistencyException"
        ),
        (
            true, [3], [0, UInt(bitPattern: NSNotFound)], "scrollToItemAtIndexPath:atScrollPosition:animated:",
            "NSInternalInconsistencyException"
        ),
        (true, [1], [2, 0], "scrollToItemAtIndexPath:atScrollPosition:animated:", "NSInternalInconsistencyException"),
        (
            true, [1], [UInt.max, 23], "scrollToItemAtIndexPath:atScrollPosition:animated:",
            "NSInternalInconsistencyException"
        ),
    ]

    func testScrollingToAMissingIndexPathIsSkippedAndReportedAsUIKitRaisesIt() throws {
        for (index, (collection, counts, path, selector, exception)) in Self.badScrolls.enumerated() {
            let plain = try indexedView(collection: collection, counts)
            defer { css_object_release(plain) }
            let raised = try XCTUnwrap(catchingObjCException { self.scroll(plain, path) }, "case \(index) must raise")
            XCTAssertEqual(raised.name, exception, "case \(index)")
            try withShield(Configuration(guards: .uikit)) { sink in
                let view = try indexedView(collection: collection, counts)
                defer { css_object_release(view) }
                XCTAssertNil(catchingObjCException { self.scroll(view, path) }, "case \(index) raised under the guard")
                XCTAssertEqual(scrolls(view)[0], 0, "case \(index): the scroll was skipped")
                CrashShield.flush()
                let report = try XCTUnwrap(sink.reports(in: .uikit).first, "case \(index): no report")
                XCTAssertEqual(sink.reports.count, 1)
                XCTAssertEqual(report.className, collection ? "CSSCollectionView" : "CSSTableView")
                XCTAssertEqual(report.selector, selector)
                XCTAssertEqual(report.exceptionName, raised.name)
                let address = GuardFailure.address(UnsafeRawPointer(view))
                let plainAddress = GuardFailure.address(UnsafeRawPointer(plain))
                XCTAssertEqual(
                    report.reason, raised.reason.replacingOccurrences(of: plainAddress, with: address), "case \(index)")
                XCTAssertEqual(report.action, .recovered)
            }
        }
    }

    /// Valid targets (and those left to UIKit: a table row of NSNotFound, which scrolls to its section; an index path
    /// that is not two indexes long; nil) reach the original with their arguments, guarded or not.
    func testValidScrollsAreUnchanged() throws {
        func run() throws -> [[Int]] {
            var seen: [[Int]] = []
            for collection in [false, true] {
                let view = try indexedView(collection: collection, [3, 0, 1])
                defer { css_object_release(view) }
                scroll(view, [0, 0]); seen.append(scrolls(view))
                scroll(view, [0, 2], position: 2, animated: false); seen.append(scrolls(view))
                scroll(view, [2, 0], position: 3); seen.append(scrolls(view))
                if !collection {
                    scroll(view, [1, UInt(bitPattern: NSNotFound)]); seen.append(scrolls(view))
                    scroll(view, [2]); seen.append(scrolls(view))  // row NSNotFound: section 2
                    css_indexed_view_scroll_nil(view); seen.append(scrolls(view))
                }
                css_indexed_view_set_count(view, 1, 4)
                scroll(view, [1, 3]); seen.append(scrolls(view))  // the view's counts now, not at start()
            }
            return seen
        }
        let unguarded = try run()
        var guarded: [[Int]] = []
        try withShield(Configuration(guards: .uikit)) { sink in
            guarded = try run()
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
        XCTAssertEqual(guarded, unguarded)
        XCTAssertEqual(unguarded[1], [2, 0, 2, 2, 0], "the position and animated flag got through")
    }

    func testDebugModeRaisesWhatUIKitRaisesForAScroll() throws {
        try withShield(Configuration(guards: .uikit, mode: .debug)) { sink in
            let view = try indexedView(collection: false, [3])
            defer { css_object_release(view) }
            let raised = try XCTUnwrap(catchingObjCException { self.scroll(view, [0, 5]) })
            XCTAssertEqual(raised.name, "NSRangeException")
            XCTAssertEqual(
                raised.reason,
                "Attempted to scroll the table view to an out-of-bounds row (5) when there are only 3 rows in section 0. "
                    + "Table view: <CSSTableView: \(GuardFailure.address(UnsafeRawPointer(view)))>")
            XCTAssertEqual(scrolls(view)[0], 0)
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .uikit).first?.action, .failedLoudly)
        }
    }

    // MARK: Presenting

    func testPresentingNilIsSkippedAndReported() throws {
        let plain = try XCTUnwrap(css_presenter_new(false))
        defer { css_object_release(plain) }
        let completions = Counter()
        let raised = try XCTUnwrap(
            catchingObjCException { css_presenter_present_counting(plain, nil, completions.pointer) })
        XCTAssertEqual(raised.name, "NSInvalidArgumentException")
        try withShield(Configuration(guards: .uikit)) { sink in
            let presenter = try XCTUnwrap(css_presenter_new(false))
            defer { css_object_release(presenter) }
            XCTAssertNil(catchingObjCException { css_presenter_present_counting(presenter, nil, completions.pointer) })
            XCTAssertEqual(css_presenter_presentations(presenter), 0, "nothing presented")
            XCTAssertEqual(completions.pointer.pointee, 0, "the completion of a skipped presentation is not called")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSPresentingController")
            XCTAssertEqual(report.selector, "presentViewController:animated:completion:")
            XCTAssertEqual(report.exceptionName, raised.name)
            XCTAssertEqual(
                report.reason,
                raised.reason.replacingOccurrences(
                    of: GuardFailure.address(UnsafeRawPointer(plain)),
                    with: GuardFailure.address(UnsafeRawPointer(presenter))))
        }
    }

    func testPresentingAControllerAlreadyPresentedIsSkippedAndReported() throws {
        let first = try XCTUnwrap(css_presenter_new(false)), second = try XCTUnwrap(css_presenter_new(false))
        let controller = try XCTUnwrap(css_view_controller_new())
        defer { [first, second, controller].forEach { css_object_release($0) } }
        let completions = Counter()
        css_presenter_present_counting(first, controller, completions.pointer)
        XCTAssertEqual(completions.pointer.pointee, 1)
        let raised = try XCTUnwrap(
            catchingObjCException { css_presenter_present_counting(second, controller, completions.pointer) })
        XCTAssertEqual(raised.name, "NSInvalidArgumentException")
        let again = try XCTUnwrap(
            catchingObjCException { css_presenter_present_counting(first, controller, completions.pointer) },
            "presented again by the same presenter: raises too")
        XCTAssertEqual(again.reason, raised.reason)
        css_view_controller_set_chain(controller, nil, nil, false)
        try withShield(Configuration(guards: .uikit)) { sink in
            completions.pointer.pointee = 0
            css_presenter_present_counting(first, controller, completions.pointer)
            XCTAssertEqual(completions.pointer.pointee, 1, "a valid presentation goes through, completion and all")
            XCTAssertEqual(css_view_controller_presenter(controller), first)
            XCTAssertNil(
                catchingObjCException { css_presenter_present_counting(second, controller, completions.pointer) })
            XCTAssertEqual(css_presenter_presentations(second), 0, "nothing presented")
            XCTAssertEqual(css_view_controller_presenter(controller), first, "still presented by the first")
            XCTAssertEqual(completions.pointer.pointee, 1, "the completion of a skipped presentation is not called")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSPresentingController")
            XCTAssertEqual(report.exceptionName, raised.name)
            XCTAssertEqual(report.reason, raised.reason, "the same controllers: the same words")
            XCTAssertEqual(report.action, .recovered)
        }
    }

    /// A controller with a parent (its `presentingViewController` is its container's) and one being dismissed are left
    /// to UIKit; other presentations go through with their completion.
    func testOtherPresentationsReachUIKit() throws {
        func run() throws -> [Int] {
            let presenter = try XCTUnwrap(css_presenter_new(false)), other = try XCTUnwrap(css_presenter_new(false))
            let child = try XCTUnwrap(css_view_controller_new()), dismissing = try XCTUnwrap(css_view_controller_new())
            let fresh = try XCTUnwrap(css_view_controller_new())
            defer { [presenter, other, child, dismissing, fresh].forEach { css_object_release($0) } }
            css_view_controller_set_chain(child, other, other, false)
            css_view_controller_set_chain(dismissing, other, nil, true)
            let completions = Counter()
            for controller in [child, dismissing, fresh] {
                XCTAssertNil(
                    catchingObjCException { css_presenter_present_counting(presenter, controller, completions.pointer) }
                )
            }
            return [completions.pointer.pointee, css_presenter_presentations(presenter)]
        }
        let unguarded = try run()
        XCTAssertEqual(unguarded, [3, 3])
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(try run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    func testDebugModeRaisesWhatUIKitRaisesForANilPresentation() throws {
        try withShield(Configuration(guards: .uikit, mode: .debug)) { sink in
            let presenter = try XCTUnwrap(css_presenter_new(false))
            defer { css_object_release(presenter) }
            let completions = Counter()
            let raised = try XCTUnwrap(
                catchingObjCException { css_presenter_present_counting(presenter, nil, completions.pointer) })
            XCTAssertEqual(raised.name, "NSInvalidArgumentException")
            XCTAssertEqual(
                raised.reason,
                "Application tried to present a nil modal view controller on target <CSSPresentingController: "
                    + "\(GuardFailure.address(UnsafeRawPointer(presenter)))>.")
            CrashShield.flush()
            XCTAssertEqual(sink.reports(in: .uikit).first?.action, .failedLoudly)
        }
    }

    // MARK: Popping

    func testPoppingToAControllerNotOnTheStackIsSkippedAndReported() throws {
        let plain = try XCTUnwrap(css_navigation_new()), stranger = try XCTUnwrap(css_view_controller_new())
        let root = try XCTUnwrap(css_view_controller_new())
        defer { [plain, stranger, root].forEach { css_object_release($0) } }
        css_navigation_push(plain, root, false)
        let raised = try XCTUnwrap(catchingObjCException { _ = css_navigation_pop_to(plain, stranger, nil) })
        XCTAssertEqual(raised.name, "NSInternalInconsistencyException")
        XCTAssertEqual(raised.reason, "Tried to pop to a view controller that doesn't exist.")
        try withShield(Configuration(guards: .uikit)) { sink in
            let navigation = try XCTUnwrap(css_navigation_new())
            let first = try XCTUnwrap(css_view_controller_new()), second = try XCTUnwrap(css_view_controller_new())
            defer { [navigation, first, second].forEach { css_object_release($0) } }
            css_navigation_push(navigation, first, false)
            css_navigation_push(navigation, second, false)
            var returnedNil = false
            XCTAssertNil(catchingObjCException { _ = css_navigation_pop_to(navigation, stranger, &returnedNil) })
            XCTAssertEqual(css_navigation_count(navigation), 2, "nothing popped")
            XCTAssertTrue(returnedNil, "a skipped pop returns nil")
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1)
            XCTAssertEqual(report.className, "CSSNavigationController")
            XCTAssertEqual(report.selector, "popToViewController:animated:")
            XCTAssertEqual(report.exceptionName, raised.name)
            XCTAssertEqual(report.reason, raised.reason)
            XCTAssertEqual(report.action, .recovered)
        }
    }

    /// Pops to a controller on the stack (the top one too: nothing to pop) and to nil (left to UIKit) are unchanged.
    func testValidPopsAreUnchanged() throws {
        func run() throws -> [String] {
            let navigation = try XCTUnwrap(css_navigation_new())
            let controllers = try (0..<4).map { _ in try XCTUnwrap(css_view_controller_new()) }
            defer { ([navigation] + controllers).forEach { css_object_release($0) } }
            controllers.forEach { css_navigation_push(navigation, $0, false) }
            var seen: [String] = []
            for target in [controllers[3], controllers[1], controllers[1], controllers[0]] {
                var returnedNil = false
                let popped = css_navigation_pop_to(navigation, target, &returnedNil)
                seen.append("\(popped) \(returnedNil) \(css_navigation_count(navigation))")
            }
            let raised = catchingObjCException { _ = css_navigation_pop_to(navigation, nil, nil) }
            seen.append(raised.map { "\($0.name): \($0.reason)" } ?? "no raise")
            return seen
        }
        let unguarded = try run()
        XCTAssertEqual(unguarded.prefix(4), ["0 false 4", "2 false 2", "0 false 2", "1 false 1"])
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(try run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    // MARK: Activating constraints between items with no common ancestor

    /// Two hierarchies (root A with a child and a guide, root B) and constraints within and across them.
    private final class Layout {
        let rootA: CSRObject, child: CSRObject, guide: CSRObject, rootB: CSRObject, orphanGuide: CSRObject
        init() {
            rootA = css_layout_view_new(nil)
            child = css_layout_view_new(rootA)
            guide = css_layout_guide_new(child)
            rootB = css_layout_view_new(nil)
            orphanGuide = css_layout_guide_new(nil)
        }
        deinit { [orphanGuide, rootB, guide, child, rootA].forEach { css_object_release($0) } }
        func constraint(_ first: CSRObject, _ second: CSRObject?) -> CSRObject {
            css_layout_constraint_new(first, second)
        }
    }

    func testActivatingAConstraintAcrossHierarchiesIsSkippedAndReported() throws {
        let layout = Layout()
        for (first, second) in [(layout.child, layout.rootB), (layout.guide, layout.rootB)] {
            let plain = layout.constraint(first, second)
            defer { css_object_release(plain) }
            let raised = try XCTUnwrap(catchingObjCException { css_layout_constraint_set_active(plain, true) })
            XCTAssertEqual(raised.name, "NSGenericException")
            try withShield(Configuration(guards: .uikit)) { sink in
                XCTAssertNil(catchingObjCException { css_layout_constraint_set_active(plain, true) })
                XCTAssertFalse(css_layout_constraint_is_active(plain), "not activated")
                CrashShield.flush()
                let report = try XCTUnwrap(sink.reports(in: .uikit).first)
                XCTAssertEqual(sink.reports.count, 1)
                XCTAssertEqual(report.className, "CSSLayoutConstraint")
                XCTAssertEqual(report.selector, "setActive:")
                XCTAssertEqual(report.exceptionName, raised.name)
                XCTAssertEqual(report.reason, raised.reason, "the same anchors: the same words")
                XCTAssertEqual(report.action, .recovered)
            }
        }
    }

    /// `+activateConstraints:` raises at the first bad constraint, after activating those before it; under the guard
    /// every good one is activated, the bad one is not, and the call is reported once.
    func testActivatingAnArrayActivatesTheOthersAndReportsTheFirstBadOne() throws {
        let layout = Layout()
        let good = layout.constraint(layout.child, layout.rootA), bad = layout.constraint(layout.rootB, layout.guide)
        let later = layout.constraint(layout.guide, layout.rootA)
        defer { [good, bad, later].forEach { css_object_release($0) } }
        let raised = try XCTUnwrap(catchingObjCException { css_layout_activate([good, bad, later], 3) })
        XCTAssertEqual(raised.name, "NSGenericException")
        XCTAssertEqual(
            [good, bad, later].map(css_layout_constraint_is_active), [true, false, false], "UIKit stops there")
        [good, later].forEach { css_layout_constraint_set_active($0, false) }
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertNil(catchingObjCException { css_layout_activate([good, bad, later], 3) })
            XCTAssertEqual([good, bad, later].map(css_layout_constraint_is_active), [true, false, true])
            CrashShield.flush()
            let report = try XCTUnwrap(sink.reports(in: .uikit).first)
            XCTAssertEqual(sink.reports.count, 1, "\(sink.reports.map(\.reason))")
            XCTAssertEqual(report.className, "CSSLayoutConstraint")
            XCTAssertEqual(report.selector, "activateConstraints:")
            XCTAssertEqual(report.reason, raised.reason)
        }
    }

    /// Within one hierarchy, one item, deactivation, and a guide without an owning view (left to UIKit): unchanged.
    func testValidActivationsAreUnchanged() throws {
        func run() -> [String] {
            let layout = Layout()
            let pairs: [(CSRObject, CSRObject?)] = [
                (layout.child, layout.rootA), (layout.guide, layout.child), (layout.rootB, nil),
                (layout.orphanGuide, layout.rootA),
            ]
            return pairs.flatMap { first, second -> [String] in
                let constraint = layout.constraint(first, second), array = layout.constraint(first, second)
                defer { css_object_release(constraint); css_object_release(array) }
                let single = catchingObjCException { css_layout_constraint_set_active(constraint, true) }
                let many = catchingObjCException { css_layout_activate([array], 1) }
                let active = [constraint, array].map(css_layout_constraint_is_active)
                css_layout_constraint_set_active(constraint, false)
                return [
                    "\(single?.name ?? "-") \(many?.name ?? "-") \(active)",
                    "\(css_layout_constraint_is_active(constraint))",
                ]
            }
        }
        let unguarded = run()
        XCTAssertEqual(unguarded[0], "- - [true, true]")
        XCTAssertEqual(unguarded[6], "NSGenericException NSGenericException [false, false]", "UIKit's to judge")
        try withShield(Configuration(guards: .uikit)) { sink in
            XCTAssertEqual(run(), unguarded)
            CrashShield.flush()
            XCTAssertTrue(sink.reports.isEmpty, "\(sink.reports.map(\.reason))")
        }
    }

    func testHooksInstalledAndRevertedWithTheGuard() throws {
        let points: [(String, String)] = [
            ("CSSTableView", "scrollToRowAtIndexPath:atScrollPosition:animated:"),
            ("CSSCollectionView", "scrollToItemAtIndexPath:atScrollPosition:animated:"),
            ("CSSNavigationController", "popToViewController:animated:"),
            ("CSSPresentingController", "presentViewController:animated:completion:"),
            ("CSSLayoutConstraint", "setActive:"),
        ]
        func installed() -> [Bool] {
            points.map { point in
                HookEngine.shared.activeHooks.contains {
                    $0.targetClass.name == point.0 && $0.selector.name == point.1
                }
            }
        }
        withShield(Configuration.production) { _ in XCTAssertEqual(installed(), [false, false, false, false, false]) }
        withShield(Configuration(guards: .uikit)) { _ in XCTAssertEqual(installed(), [true, true, true, true, true]) }
        XCTAssertEqual(installed(), [false, false, false, false, false])
        // Without an alert controller class the presentation hook still guards nil and double presentations.
        UIKitGuard.classNames.withLock { $0.alertController = "CSSNoSuchAlert" }
        withShield(Configuration(guards: .uikit)) { _ in XCTAssertEqual(installed(), [true, true, true, true, true]) }
    }
}

/// A counter the fixture writes through a pointer: on the heap, so that no Swift inout access is open when an
/// Objective-C exception unwinds the closure that passes it (an unwound access corrupts Swift's exclusivity records).
private final class Counter {
    let pointer = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    init() { pointer.initialize(to: 0) }
    deinit { pointer.deallocate() }
}
