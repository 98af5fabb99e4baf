import CrashShieldRuntime.Internal

/// A hook point for a variadic method (`+stringWithFormat:`, `-appendFormat:`, `+dictionaryWithObjectsAndKeys:`,
/// `-initWithObjectsAndKeys:`). Swift cannot write a replacement that takes `...`, so the replacement is a C
/// trampoline (CSRVariadic.h): it reads the arguments, makes a valid call through a form that takes what it read, and
/// hands an invalid one (a nil format, a list whose nil falls on a key) here. The failure path is every guard's
/// (`GuardFailure.stopOrRaise`): recover, or raise Foundation's exception in debug mode, or call the original.
final class VariadicHookPoint: AnyHookPoint, @unchecked Sendable {
    let category: GuardCategory
    /// What Foundation raises, for the list's count (0 for a format).
    let violation: (_ count: UInt) -> Violation

    /// - Parameters:
    ///   - which: the trampoline (`CSRVariadicStringWithFormat`, ...); one hook point each, for the process's life.
    init(_ selector: ObjCSelector, kind: MethodKind = .instance, trampoline which: Int32, category: GuardCategory,
         violation: @escaping (_ count: UInt) -> Violation) {
        self.category = category
        self.violation = violation
        _ = VariadicHandlers.registered
        guard let trampoline = csr_variadic_trampoline(which) else { fatalError("no variadic trampoline \(which)") }
        super.init(selector: selector, kind: kind, replacement: trampoline, handlesReentry: false, table: nil)
        precondition(csr_variadic_bind(which, originals.storage), "variadic trampoline \(which) already has a hook point")
    }
}

/// The trampolines' two cold paths, registered with the runtime layer once.
private enum VariadicHandlers {
    static let registered: Void = csr_variadic_set_handlers(CSRVariadicHandlers(resolve: { table, receiver in
        guard let table, let point = AnyHookPoint.owner(of: table) else { return 0 }
        return point.originals.originalThroughSuperclasses(UInt(bitPattern: csr_object_getClass(receiver)))
    }, failed: { table, receiver, cmd, count in
        guard let table, let point = AnyHookPoint.owner(of: table) as? VariadicHookPoint else { return false }
        return GuardFailure.stopOrRaise(point.category, receiver, cmd, point, point.violation(UInt(count)))
    }))
}
