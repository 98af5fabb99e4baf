import CrashShieldRuntime.Internal

/// Presenting and popping view controllers (opt-in `uikit` guard): the calls UIKit raises for, stopped before UIKit
/// sees them. Nothing is presented or popped; reported.
/// - `-[UIViewController presentViewController:animated:completion:]` with nil, or with a controller that is already
///   presented or being presented (`presentingViewController` set, no `parentViewController`, not
///   `isBeingDismissed`): NSInvalidArgumentException. The completion of a skipped presentation is not called: UIKit's
///   raise never calls it either, and it runs code that expects the controller on screen. The same hook gives an
///   action sheet without a popover location the presenter's view on an iPad (below).
/// - `-[UINavigationController popToViewController:animated:]` with a controller that is not on the stack
///   (`viewControllers`, by identity or `isEqual:`): NSInternalInconsistencyException. The skipped pop returns nil
///   (nothing popped). A nil controller is left to UIKit.
/// Left to UIKit: presenting a controller that has a parent or is "active" (UIKit's "Application tried to present
/// modally an active controller": its notion of active is private state, not a public property), and the deferred
/// double push (a controller pushed twice while a transition runs: UIKit queues the pushes in private state; neither
/// `viewControllers` nor `transitionCoordinator` shows the queue or when it drains).
extension UIKitGuard {
    typealias PopIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt8) -> CSRObject?

    /// `-[UIViewController presentViewController:animated:completion:]`: nil, a controller already presented, and an
    /// action-sheet alert without a popover location from a controller in a regular-width environment (an iPad),
    /// which UIKit presents as a popover and raises NSGenericException for when the transition begins: the alert
    /// gets the presenting controller's view as its source (the centre of its bounds), then is presented; reported.
    /// Anything else is presented untouched.
    static let presentViewController: GuardedMethod<PresentIMP> = GuardedMethod(
        "presentViewController:animated:completion:", .uikit
    ) {
        r, cmd, presented, animated, completion in
        guard let presented else {
            return presentViewController.mutation(r, cmd, valid: false, else: .presentedNil(presenter: describe(r))) {
                $0(r, cmd, nil, animated, completion)
            }
        }
        if let presenter = csr_controller_presented_by(presented) {
            return presentViewController.mutation(
                r, cmd, valid: false,
                else: .presentedTwice(controller: describe(presented), presenter: describe(presenter))
            ) { $0(r, cmd, presented, animated, completion) }
        }
        let alert = alertClass.current
        let lacksSource = alert.map { csr_alert_sheet_lacks_popover_source(r, presented, $0.pointer) } ?? false
        presentViewController.guarded(
            r, cmd, valid: !lacksSource,
            else: .actionSheetWithoutSource(alert: describe(presented), presenter: describe(r)),
            unhooked: (),
            recovery: { original in
                _ = csr_alert_sheet_use_presenter_view(r, presented)
                original(r, cmd, presented, animated, completion)
            }
        ) { $0(r, cmd, presented, animated, completion) }
    }

    /// `-[UINavigationController popToViewController:animated:]` to a controller that is not on the stack. Checked
    /// against `viewControllers` at the call (as the push check: a pop UIKit defers behind a running transition is
    /// checked then too).
    static let popToViewController: GuardedMethod<PopIMP> = GuardedMethod("popToViewController:animated:", .uikit) {
        r, cmd, controller, animated in
        popToViewController.read(r, cmd, valid: !csr_navigation_stack_lacks(r, controller), else: .poppedToMissing) {
            $0(r, cmd, controller, animated)
        }
    }
}
