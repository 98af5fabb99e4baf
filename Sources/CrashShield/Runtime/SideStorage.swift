import CrashShieldRuntime.Internal

/// A thread-safe table from Objective-C objects (by address) to values, whose entries disappear when their object is
/// deallocated: associated objects for runtimes that have none (GCC's libobjc), and the same on Apple platforms.
///
/// Storing the first value for an object of class `C` hooks `-dealloc` on `C` (once, through the `HookEngine`),
/// unless a superclass of `C` is hooked already. Classes whose objects never get a value are never hooked. When an
/// object with a value is deallocated, its value is removed, and `onDeallocate` runs (outside any lock) before the
/// object's memory is freed; so an object that later reuses the address never sees a stale value. Any number of
/// tables may hold values for the same object; all of them are cleaned up.
///
/// The table never retains the objects. Keys must be live objects while they are stored, read or removed.
final class SideStorage<Value>: DeallocObserver, @unchecked Sendable {
    /// Called when an object that has a value here is deallocated, with the object (still readable: its class, its
    /// address; do not retain it or send it messages that would) and its value, which is removed already.
    typealias DeallocationHandler = (CSRObject, Value) -> Void

    private let lock = Lock()
    private var values: [UInt: Value] = [:]
    private let onDeallocate: DeallocationHandler?
    private let watcher: DeallocWatcher

    init(onDeallocate: DeallocationHandler? = nil) {
        self.onDeallocate = onDeallocate
        self.watcher = .shared
    }

    deinit {
        // Values still stored simply go away with the table; stop the watcher from calling a dead table.
        for address in values.keys { watcher.unwatch(address, by: self) }
    }

    /// The value stored for `object`; setting nil removes it. A set that cannot hook the object's class (see
    /// `setValue(_:for:)`) stores nothing.
    subscript(object: CSRObject) -> Value? {
        get { lock.withLock { values[UInt(bitPattern: object)] } }
        set {
            if let newValue {
                try? setValue(newValue, for: object)
            } else {
                removeValue(for: object)
            }
        }
    }

    /// Stores `value` for `object`, replacing any previous one.
    /// - Throws: `HookError` when `-dealloc` of the object's class cannot be hooked (for example, the hook point's
    ///   class limit is reached); nothing is stored then.
    func setValue(_ value: Value, for object: CSRObject) throws {
        try watcher.cover(objectOf: object)
        let address = UInt(bitPattern: object)
        let replaced: Value? = lock.withLock {
            // Registered under the table lock, so a concurrent remove cannot unwatch between the two steps.
            let previous = values.updateValue(value, forKey: address)
            if previous == nil { watcher.watch(address, by: self) }
            return previous
        }
        _ = replaced  // released outside the lock
    }

    /// Removes and returns the value stored for `object`.
    @discardableResult
    func removeValue(for object: CSRObject) -> Value? {
        let address = UInt(bitPattern: object)
        return lock.withLock {
            let removed = values.removeValue(forKey: address)
            if removed != nil { watcher.unwatch(address, by: self) }
            return removed
        }
    }

    /// How many objects have a value.
    var count: Int { lock.withLock { values.count } }

    /// The watcher's callback (`DeallocObserver`).
    func objectWillDeallocate(_ object: CSRObject) {
        let removed = lock.withLock { values.removeValue(forKey: UInt(bitPattern: object)) }
        if let removed, let onDeallocate { onDeallocate(object, removed) }
    }
}
