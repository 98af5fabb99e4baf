import Atomics
import CrashShieldRuntime.Internal

/// A method guarded by a precondition, declared in one place: its selector, its guard category and a replacement of
/// one shape (compute the `Violation?`, then `guarded` or `mutation`):
///
///     static let removeObjectAtIndex = GuardedMethod<ContainerIMP.VoidWithIndex>("removeObjectAtIndex:", .container) { r, cmd, index in
///         let count = count(of: r)
///         removeObjectAtIndex.mutation(r, cmd, valid: index < count, else: .index(index, count: count, method: "removeObjectAtIndex:")) {
///             $0(r, cmd, index)
///         }
///     }
///
/// The precondition is the running Foundation's exactly (`FoundationRules`): a valid call (no violation) reaches the
/// original unchanged, with nothing but the check added.
///
/// A method installed on a class family's owners is declared with layers, one replacement per height of owners
/// (`ClassFamily.owners(of:)`), each running the same check through its own layer, so that every implementation a
/// sampled class runs is hooked, nested ones included:
///
///     static let subarrayWithRange: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod("subarrayWithRange:", .container, layers: [
///         { subarrayWithRange(in: subarrayWithRange, $0, $1, $2) },
///         { subarrayWithRange(in: subarrayWithRange.layer(1), $0, $1, $2) },
///         { subarrayWithRange(in: subarrayWithRange.layer(2), $0, $1, $2) },
///     ])
///     private static func subarrayWithRange(in point: GuardedMethod<IMP.ObjectWithRange>, _ r: CSRObject?,
///                                           _ cmd: CSRSelector?, _ range: CSRRange) -> CSRObject? { ... point.read(...) }
///
/// Each layer is a hook point of its own with its own replacement (a C function cannot be told which class it was
/// installed on), so an override that calls `super` reaches the next layer's hook, never its own again.
final class GuardedMethod<Signature>: HookPoint<Signature>, @unchecked Sendable {
    let category: GuardCategory
    /// The hot table whose check-first trampolines (CSRCheckFirst.h) stand in front of `replacement`, if any.
    private let checkFirst: Int32?
    /// Whether a call made by Foundation's own code (the replacement's direct caller) is recovered: true, except for a
    /// method declared `leavingFoundationCallersAlone()`.
    private(set) var recoversFoundationCallers = true
    /// The replacements of the layers above this point (height 1, 2...): each passes its own layer (`layer(_:)`) on.
    private let outerReplacements: [Signature]
    /// Those layers, each made when first asked for (a table of originals each): plain points, without check-first
    /// trampolines, read lock-free by their replacements.
    private let outerLayers: [ManagedAtomicLazyReference<GuardedMethod<Signature>>]

    init(
        _ selector: ObjCSelector, _ category: GuardCategory, kind: MethodKind = .instance,
        hotTable: UnsafeMutablePointer<CSRHookTable>? = nil, outer: [Signature] = [], replacement: Signature
    ) {
        self.category = category
        checkFirst = nil
        outerReplacements = outer
        outerLayers = outer.map { _ in ManagedAtomicLazyReference() }
        super.init(selector, kind: kind, hotTable: hotTable, replacement: replacement)
    }

    /// A method with layers: `layers[0]` is this point's replacement, `layers[h]` the replacement of its layer `h`.
    convenience init(
        _ selector: ObjCSelector, _ category: GuardCategory, kind: MethodKind = .instance, layers: [Signature]
    ) {
        self.init(selector, category, kind: kind, outer: Array(layers.dropFirst()), replacement: layers[0])
    }

    /// A check-first method with layers (the layers above it have no trampolines).
    convenience init(
        _ selector: ObjCSelector, _ category: GuardCategory, kind: MethodKind = .instance, checkFirst tableIndex: Int32,
        layers: [Signature]
    ) {
        self.init(
            selector, category, kind: kind, checkFirst: tableIndex, outer: Array(layers.dropFirst()),
            replacement: layers[0])
    }

    /// Layer `height` of this method: the point itself for 0. Its replacement is `outer[height - 1]`.
    @inline(__always)
    func layer(_ height: Int) -> GuardedMethod<Signature> {
        guard height > 0 else { return self }
        return outerLayers[height - 1].load() ?? makeLayer(height)
    }

    @inline(never)
    private func makeLayer(_ height: Int) -> GuardedMethod<Signature> {
        let layer = GuardedMethod(selector, category, kind: kind, replacement: outerReplacements[height - 1])
        layer.recoversFoundationCallers = recoversFoundationCallers
        return outerLayers[height - 1].storeIfNilThenLoad(layer)
    }

    override func layer(atHeight height: Int) -> AnyHookPoint? {
        height <= outerReplacements.count ? layer(height) : nil
    }

    /// A method whose precondition a C trampoline of hot table `tableIndex` checks (CSRCheckFirst.h names each table's
    /// check), with `replacement` checking exactly that: each installed class gets the trampoline, which jumps to the
    /// original when the check passes and hands every other call to `replacement`.
    init(
        _ selector: ObjCSelector, _ category: GuardCategory, kind: MethodKind = .instance, checkFirst tableIndex: Int32,
        outer: [Signature] = [], replacement: Signature
    ) {
        self.category = category
        checkFirst = tableIndex
        outerReplacements = outer
        outerLayers = outer.map { _ in ManagedAtomicLazyReference() }
        super.init(selector, kind: kind, hotTable: csr_hot_table(tableIndex), replacement: replacement)
        csr_check_first_set_replacement(tableIndex, self.replacement)
    }

    /// The slot's check-first trampoline where the point has them and the pool lasts; `replacement` otherwise.
    override func replacement(forSlot slot: Int) -> CSRIMP {
        checkFirst.flatMap { csr_check_first_trampoline($0, slot) } ?? replacement
    }

    /// The one shape of a guarded call. No violation: `call` runs the original. A violation: the failure path decides
    /// (`IncidentPath.handle`); recover -> `recovery`, given the original (some recoveries call it with a legal
    /// argument); otherwise `call` (guard off, class excluded; in debug mode the incident path raised already).
    /// `unhooked`: the answer for a receiver whose class never reached this hook (cannot happen through dispatch).
    @inline(__always)
    func guarded<Result>(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, _ violation: Violation?, unhooked: Result,
        recovery: (Signature) -> Result, _ call: (Signature) -> Result
    ) -> Result {
        guarded(receiver, cmd, valid: violation == nil, else: violation, unhooked: unhooked, recovery: recovery, call)
    }

    /// The same shape for the hottest calls: `valid` is the cheap check, and `violation` (what Foundation raises,
    /// or nil when a closer look finds the call valid after all) is only evaluated when it fails, so a valid call
    /// carries no `Violation?` to build and destroy.
    @inline(__always)
    func guarded<Result>(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, valid: Bool, else violation: @autoclosure () -> Violation?,
        unhooked: Result, recovery: (Signature) -> Result, _ call: (Signature) -> Result
    ) -> Result {
        guard let original = original(for: receiver) else { return unhooked }
        if valid { return call(original) }
        guard let violation = violation(), stops(receiver, cmd, violation) else { return call(original) }
        return recovery(original)
    }

    @inline(__always)
    func read(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, valid: Bool, else violation: @autoclosure () -> Violation?,
        recovery: (Signature) -> CSRObject? = { _ in nil }, _ call: (Signature) -> CSRObject?
    ) -> CSRObject? {
        guarded(receiver, cmd, valid: valid, else: violation(), unhooked: nil, recovery: recovery, call)
    }

    @inline(__always)
    func mutation(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, valid: Bool, else violation: @autoclosure () -> Violation?,
        _ call: (Signature) -> Void
    ) {
        guarded(receiver, cmd, valid: valid, else: violation(), unhooked: (), recovery: { _ in }, call)
    }

    /// A read whose recovery is nil, or what `recovery` answers.
    @inline(__always)
    func read(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, _ violation: Violation?,
        recovery: (Signature) -> CSRObject? = { _ in nil }, _ call: (Signature) -> CSRObject?
    ) -> CSRObject? {
        guarded(receiver, cmd, violation, unhooked: nil, recovery: recovery, call)
    }

    /// A mutation: an invalid one is skipped, the receiver left exactly as it was.
    @inline(__always)
    func mutation(_ receiver: CSRObject?, _ cmd: CSRSelector?, _ violation: Violation?, _ call: (Signature) -> Void) {
        guarded(receiver, cmd, violation, unhooked: (), recovery: { _ in }, call)
    }

    @inline(never)
    private func stops(_ receiver: CSRObject?, _ cmd: CSRSelector?, _ violation: Violation) -> Bool {
        var incident = Incident(
            category, receiver: receiver, selector: cmd, violation, point: self,
            unrecovered: .raiseWhenLoud(violation))
        incident.site.recoversFoundationCallers = recoversFoundationCallers
        return IncidentPath.handle(incident) == .recover
    }

    /// Declares that a call made by Foundation's own code is left to Foundation (not recovered, not reported; the app's
    /// calls are guarded as before): for a read into the caller's buffer, whose recovery leaves the buffer unfilled.
    /// Foundation's code relies on the exception instead: GNUstep's property-list deserializer reads past the end of
    /// short data with `getBytes:range:`, and recovered, it went on parsing a buffer it never filled (SIGSEGV in
    /// `+[NSPropertyListSerialization propertyListWithData:...]`, where Foundation alone raises NSRangeException).
    /// Layers made later (`layer(_:)`) take the setting. Call it where the point is declared, before any install.
    func leavingFoundationCallersAlone() -> Self {
        recoversFoundationCallers = false
        return self
    }
}

/// `[receiver count]`.
@inline(__always)
func count(of receiver: CSRObject?) -> UInt { Messaging.sendUInt(receiver, Selectors.count) }

/// `[argument selector]` as an unsigned word, or nil when the argument is nil or does not answer it (an argument of a
/// type the method does not take: the original meets it as without CrashShield, and no guard reports CrashShield's
/// own question). For arguments of methods off the hot path: it asks `respondsToSelector:` first.
func probe(_ argument: CSRObject?, _ selector: CSRSelector?) -> UInt? {
    guard let argument, csr_object_responds(argument, selector) else { return nil }
    return Messaging.sendUInt(argument, selector)
}

/// `[receiver length]`.
@inline(__always)
func length(of receiver: CSRObject?) -> UInt { Messaging.sendUInt(receiver, Selectors.length) }

extension CSRRange {
    /// Whether the range lies within `0..<count` (overflow-safe; {NSNotFound, 0} is outside unless count is huge).
    @inline(__always)
    func fits(in count: UInt) -> Bool { location <= count && length <= count &- location }
    /// Whether `NSMaxRange(range) <= count` in C's wrapping arithmetic, the check some of GNUstep's generic
    /// implementations make (a range whose end wraps past 2^64 passes it).
    @inline(__always)
    func endFits(in count: UInt) -> Bool { location &+ length <= count }
    var value: CSRRangeValue { (UInt(location), UInt(length)) }
    static let empty = CSRRange(location: 0, length: 0)
    static let notFound = CSRRange(location: UInt(Int.max), length: 0)
}

/// A range as two words, printable.
typealias CSRRangeValue = (location: UInt, length: UInt)
