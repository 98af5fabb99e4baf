import Atomics
import CrashShieldRuntime

/// For one hook point: which original implementation belongs to which receiver class.
///
/// Read on every guarded call without a lock: slots are appended (never removed) and published by a release store
/// of `count`; a slot's class never changes once published, its original only atomically. Writers hold the engine
/// lock. A receiver whose class has no slot of its own (a subclass that inherits the hooked method) is resolved
/// once through its superclasses and then gets an alias slot.
final class OriginalTable: @unchecked Sendable {
    static let capacity = 96

    private let selector: CSRSelector
    private let count = UnsafeAtomic<Int>.create(0)
    /// Class pointer of each slot (immutable once published).
    private let classes = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    /// Index of the slot that holds the real original (itself, or the hooked ancestor for an alias).
    private let owners = UnsafeMutablePointer<Int>.allocate(capacity: capacity)
    /// Original implementation; 0 means "ask the superclass at call time" (the hook added an override).
    private let originals = UnsafeMutablePointer<UnsafeAtomic<UInt>>.allocate(capacity: capacity)
    /// 1 while the hook on that class is active; 0 once reverted in place (it only passes calls through).
    private let activeFlags = UnsafeMutablePointer<UnsafeAtomic<UInt>>.allocate(capacity: capacity)
    private let aliasLock = Lock()

    init(selector: CSRSelector) {
        self.selector = selector
        for index in 0..<Self.capacity {
            (originals + index).initialize(to: .create(0))
            (activeFlags + index).initialize(to: .create(0))
        }
    }

    deinit {
        for index in 0..<Self.capacity {
            originals[index].destroy()
            activeFlags[index].destroy()
        }
        count.destroy()
        classes.deallocate(); owners.deallocate(); originals.deallocate(); activeFlags.deallocate()
    }

    /// Hot path: the original implementation for a receiver of class `cls`, or 0 if the class was never hooked.
    @inline(__always)
    func original(forClass cls: UInt) -> UInt {
        let published = count.load(ordering: .acquiring)
        var index = 0
        while index < published {
            if classes[index] == cls { return resolve(owners[index]) }
            index += 1
        }
        return originalThroughSuperclasses(cls)
    }

    @inline(__always)
    private func resolve(_ slot: Int) -> UInt {
        let fixed = originals[slot].load(ordering: .relaxed)
        if fixed != 0 { return fixed }
        let superclass = csr_class_getSuperclass(UnsafeMutableRawPointer(bitPattern: classes[slot]))
        return UInt(bitPattern: unsafeBitCast(csr_class_dispatchImplementation(superclass, selector), to: Int.self))
    }

    /// The slot of `cls` itself or of its nearest hooked ancestor.
    func slot(forClass cls: UInt) -> Int? {
        let published = count.load(ordering: .acquiring)
        var current = UnsafeMutableRawPointer(bitPattern: cls)
        while let candidate = current {
            let word = UInt(bitPattern: candidate)
            for index in 0..<published where classes[index] == word { return owners[index] }
            current = csr_class_getSuperclass(candidate)
        }
        return nil
    }

    /// Cold path: the receiver's class inherits the hook from a hooked ancestor. Adds an alias slot when room is left.
    @inline(never)
    private func originalThroughSuperclasses(_ cls: UInt) -> UInt {
        guard let owner = slot(forClass: cls) else { return 0 }
        aliasLock.withLock {
            let published = count.load(ordering: .acquiring)
            guard published < Self.capacity - 8,   // keep room for real installations
                  !(0..<published).contains(where: { classes[$0] == cls }) else { return }
            classes[published] = cls
            owners[published] = owner
            count.store(published + 1, ordering: .releasing)
        }
        return resolve(owner)
    }

    /// The nearest class, from `cls` up, on which this hook point is installed, with its original implementation
    /// (resolved now when the hook added an override). nil when no class in the lineage has the hook.
    func nearestHook(from cls: UInt) -> (cls: UInt, original: UInt)? {
        guard let owner = slot(forClass: cls) else { return nil }
        return (classes[owner], resolve(owner))
    }

    /// Whether the hook reached by a receiver of class `cls` is active (cold path).
    func isActive(forClass cls: UInt) -> Bool {
        guard let owner = slot(forClass: cls) else { return false }
        return activeFlags[owner].load(ordering: .acquiring) == 1
    }

    /// A class installed here (not an alias) that is a strict superclass or subclass of `cls`, if any.
    func nestedInstallation(for cls: CSRClass) -> CSRClass? {
        let published = count.load(ordering: .acquiring)
        for index in 0..<published where owners[index] == index {
            guard let other = UnsafeMutableRawPointer(bitPattern: classes[index]), other != cls else { continue }
            if csr_class_isKindOf(cls, other) || csr_class_isKindOf(other, cls) { return other }
        }
        return nil
    }

    /// Engine only (under its lock): records or updates the original for `cls`. `original == 0` asks the
    /// superclass at call time. Returns false when the table is full.
    func register(cls: UInt, original: UInt) -> Bool {
        aliasLock.withLock {
            let published = count.load(ordering: .acquiring)
            if let existing = (0..<published).first(where: { classes[$0] == cls }) {
                originals[existing].store(original, ordering: .releasing)
                activeFlags[existing].store(1, ordering: .releasing)
                // An alias slot (the class inherited the hook from an ancestor, and is now hooked itself) becomes the
                // class's own slot; otherwise the alias, found first by every lookup, would keep answering with the
                // ancestor's original and skip the class's own implementation. A word-sized store: readers see the
                // old owner or the new one.
                if owners[existing] != existing { owners[existing] = existing }
                return true
            }
            guard published < Self.capacity else { return false }
            classes[published] = cls
            owners[published] = published
            originals[published].store(original, ordering: .relaxed)
            activeFlags[published].store(1, ordering: .relaxed)
            count.store(published + 1, ordering: .releasing)
            return true
        }
    }

    /// Engine only: marks the hook on `cls` active or passing through.
    func setActive(_ active: Bool, cls: UInt) {
        guard let owner = slot(forClass: cls) else { return }
        activeFlags[owner].store(active ? 1 : 0, ordering: .releasing)
    }
}
