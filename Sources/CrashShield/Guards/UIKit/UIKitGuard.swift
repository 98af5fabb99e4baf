import CrashShieldRuntime.Internal
import Foundation

/// Opt-in (`GuardCategory.uikit`): UIKit and Core Animation calls that raise, among the most frequent crashes of iOS
/// apps. The call is skipped and reported (the receiver is left as it was); debug mode raises what UIKit raises.
/// - `-[CALayer setPosition:]`, `setBounds:`, `setFrame:` with a NaN component (usually through `-[UIView setFrame:]`
///   or `center`): Core Animation raises `CALayerInvalidGeometry` ("CALayer position contains NaN: [nan 43.5]").
///   `setFrame:` sets the position it computes from the frame and the anchor point: a NaN anywhere in the frame, or
///   a position that comes out NaN (an infinite origin and size), is stopped there.
/// - `-[UINavigationController pushViewController:animated:]` with a controller that is already on the navigation
///   stack (`viewControllers`, identity): UIKit raises NSInvalidArgumentException.
/// - A WKWebView JavaScript panel delegate (`webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:
///   completionHandler:`, the confirm and text-input forms) that releases WebKit's completion handler uncalled: WebKit
///   raises NSInternalInconsistencyException ("Completion handler passed to -[<class> <selector>] was not called").
///   The delegate gets a wrapper block (CSRWebKit.h) that forwards every call; released uncalled, it calls WebKit's
///   handler once with the default answer (none, NO, nil) and reports. Hooked on the app's own classes that implement
///   the method themselves at `start()` (the topmost such class of a chain: a subclass override that never calls
///   super is not guarded); classes registered later are not hooked.
///
/// - Scrolling a table or collection view to an index path it does not hold (UIKitScrollHooks.swift); presenting nil
///   or a controller already presented, popping to a controller not on the stack (UIKitPresentationHooks.swift);
///   activating a constraint whose items have no common ancestor (UIKitLayoutHooks.swift).
///
/// Hooked by their public class names (`CALayer`, `UINavigationController`: documented SDK classes that implement
/// these methods themselves), only where the class exists; a subclass that overrides one of them without calling
/// super is not guarded. Proven here with fixture classes shaped like them (`UIKitGuardTests`), on a simulator by the
/// Apple workflow (`UIKitGuardSimulatorTests`).
enum UIKitGuard {
    /// The classes hooked. Tests put fixture classes shaped like them in their place (GNUstep has no UIKit).
    struct ClassNames: Sendable, Equatable {
        var layer = "CALayer"
        var navigationController = "UINavigationController"
        var viewController = "UIViewController"
        var alertController = "UIAlertController"
        var tableView = "UITableView"
        var collectionView = "UICollectionView"
        var layoutConstraint = "NSLayoutConstraint"
        /// The WKUIDelegate classes hooked: nil for every app class (`Session.isAppClass`) that implements a panel
        /// method itself; tests name fixture delegates.
        var panelDelegates: [String]? = nil
    }
    /// The alert controller class of the running session (nil where there is none).
    static let alertClass = Locked<ObjCClass?>(nil)
    static let classNames = Locked(ClassNames())

    static func install(in context: GuardContext) throws {
        let names = Self.classNames.current
        if let layer = ObjCClass(named: names.layer) {
            try context.install([Self.setPosition, Self.setBounds, Self.setFrame], on: [layer])
        }
        if let navigation = ObjCClass(named: names.navigationController) {
            try context.install([Self.pushViewController, Self.popToViewController], on: [navigation])
        }
        let alert = ObjCClass(named: names.alertController)
        Self.alertClass.withLock { $0 = alert }
        if let controller = ObjCClass(named: names.viewController) {
            try context.install(Self.presentViewController, on: [controller])
        }
        if let table = ObjCClass(named: names.tableView) { try context.install(Self.scrollToRow, on: [table]) }
        if let collection = ObjCClass(named: names.collectionView) {
            try context.install(Self.scrollToItem, on: [collection])
        }
        if let constraint = ObjCClass(named: names.layoutConstraint) {
            try context.install([Self.setActive, Self.activateConstraints], on: [constraint])
        }
        _ = IncidentChannel.registered  // before the panel hooks: their wrappers report through it
        let candidates = names.panelDelegates.map { $0.compactMap { ObjCClass(named: $0) } } ?? appClasses()
        for point in Self.panelPoints {
            try context.install(point, on: topmostOwners(of: point.selector, among: candidates))
        }
    }

    /// Forgets the session's alert controller class (its hook is reverted).
    static func uninstall() { alertClass.withLock { $0 = nil } }

    typealias PointIMP = @convention(c) (CSRObject?, CSRSelector?, CSRPoint) -> Void
    typealias RectIMP = @convention(c) (CSRObject?, CSRSelector?, CSRRect) -> Void
    /// BOOL is a byte on every platform the package builds for (bool on arm64, signed char on x86_64 Apple, unsigned
    /// char on GNUstep): passed on untouched.
    typealias PushIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt8) -> Void
    typealias PresentIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt8, CSRObject?) -> Void

    // MARK: Core Animation geometry

    static let setPosition: GuardedMethod<PointIMP> = GuardedMethod("setPosition:", .uikit) { r, cmd, point in
        setPosition.mutation(r, cmd, valid: !point.x.isNaN && !point.y.isNaN, else: .layerPosition(point.x, point.y)) {
            $0(r, cmd, point)
        }
    }

    static let setBounds: GuardedMethod<RectIMP> = GuardedMethod("setBounds:", .uikit) { r, cmd, rect in
        setBounds.mutation(r, cmd, valid: !hasNaN(rect), else: .layerBounds(rect.x, rect.y, rect.width, rect.height)) {
            $0(r, cmd, rect)
        }
    }

    static let setFrame: GuardedMethod<RectIMP> = GuardedMethod("setFrame:", .uikit) { r, cmd, frame in
        let anchor =
            hasNaN(frame) || !frame.x.isFinite || !frame.y.isFinite
            ? csr_layer_anchor_point(r) : CSRPoint(x: 0.5, y: 0.5)
        let position = CSRPoint(x: frame.x + frame.width * anchor.x, y: frame.y + frame.height * anchor.y)
        setFrame.mutation(
            r, cmd, valid: !hasNaN(frame) && !position.x.isNaN && !position.y.isNaN,
            else: .layerPosition(position.x, position.y)
        ) { $0(r, cmd, frame) }
    }

    private static func hasNaN(_ rect: CSRRect) -> Bool {
        rect.x.isNaN || rect.y.isNaN || rect.width.isNaN || rect.height.isNaN
    }

    /// A coordinate as Core Animation prints it (`%g`: "nan", "320", "75.75"), with the platform's C library.
    static func number(_ value: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        csr_format_g(value, &buffer, UInt(buffer.count))
        return String(cString: buffer)
    }

    // MARK: Navigation

    static let pushViewController: GuardedMethod<PushIMP> = GuardedMethod("pushViewController:animated:", .uikit) {
        r, cmd, controller, animated in
        pushViewController.mutation(
            r, cmd, valid: !csr_navigation_stack_contains(r, controller),
            else: .pushedTwice(
                navigation: describe(r), controller: describe(controller),
                bundle: Bundle.main.bundleIdentifier)
        ) {
            $0(r, cmd, controller, animated)
        }
    }

    // MARK: WKWebView JavaScript panels

    typealias PanelIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, CSRObject?, CSRObject?) -> Void
    typealias TextPanelIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, CSRObject?, CSRObject?, CSRObject?) -> Void

    static let alertPanel: HookPoint<PanelIMP> = HookPoint(
        "webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:"
    ) { r, cmd, view, message, frame, handler in
        guard let original = alertPanel.original(for: r) else { return }
        csr_webkit_run_panel(
            unsafeBitCast(original, to: CSRIMP.self), r, cmd, CSRWebKitPanelAlert, view, message, nil, frame, handler)
    }

    static let confirmPanel: HookPoint<PanelIMP> = HookPoint(
        "webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:"
    ) { r, cmd, view, message, frame, handler in
        guard let original = confirmPanel.original(for: r) else { return }
        csr_webkit_run_panel(
            unsafeBitCast(original, to: CSRIMP.self), r, cmd, CSRWebKitPanelConfirm, view, message, nil, frame, handler)
    }

    static let textInputPanel: HookPoint<TextPanelIMP> = HookPoint(
        "webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:"
    ) { r, cmd, view, prompt, defaultText, frame, handler in
        guard let original = textInputPanel.original(for: r) else { return }
        csr_webkit_run_panel(
            unsafeBitCast(original, to: CSRIMP.self), r, cmd, CSRWebKitPanelTextInput, view, prompt, defaultText, frame,
            handler)
    }

    static var panelPoints: [AnyHookPoint] { [alertPanel, confirmPanel, textInputPanel] }

    /// The app's classes (`Session.isAppClass`), found without realizing any other class of the process: the runtime
    /// layer's `csr_copy_app_classes` (CSRRuntime.h), asking the session which images and classes are the app's.
    /// Apple: each loaded image the app owns (`Session.isAppImage`) lists its classes by name
    /// (`objc_copyClassNamesForImage` reads the image's class list without realizing its classes); only those are
    /// looked up. `objc_getClassList` is not used there: objc4's realizes every class of every loaded image first
    /// (`realizeAllClasses`, tens of thousands of classes on iOS: time and dirty memory at `start()`).
    /// Cost: `objc_lookUpClass` realizes each class it finds (objc4's `look_up_class` calls
    /// `realizeClassMaybeSwiftAndUnlock`), so `start()` with this guard realizes every class of the app's own images,
    /// a cost that grows with the app (here: 1.4 ms of `start()` with every guard, in the release build's benchmark).
    /// Hooking a delegate's class when it is set (`-[WKWebView setUIDelegate:]`) would need none of this; it needs
    /// hooks installed after `start()`, which the engine does not do yet.
    /// Limit: objc4 maps only a `Module.Class` name back to its class, so a nested or `private` Swift class is not
    /// found there.
    /// GNUstep: GCC's libobjc registers every class at load, so its class list is read and asked by class.
    static func appClasses() -> [ObjCClass] {
        guard let session = Session.current.load(ordering: .acquiring) else { return [] }
        var count: UInt32 = 0
        let list = withExtendedLifetime(session) {
            csr_copy_app_classes(
                { context, path in
                    guard let context, let path else { return false }
                    let session = Unmanaged<Session>.fromOpaque(context).takeUnretainedValue()
                    return session.isAppImage(String(cString: path))
                },
                { context, cls in
                    guard let context, let cls else { return false }
                    let session = Unmanaged<Session>.fromOpaque(context).takeUnretainedValue()
                    return session.isAppClass(ObjCClass(cls)) == true
                }, Unmanaged.passUnretained(session).toOpaque(), &count)
        }
        defer { free(list) }
        return UnsafeBufferPointer(start: list, count: Int(count)).compactMap { $0.map(ObjCClass.init) }
    }

    /// Those of `candidates` that implement `selector` themselves; of a chain of such classes, the topmost only (one
    /// point is never installed on a class and its superclass).
    static func topmostOwners(of selector: ObjCSelector, among candidates: [ObjCClass]) -> [ObjCClass] {
        let owners = candidates.filter { $0.owns(selector) }
        return owners.filter { owner in !owners.contains { $0 != owner && owner.isKind(of: $0) } }
    }

    /// The incident of a panel's completion handler released uncalled (CSRIncident.h, `CSRIncidentDroppedHandler`):
    /// recovered, WebKit's handler gets the default answer; otherwise WebKit's own check raises as it would.
    static func droppedHandler(_ cls: CSRClass?, _ selector: CSRSelector?) -> Incident {
        let selectorName = selector.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
        return Incident(
            .uikit, subject: Incident.Subject(cls: cls.map(ObjCClass.init)), selector: selectorName,
            .completionHandlerNotCalled(selector: selectorName), implementation: nil)
    }

    /// "Class: 0x..." as `-[NSObject description]` starts (Swift classes print their module-qualified name there).
    static func describe(_ object: CSRObject?) -> String {
        "\(GuardFailure.className(object)): \(GuardFailure.address(UnsafeRawPointer(object)))"
    }
}

extension GuardDeclaration {
    /// State: `UIKitGuard.alertClass` (set by `install`, cleared by `uninstall`).
    static let uikit = GuardDeclaration(.uikit, install: UIKitGuard.install, uninstall: UIKitGuard.uninstall)
}
