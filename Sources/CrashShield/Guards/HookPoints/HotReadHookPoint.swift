import CrashShieldRuntime.Internal

/// A hook point for a hot read-only method whose replacements are C trampolines (CSRHotReads.h): they call the
/// original inside `@try` instead of asking the receiver its count or length first, so a valid call costs one load
/// and one direct call. When the original raises, the trampoline hands the exception here; if `precondition` confirms
/// the argument was invalid, the usual failure path decides (recover with 0 / nil, or let the exception go on).
///
/// The report carries the exception Foundation raised, so its text is Foundation's by construction, on every
/// platform. Only for reads that change nothing before they raise.
final class HotReadHookPoint<Signature>: HookPoint<Signature>, @unchecked Sendable, CaughtFailurePolicy {
    let category: GuardCategory
    let hint: String
    let tableIndex: Int32
    let precondition: (CSRObject?, UInt) -> Bool

    /// - Parameters:
    ///   - tableIndex: the hot table (`CSRHotStringCharacterAtIndex`, ...) whose trampolines replace the method.
    ///   - precondition: whether the call was valid for this receiver and argument (asked only after a raise).
    init(
        _ selector: ObjCSelector, hotTable tableIndex: Int32, category: GuardCategory, hint: String,
        precondition: @escaping (CSRObject?, UInt) -> Bool
    ) {
        self.category = category
        self.hint = hint
        self.tableIndex = tableIndex
        self.precondition = precondition
        _ = HotReadResolver.registered
        _ = IncidentChannel.registered
        // The trampolines find their point through the table: one point per table, for the life of the process.
        Swift.precondition(
            csr_hot_table(tableIndex).pointee.owner == nil, "hot table \(tableIndex) already has a hook point")
        guard let generic = csr_hot_read_trampoline(tableIndex, -1) else {
            fatalError("no trampolines for hot table \(tableIndex)")
        }
        super.init(
            selector, hotTable: csr_hot_table(tableIndex), replacement: unsafeBitCast(generic, to: Signature.self))
    }

    /// The slot's own trampoline, which reads that slot's original without any lookup; the generic one past the pool.
    override func replacement(forSlot slot: Int) -> CSRIMP {
        csr_hot_read_trampoline(tableIndex, slot) ?? replacement
    }
}

/// What the trampolines' failure handler needs of a hot-read hook point (non-generic).
protocol CaughtFailurePolicy: AnyHookPoint {
    var category: GuardCategory { get }
    var hint: String { get }
    var precondition: (CSRObject?, UInt) -> Bool { get }
}

/// The generic trampolines' cold path (their failures are incidents: `IncidentChannel`), registered once.
enum HotReadResolver {
    static let registered: Void = csr_hot_reads_set_resolver { table, receiver in
        guard let table, let point = AnyHookPoint.owner(of: table) else { return 0 }
        return point.originals.originalThroughSuperclasses(UInt(bitPattern: csr_object_getClass(receiver)))
    }

    /// A trampoline caught `exception`, raised by the original for `argument`: the incident, when the precondition
    /// really failed (an exception for a valid argument is none of the guard's business and propagates).
    static func incident(
        _ point: CaughtFailurePolicy, _ trampoline: CSRIMP?, _ receiver: CSRObject?, _ argument: UInt,
        _ exception: CSRObject?
    ) -> Incident? {
        guard let (name, reason) = ObjCException.describe(exception), !point.precondition(receiver, argument) else {
            return nil
        }
        return Incident(
            point.category, receiver: receiver, selector: point.selector.pointer,
            .caught(name, reason, hint: point.hint), point: point,
            implementation: trampoline.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
    }

}
