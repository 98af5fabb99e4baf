import CrashShieldRuntime.Internal

/// Whether a hook replaces an instance method or a class method.
enum MethodKind: String, Sendable {
    case instance, `class`
}

/// One replacement implementation for one selector, installable on any number of classes (class-cluster members,
/// subclasses). The replacement finds the original implementation of the receiver's class with `original(for:)`.
class AnyHookPoint: @unchecked Sendable {
    let selector: ObjCSelector
    let kind: MethodKind
    /// The replacement, as the runtime sees it.
    let replacement: CSRIMP
    /// Whether the replacement recognises being re-entered for the same receiver through `super` (as the dealloc
    /// watcher does with a per-thread frame). Only such a point may be installed on a class and its superclass.
    let handlesReentry: Bool
    let originals: OriginalTable

    init(
        selector: ObjCSelector, kind: MethodKind, replacement: CSRIMP, handlesReentry: Bool,
        table: UnsafeMutablePointer<CSRHookTable>?
    ) {
        self.selector = selector
        self.kind = kind
        self.replacement = replacement
        self.handlesReentry = handlesReentry
        self.originals = OriginalTable(selector: selector.pointer, storage: table)
        originals.storage.pointee.owner = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    }

    /// The hook point that owns `table` (cold paths of the C trampolines).
    static func owner(of table: UnsafeMutablePointer<CSRHookTable>) -> AnyHookPoint? {
        table.pointee.owner.map { Unmanaged<AnyHookPoint>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The replacement to install on the class whose original sits in `slot` of this point's table. The point's one
    /// replacement, except for hot reads (a trampoline per slot).
    func replacement(forSlot slot: Int) -> CSRIMP { replacement }

    /// The hook point to install on an owner of the method that has owners `height` levels below it in a class
    /// family (the installer walks `ClassFamily.owners(of:)`): the point itself for 0, a layer of its own (same behaviour,
    /// own replacement and table of originals) above, or nil when the point has no layer that high.
    func layer(atHeight height: Int) -> AnyHookPoint? { height == 0 ? self : nil }

    /// Address of the replacement, used to find the caller's frame in a call stack.
    var replacementAddress: UnsafeRawPointer { unsafeBitCast(replacement, to: UnsafeRawPointer.self) }

    /// Whether the hook a receiver reaches is active (false once reverted in place). Cold path.
    func isActive(for receiver: CSRObject?) -> Bool {
        originals.isActive(forClass: UInt(bitPattern: csr_object_getClass(receiver)))
    }
}

/// A hook point whose replacement has the `@convention(c)` type `Signature` (receiver, `_cmd`, arguments...).
class HookPoint<Signature>: AnyHookPoint, @unchecked Sendable {
    /// - Parameters:
    ///   - selector: the selector to replace, e.g. "objectAtIndex:".
    ///   - kind: instance or class method.
    ///   - handlesReentry: see `AnyHookPoint.handlesReentry`; leave false unless the replacement tracks re-entry.
    ///   - hotTable: for the hottest methods only, a statically allocated table (`csr_hot_table(...)`) that the
    ///     replacement reads with `HookPoint.original(in:for:)`, without touching this object.
    ///   - replacement: a `@convention(c)` function taking the receiver and `_cmd` first.
    init(
        _ selector: ObjCSelector, kind: MethodKind = .instance, handlesReentry: Bool = false,
        hotTable: UnsafeMutablePointer<CSRHookTable>? = nil, replacement: Signature
    ) {
        precondition(
            MemoryLayout<Signature>.size == MemoryLayout<CSRIMP>.size,
            "HookPoint needs a @convention(c) function type")
        super.init(
            selector: selector, kind: kind, replacement: unsafeBitCast(replacement, to: CSRIMP.self),
            handlesReentry: handlesReentry, table: hotTable)
    }

    /// Hot path: the implementation the receiver's class had before the hook. nil only if the receiver's class never
    /// reached this hook (it cannot call the replacement then).
    @inline(__always)
    func original(for receiver: CSRObject?) -> Signature? {
        let imp = originals.original(forClass: UInt(bitPattern: csr_object_getClass(receiver)))
        return imp == 0 ? nil : unsafeBitCast(imp, to: Signature.self)
    }

    /// Hot path for a point with a static table: the original for the receiver's class, read straight from `table`
    /// (no lazy global, no object access). Falls back to the point itself on a miss.
    @inline(__always)
    static func original(
        in table: UnsafeMutablePointer<CSRHookTable>, for receiver: CSRObject?,
        point: @autoclosure () -> HookPoint<Signature>
    ) -> Signature? {
        let cls = UInt(bitPattern: csr_object_getClass(receiver))
        let found = csr_hook_table_find(table, cls)
        if found != 0 { return unsafeBitCast(found, to: Signature.self) }
        let imp = point().originals.originalThroughSuperclasses(cls)
        return imp == 0 ? nil : unsafeBitCast(imp, to: Signature.self)
    }
}
