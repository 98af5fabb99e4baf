import CrashShieldRuntime.Internal

/// A hook point for a variadic method (`+stringWithFormat:`, `-appendFormat:`, `+dictionaryWithObjectsAndKeys:`,
/// `-initWithObjectsAndKeys:`). Swift cannot write a replacement that takes `...`, so the replacement is a C
/// trampoline (CSRVariadic.h): it reads the arguments, makes a valid call through a form that takes what it read, and
/// hands an invalid one (a nil format, a list whose nil falls on a key) here. The failure path is every guard's
/// (`IncidentPath.handle`): recover, or raise Foundation's exception in debug mode, or call the original.
final class VariadicHookPoint: AnyHookPoint, @unchecked Sendable {
    let category: GuardCategory
    /// What Foundation raises, for the list's count (0 for a format).
    let violation: (_ count: UInt) -> Violation

    /// - Parameters:
    ///   - trampolineIndex: the trampoline (`CSRVariadicStringWithFormat`, ...); one hook point each, for the process's life.
    init(
        _ selector: ObjCSelector, kind: MethodKind = .instance, trampoline trampolineIndex: Int32,
        category: GuardCategory,
        violation: @escaping (_ count: UInt) -> Violation
    ) {
        self.category = category
        self.violation = violation
        _ = VariadicResolver.registered
        _ = IncidentChannel.registered
        guard let trampoline = csr_variadic_trampoline(trampolineIndex) else {
            fatalError("no variadic trampoline \(trampolineIndex)")
        }
        super.init(selector: selector, kind: kind, replacement: trampoline, handlesReentry: false, table: nil)
        precondition(
            csr_variadic_bind(trampolineIndex, originals.storage),
            "variadic trampoline \(trampolineIndex) already has a hook point")
    }
}

/// The trampolines' cold path (their failures are incidents: `IncidentChannel`), registered once.
private enum VariadicResolver {
    static let registered: Void = csr_variadic_set_resolver { table, receiver in
        guard let table, let point = AnyHookPoint.owner(of: table) else { return 0 }
        return point.originals.originalThroughSuperclasses(UInt(bitPattern: csr_object_getClass(receiver)))
    }
}

extension VariadicHookPoint {
    /// The incident of an invalid call the trampoline of `table` read: failing loudly raises Foundation's exception.
    static func incident(
        _ table: UnsafeMutablePointer<CSRHookTable>?, _ receiver: CSRObject?, _ cmd: CSRSelector?,
        count: UInt
    ) -> Incident? {
        guard let table, let point = AnyHookPoint.owner(of: table) as? VariadicHookPoint else { return nil }
        let violation = point.violation(count)
        return Incident(
            point.category, receiver: receiver, selector: cmd, violation, point: point,
            unrecovered: .raiseWhenLoud(violation))
    }
}
