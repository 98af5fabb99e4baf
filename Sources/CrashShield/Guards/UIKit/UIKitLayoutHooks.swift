import CrashShieldRuntime.Internal

/// Activating an Auto Layout constraint whose two items have no common ancestor (opt-in `uikit` guard):
/// `-[NSLayoutConstraint setActive:YES]` and `+[NSLayoutConstraint activateConstraints:]` raise NSGenericException
/// ("Unable to activate constraint with anchors ... because they have no common ancestor. ..."). Apple documents
/// activation as adding the constraint to the closest common ancestor of its items, and raising when there is none;
/// the guard walks the same public chains: a view's `superview`s, a layout guide's `owningView`'s. Two items whose
/// chains end at different roots have none. A constraint with one item, or an item that is neither (a guide without an
/// owning view), goes to UIKit.
/// Recovery: the constraint is not activated (layout is wrong, memory is not); of an array, the others are activated,
/// in order, through `setActive:` (UIKit raises at the first bad one, after activating those before it). Both methods
/// are hooked: whichever UIKit implements through the other, the outer call stops the bad constraint first.
/// Declined: `+constraintWithItem:attribute:relatedBy:toItem:attribute:multiplier:constant:` with an illegal
/// combination (Docs/AppleRuntime.md §16).
extension UIKitGuard {
    typealias SetActiveIMP = @convention(c) (CSRObject?, CSRSelector?, UInt8) -> Void
    typealias ActivateIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void

    static let setActive: GuardedMethod<SetActiveIMP> = GuardedMethod("setActive:", .uikit) { r, cmd, active in
        setActive.mutation(
            r, cmd, valid: active == 0 || !csr_constraint_lacks_common_ancestor(r), else: noCommonAncestor(r)
        ) { $0(r, cmd, active) }
    }

    static let activateConstraints: GuardedMethod<ActivateIMP> = GuardedMethod(
        "activateConstraints:", .uikit, kind: .class
    ) { r, cmd, constraints in
        let bad = csr_constraints_first_lacking_common_ancestor(constraints)
        activateConstraints.guarded(
            r, cmd, valid: bad < 0, else: noCommonAncestor(csr_constraints_object_at(constraints, bad)), unhooked: (),
            recovery: { _ in csr_constraints_activate_each(constraints) }
        ) { $0(r, cmd, constraints) }
    }

    private static func noCommonAncestor(_ constraint: CSRObject?) -> Violation {
        func anchor(_ second: Bool) -> String {
            var buffer = [CChar](repeating: 0, count: 512)
            csr_constraint_anchor_description(constraint, second, &buffer, UInt(buffer.count))
            return String(cString: buffer)
        }
        return .noCommonAncestor(first: anchor(false), second: anchor(true))
    }
}
