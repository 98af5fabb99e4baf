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
    private let markers: MarkerSwitch

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
        markers = MarkerSwitch(tableIndex)
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

    /// The slot's marker where its original allows one and `.atRaise` is configured (CSRHotReads.h, markers),
    /// otherwise the slot's own trampoline: either reads that slot's original without any lookup.
    override func replacement(forSlot slot: Int) -> CSRIMP {
        markers.marker(forSlot: slot) ?? csr_hot_read_trampoline(tableIndex, slot) ?? replacement
    }

    /// Installs the point on the classes that own the method in `family`. With `.atRaise` recovery, an owner whose
    /// original can be recovered at the raise stays unhooked (`RaiseRecovery`); the others get a marker or their
    /// trampoline.
    func install(in context: GuardContext, onOwnersIn family: ClassFamily) throws {
        try markers.allow(in: context)
        for target in family.hookTargets(for: selector, kind: kind) {
            if try recoveredAtRaise(on: target, in: context) { continue }
            try context.install(self, on: [target])
        }
    }

    /// `GuardContext.install(layers:onOwnersIn:)` for hot-read points: each owner stays unhooked where its original
    /// can be recovered at the raise, and gets a marker or its trampoline otherwise.
    static func install(layers: [HotReadHookPoint], in context: GuardContext, onOwnersIn family: ClassFamily) throws {
        for point in layers { try point.markers.allow(in: context) }
        try context.install(layers: layers, onOwnersIn: family) { point, owner in
            guard let point = point as? HotReadHookPoint else { return false }
            return try point.recoveredAtRaise(on: owner, in: context)
        }
    }

    /// With `.atRaise`, whether `target`'s original is protected at the raise instead of hooked.
    private func recoveredAtRaise(on target: ObjCClass, in context: GuardContext) throws -> Bool {
        guard context.configuration.hotReadRecovery == .atRaise else { return false }
        return try RaiseRecovery.protect(self, on: target, in: context, tableIndex: tableIndex)
    }
}

/// Whether the installs of one hook point may use markers (CSRHotReads.h) instead of its trampolines: set by the
/// point's install functions, which run under CrashShield's lock, and read by the engine under its own.
final class MarkerSwitch: @unchecked Sendable {
    /// The point's hot table.
    let tableIndex: Int32
    private let allowed = Locked(false)

    init(_ tableIndex: Int32) { self.tableIndex = tableIndex }

    /// Allows markers for the installs that follow where `.atRaise` is configured and the platform has markers for
    /// the table, installing the raise hook first (a marker recovers nothing without it).
    func allow(in context: GuardContext) throws {
        let allowed = context.configuration.hotReadRecovery == .atRaise && csr_hot_markers_supported(tableIndex)
        if allowed { try RaiseRecovery.require(for: context.category) }
        self.allowed.withLock { $0 = allowed }
    }

    /// The slot's marker, when markers are allowed and the slot's original takes one (`csr_hot_marker`).
    func marker(forSlot slot: Int) -> CSRIMP? {
        allowed.withLock { $0 } ? csr_hot_marker(tableIndex, slot) : nil
    }
}

/// What a marker's failure needs of its hook point (non-generic): the report's category and hint.
protocol MarkedFailurePolicy: AnyHookPoint {
    var category: GuardCategory { get }
    var hint: String { get }
}

/// What the trampolines' failure handler needs of a hot-read hook point (non-generic).
protocol CaughtFailurePolicy: MarkedFailurePolicy {
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
        guard let (name, reason) = precondition(of: point, failedFor: receiver, argument, raising: exception) else {
            return nil
        }
        return Incident(
            point.category, receiver: receiver, selector: point.selector.pointer,
            .caught(name, reason, hint: point.hint), point: point,
            implementation: trampoline.map { unsafeBitCast($0, to: UnsafeRawPointer.self) })
    }

    /// The exception's name and reason when it is an NSException raised because `point`'s precondition failed for
    /// `receiver` and `argument`; nil otherwise.
    static func precondition(
        of point: CaughtFailurePolicy, failedFor receiver: CSRObject?, _ argument: UInt,
        raising exception: CSRObject?
    ) -> (name: String, reason: String)? {
        guard let described = ObjCException.describe(exception), !point.precondition(receiver, argument) else {
            return nil
        }
        return described
    }
}

/// Recovery at the raise (CSRHotRaise.m): an original that raises its failure through Foundation's exception code
/// only, with an exception that names the receiver and the index, is left unhooked; the raise hook finds its frame,
/// Swift decides as for a trampoline, and the frame's caller gets 0. A marker's original (CSRHotReads.h) is found
/// the same way, with the class the marker recorded.
enum RaiseRecovery {
    /// The raise hook (`-[NSException raise]` on GNUstep).
    static let raiseHook: AnyHookPoint? = csr_hot_raise_hook().map {
        _ = originalRegistered
        _ = IncidentChannel.registered
        return AnyHookPoint(selector: "raise", kind: .instance, replacement: $0, handlesReentry: false, table: nil)
    }

    /// The guards that need the raise hook, and the hook while one does. Two guards share it (the container guard's
    /// arrays, the string guard's markers), so it is installed for the first and reverted after the last, outside
    /// either guard's own list of hooks.
    private static let users = Locked<(categories: GuardCategory, hook: Hook?)>(([], nil))

    /// Installs the raise hook for `category` unless it is there already. Runs under CrashShield's lock.
    static func require(for category: GuardCategory) throws {
        guard let raiseHook, let hookClass = csr_hot_raise_hook_class() else { return }
        try users.withLock { users in
            if users.hook?.state != .active {
                users.hook = try HookEngine.shared.install(raiseHook, on: ObjCClass(hookClass))
            }
            users.categories.insert(category)
        }
    }

    /// `category` no longer needs the raise hook: reverted after the last guard that did (its guard's `uninstall`).
    static func release(for category: GuardCategory) {
        users.withLock { users in
            users.categories.remove(category)
            if users.categories.isEmpty, let hook = users.hook {
                hook.revert()
                users.hook = nil
            }
        }
    }

    /// Protects `point`'s original on `target` at the raise, if the running Foundation allows it; false: install the
    /// trampoline instead.
    static func protect(
        _ point: AnyHookPoint & CaughtFailurePolicy, on target: ObjCClass, in context: GuardContext,
        tableIndex: Int32
    ) throws -> Bool {
        guard raiseHook != nil,
            let original = csr_class_methodImplementation(target.pointer, point.selector.pointer)
        else { return false }
        guard csr_hot_raise_eligible(tableIndex, original), csr_hot_raise_protect(tableIndex, original) else {
            return false
        }
        try require(for: context.category)
        return true
    }

    private static let originalRegistered: Void = csr_hot_raise_set_original { exception in
        guard let raiseHook else { return nil }
        let imp = raiseHook.originals.originalThroughSuperclasses(UInt(bitPattern: csr_object_getClass(exception)))
        return UnsafeRawPointer(bitPattern: imp).map { unsafeBitCast($0, to: CSRIMP.self) }
    }

    /// A protected original raised: the same incident as a trampoline's, with the receiver and index the exception
    /// names. The raising frame must be the receiver's own implementation (its class runs it), and the precondition
    /// must really have failed.
    static func incident(
        raisedBy implementation: CSRIMP?, table: Int32, _ receiver: CSRObject?, _ argument: UInt,
        _ exception: CSRObject?, frames: CallStack.KnownFrames
    ) -> Incident? {
        guard let point = AnyHookPoint.owner(of: csr_hot_table(table)) as? CaughtFailurePolicy, let implementation,
            let runs = csr_class_methodImplementation(csr_object_getClass(receiver), point.selector.pointer),
            address(runs) == address(implementation)
        else { return nil }
        return incident(point, implementation, receiver, argument, exception, frames: frames)
    }

    /// A call through a marker raised in `implementation`: the class and the argument are the ones the marker
    /// recorded for it (for an unhooked character original, the class that owns it). With the `receiver` (named by the
    /// exception, so alive) the precondition is asked; without, the runtime layer found the exception raised by an
    /// implementation that raises for this failure only (CSRHotRaise.m).
    static func incident(
        markedBy implementation: CSRIMP?, table: Int32, _ cls: CSRClass?, _ receiver: CSRObject?,
        _ argument: UInt, _ exception: CSRObject?, frames: CallStack.KnownFrames
    ) -> Incident? {
        guard let point = AnyHookPoint.owner(of: csr_hot_table(table)) as? MarkedFailurePolicy else { return nil }
        if receiver != nil {
            guard let point = point as? CaughtFailurePolicy else { return nil }
            return incident(point, implementation, receiver, argument, exception, frames: frames)
        }
        guard let cls, let (name, reason) = ObjCException.describe(exception) else { return nil }
        return Incident(
            point.category, subject: Incident.Subject(cls: ObjCClass(cls)),
            selector: String(cString: csr_sel_getName(point.selector.pointer)),
            .caught(name, reason, hint: point.hint), implementation: implementation.map(address),
            knownFrames: frames)
    }

    /// The incident of a failure found at the raise, when the precondition really failed; nil otherwise.
    private static func incident(
        _ point: CaughtFailurePolicy, _ implementation: CSRIMP?, _ receiver: CSRObject?,
        _ argument: UInt, _ exception: CSRObject?, frames: CallStack.KnownFrames
    ) -> Incident? {
        guard
            let (name, reason) = HotReadResolver.precondition(
                of: point, failedFor: receiver, argument,
                raising: exception)
        else { return nil }
        return Incident(
            point.category, receiver: receiver, selector: point.selector.pointer,
            .caught(name, reason, hint: point.hint), implementation: implementation.map(address),
            knownFrames: frames)
    }

    private static func address(_ function: CSRIMP) -> UnsafeRawPointer {
        unsafeBitCast(function, to: UnsafeRawPointer.self)
    }
}

extension CallStack {
    /// A replacement's frame and its caller, as return addresses, found by the hook itself.
    struct KnownFrames {
        var own: UInt
        var caller: UInt
    }

    /// The verdict's location of a direct caller the hook already found, as `locateCaller` builds it from the frame
    /// pointers; nil when the caller is Foundation's own code (the full walk looks past Foundation's conveniences).
    static func directCaller(_ frames: KnownFrames) -> Location? {
        guard let image = Images.path(of: frames.caller), !foundationImages.contains(image) else { return nil }
        return Location(
            addresses: [frames.own, frames.caller], callerIndex: 1, callerImage: image,
            callerAddress: frames.caller, isComplete: false)
    }
}
