import CrashShieldRuntime.Internal

/// For one hook point: which original implementation belongs to which receiver class.
///
/// The memory is a `CSRHookTable` (CrashShieldRuntime), read lock-free on every guarded call; see CSRHookTable.h for
/// the publication rules. Writers hold the engine lock. A receiver whose class has no slot of its own (a subclass
/// that inherits the hooked method) is resolved once through its superclasses and then gets an alias slot.
final class OriginalTable: @unchecked Sendable {
    static let capacity = Int(CSR_HOOK_TABLE_CAPACITY)

    /// The table; statically allocated for the hottest hook points, owned by this object otherwise.
    let storage: UnsafeMutablePointer<CSRHookTable>
    private let ownsStorage: Bool
    private let aliasLock = Lock()

    init(selector: CSRSelector, storage: UnsafeMutablePointer<CSRHookTable>? = nil) {
        if let storage {
            self.storage = storage
            ownsStorage = false
        } else {
            self.storage = .allocate(capacity: 1)
            self.storage.initialize(to: CSRHookTable())
            ownsStorage = true
        }
        self.storage.pointee.selector = selector
    }

    deinit {
        if ownsStorage { storage.deallocate() }
    }

    /// Hot path: the original implementation for a receiver of class `cls`, or 0 if the class never reached the hook.
    @inline(__always)
    func original(forClass cls: UInt) -> UInt {
        let found = csr_hook_table_find(storage, cls)
        return found != 0 ? found : originalThroughSuperclasses(cls)
    }

    /// Cold path: no exact slot (a subclass inheriting an ancestor's hook), or the slot asks its superclass.
    @inline(never)
    func originalThroughSuperclasses(_ cls: UInt) -> UInt {
        let owner = slot(forClass: cls)
        guard owner >= 0 else { return 0 }
        if csr_hook_table_class(storage, owner) != cls {
            aliasLock.withLock { csr_hook_table_add_alias(storage, cls, owner) }
        }
        return csr_hook_table_resolve(storage, owner)
    }

    /// The slot of `cls` itself or of its nearest hooked ancestor; -1 if none.
    func slot(forClass cls: UInt) -> Int { csr_hook_table_slot(storage, UnsafeMutableRawPointer(bitPattern: cls)) }

    /// The slot of exactly `cls` (not an alias's owner); -1 if `cls` has none.
    func ownSlot(forClass cls: UInt) -> Int { csr_hook_table_index(storage, cls) }

    /// Whether the hook reached by a receiver of class `cls` is active (cold path).
    func isActive(forClass cls: UInt) -> Bool { csr_hook_table_is_active(storage, slot(forClass: cls)) }

    /// Engine only: records or updates the original for `cls` (0: ask the superclass at call time). False when full.
    func register(cls: UInt, original: UInt) -> Bool {
        aliasLock.withLock { csr_hook_table_register(storage, cls, original) }
    }

    /// Engine only: marks the hook on `cls` active or passing through.
    func setActive(_ active: Bool, cls: UInt) { csr_hook_table_set_active(storage, slot(forClass: cls), active) }

    /// A class installed here (not an alias) that is a strict superclass or subclass of `cls`, if any.
    func nestedInstallation(for cls: CSRClass) -> CSRClass? {
        UnsafeMutableRawPointer(bitPattern: csr_hook_table_nested(storage, cls))
    }
}
