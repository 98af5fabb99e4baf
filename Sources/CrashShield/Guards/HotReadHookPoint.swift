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
    let which: Int32
    let precondition: (CSRObject?, UInt) -> Bool

    /// - Parameters:
    ///   - which: the hot table (`CSRHotStringCharacterAtIndex`, ...) whose trampolines replace the method.
    ///   - precondition: whether the call was valid for this receiver and argument (asked only after a raise).
    init(_ selector: ObjCSelector, hotTable which: Int32, category: GuardCategory, hint: String,
         precondition: @escaping (CSRObject?, UInt) -> Bool) {
        self.category = category
        self.hint = hint
        self.which = which
        self.precondition = precondition
        _ = HotReadHandlers.registered
        // The trampolines find their point through the table: one point per table, for the life of the process.
        Swift.precondition(csr_hot_table(which).pointee.owner == nil, "hot table \(which) already has a hook point")
        guard let generic = csr_hot_read_trampoline(which, -1) else { fatalError("no trampolines for hot table \(which)") }
        super.init(selector, hotTable: csr_hot_table(which), replacement: unsafeBitCast(generic, to: Signature.self))
    }

    /// The slot's own trampoline: it reads that slot's original without any lookup.
    override func replacement(forSlot slot: Int) -> CSRIMP {
        csr_hot_read_trampoline(which, slot) ?? replacement
    }
}

/// What the trampolines' failure handler needs of a hot-read hook point (non-generic).
protocol CaughtFailurePolicy: AnyHookPoint {
    var category: GuardCategory { get }
    var hint: String { get }
    var precondition: (CSRObject?, UInt) -> Bool { get }
}

/// The two cold paths of the trampolines, registered with the runtime layer once.
enum HotReadHandlers {
    static let registered: Void = csr_hot_reads_set_handlers(CSRHotReadHandlers(resolve: { table, receiver in
        guard let table, let point = AnyHookPoint.owner(of: table) else { return 0 }
        return point.originals.originalThroughSuperclasses(UInt(bitPattern: csr_object_getClass(receiver)))
    }, failed: { table, trampoline, receiver, argument, exception in
        guard let table, let point = AnyHookPoint.owner(of: table) as? CaughtFailurePolicy else { return false }
        return HotReadHandlers.failed(point, trampoline, receiver, UInt(argument), exception)
    }))

    /// The original raised `exception` for `argument`: report it and recover when the precondition really failed
    /// (an exception for a valid argument is none of the guard's business and propagates).
    static func failed(_ point: CaughtFailurePolicy, _ trampoline: CSRIMP?, _ receiver: CSRObject?, _ argument: UInt,
                       _ exception: CSRObject?) -> Bool {
        var info = CSRExceptionInfo()
        guard csr_exception_describe(exception, &info), !point.precondition(receiver, argument) else { return false }
        let name = withUnsafeBytes(of: info.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let reason = withUnsafeBytes(of: info.reason) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return GuardFailure.stop(point.category, receiver, point.selector.pointer, point, name, hint: point.hint,
                                 implementation: trampoline.map { unsafeBitCast($0, to: UnsafeRawPointer.self) },
                                 reason: { _ in reason })
    }
}
