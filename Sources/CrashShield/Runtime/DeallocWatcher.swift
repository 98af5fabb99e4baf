import CrashShieldRuntime.Internal

/// Keeps state about objects it does not own, and must drop it when one of them is deallocated (a `SideStorage`).
package protocol DeallocObserver: AnyObject {
    /// `object` is being deallocated. Its memory is still valid (its class can be read), but it must not be retained.
    /// Called outside the watcher's lock, once per `watch` that was not undone by `unwatch`.
    func objectWillDeallocate(_ object: CSRObject)
    /// The object's own `-dealloc` chain has returned: its memory is gone, only its address is left. Called once
    /// after each `objectWillDeallocate` (default: nothing). Lets an observer tell what the object's own `-dealloc`
    /// undid (e.g. an observer that removed itself) from what it left behind.
    func objectDidDeallocate(_ address: UInt)
}

extension DeallocObserver {
    package func objectDidDeallocate(_ address: UInt) {}
}

/// Tells observers when watched objects are deallocated. The one place that hooks `-dealloc`.
///
/// GCC's libobjc has neither associated objects nor weak references, so the only portable way to learn that an object
/// dies is its `-dealloc`. The watcher hooks `-dealloc` (through the `HookEngine`) on exactly the classes whose objects
/// get watched: the class of the first watched object, unless a superclass of it is hooked already (its dealloc chain
/// reaches that hook through inheritance or `[super dealloc]`). Subclasses created later (KVO's isa-swizzled classes,
/// app subclasses) inherit the hook the same way. Classes whose objects are never watched are never touched.
///
/// Each hooked class gets a C trampoline of its own (CSRDeallocHook.h), which knows that class's original. While no
/// object is watched (after `stop()`, or before anything was watched) the trampoline is the whole hook: one call that
/// jumps to the class's original `-dealloc`. Otherwise it hands the call to the replacement below, which runs the
/// cleanups of the dying object first, then the class's original `-dealloc`, and never touches the object afterwards.
/// When one hooked class is a subclass of another (the subclass was hooked first), one dealloc chain reaches the hook
/// twice (`[super dealloc]`): the second trampoline continues with its own class's original, and finds nothing left
/// to clean up. The hooks are never taken out: an object may still be watched after `stop()` (the notification-block
/// API, a timer's proxy), and a `-dealloc` may be in flight on another thread.
package final class DeallocWatcher: @unchecked Sendable {
    package static let shared = DeallocWatcher(engine: .shared)

    typealias DeallocIMP = @convention(c) (CSRObject?, CSRSelector?) -> Void

    /// The `-dealloc` hook point. Each class gets its slot's trampoline (`replacement(forSlot:)`); the replacement
    /// below is what a trampoline tail-calls while objects are watched (its caller is the object's release).
    static let deallocPoint: DeallocHookPoint = DeallocHookPoint(
        "dealloc", handlesReentry: true,
        hotTable: csr_dealloc_hook_table()
    ) { receiver, cmd in
        let slot = csr_dealloc_entered_slot()  // first: noted by the trampoline that called us
        guard let receiver else { return }
        DeallocWatcher.shared.objectDeallocating(receiver, cmd, slot: slot)
    }

    /// The `-dealloc` hook point: a trampoline per class (CSRDeallocHook.h), never the replacement itself.
    final class DeallocHookPoint: HookPoint<DeallocIMP>, @unchecked Sendable {
        override func replacement(forSlot slot: Int) -> CSRIMP {
            // The table has CSR_HOOK_TABLE_CAPACITY slots and the pool as many trampolines (static assert).
            csr_dealloc_trampoline(slot)!
        }
    }

    struct Registration {
        weak var observer: DeallocObserver?
        let id: ObjectIdentifier
    }

    private let engine: HookEngine
    private let lock = Lock()
    /// Watched object address -> the observers that hold something for it.
    private var watched: [UInt: [Registration]] = [:]
    // `watched.count` is kept in C (`csr_dealloc_watched_objects`), read without the lock by every trampoline: a
    // dealloc is one call while nothing is watched.
    /// Classes the watcher installed the hook on.
    private var hooked: Set<UInt> = []
    /// Classes whose dealloc is known to reach the hook (hooked, or a subclass of a hooked class).
    private var covered: Set<UInt> = []
    /// Serialises installations (held without `lock`; the engine has its own lock).
    private let installLock = Lock()

    init(engine: HookEngine) {
        self.engine = engine
        csr_dealloc_set_replacement(Self.deallocPoint.replacement)  // before any trampoline is installed
    }

    // MARK: Observers

    private static let classSelector = csr_sel_register("class")

    /// Makes sure `object` reports its deallocation: hooks `-dealloc` on its class unless that is covered already.
    ///
    /// The class hooked is the one the object claims (`[object class]`) when that is an ancestor of its real class:
    /// key-value observing swaps an object's class for a subclass made at run time (which answers `-class` with the
    /// original) and, on GNUstep, swaps it back when the last observer goes. Hooking the original covers both.
    ///
    /// Throws `HookError.noDealloc` for an object whose class frees it without `-dealloc` (its own `-release`:
    /// Apple's toll-free-bridged objects, which CF's `_CFRelease` finalizes and frees): its entries would outlive it
    /// and pass to whatever object reuses its address. Callers keep nothing for it (Foundation alone does).
    package func cover(objectOf object: CSRObject) throws {
        guard let isa = csr_object_getClass(object) else { return }
        try Self.requireDealloc(isa)
        let isaWord = UInt(bitPattern: isa)
        if lock.withLock({ covered.contains(isaWord) }) { return }
        var target = isa
        if let claimed = Messaging.sendObject(object, Self.classSelector), claimed != isa,
            csr_class_isKindOf(isa, claimed), !csr_class_isMetaClass(claimed)
        {
            target = claimed
        }
        try cover(target)
        lock.withLock { _ = covered.insert(isaWord) }
    }

    /// Throws `HookError.noDealloc` unless objects of `cls` reach `-dealloc` when their last reference goes
    /// (`csr_class_releases_through_dealloc`; Docs/AppleRuntime.md §18).
    package static func requireDealloc(_ cls: CSRClass) throws {
        guard csr_class_releases_through_dealloc(cls) else {
            throw HookError.noDealloc(class: String(cString: csr_class_getName(cls)))
        }
    }

    /// Makes sure objects of `cls` report their deallocation: hooks `-dealloc` on `cls` unless it is covered already.
    func cover(_ cls: CSRClass) throws {
        let word = UInt(bitPattern: cls)
        if lock.withLock({ covered.contains(word) }) { return }
        try installLock.withLock {
            let hookedNow = lock.withLock { hooked }
            if hookedNow.contains(word) { return }
            var ancestor = csr_class_getSuperclass(cls)
            while let current = ancestor {
                if hookedNow.contains(UInt(bitPattern: current)) {
                    lock.withLock { _ = covered.insert(word) }
                    return
                }
                ancestor = csr_class_getSuperclass(current)
            }
            // Hooked subclasses of `cls` keep their hook: their dealloc chains will reach ours again through
            // `[super dealloc]`, which `objectDeallocating` recognises.
            try engine.install(Self.deallocPoint, on: ObjCClass(cls))
            csr_runtime_flush_batch()  // inside a batch (a guard's install): subclasses must reach it before a watch
            lock.withLock {
                hooked.insert(word)
                covered.insert(word)
            }
        }
    }

    /// Records that `observer` holds something for the object at `address`. The object's class must be covered.
    package func watch(_ address: UInt, by observer: DeallocObserver) {
        let id = ObjectIdentifier(observer)
        lock.withLock {
            if var registrations = watched[address] {
                guard !registrations.contains(where: { $0.id == id }) else { return }
                registrations.append(Registration(observer: observer, id: id))
                watched[address] = registrations
            } else {
                watched[address] = [Registration(observer: observer, id: id)]
                csr_dealloc_watched_add(1)
            }
        }
    }

    /// Undoes `watch` (the observer dropped its value, or is going away).
    package func unwatch(_ address: UInt, by observer: DeallocObserver) {
        let id = ObjectIdentifier(observer)
        lock.withLock {
            guard var registrations = watched[address] else { return }
            registrations.removeAll { $0.id == id }
            if registrations.isEmpty {
                watched[address] = nil
                csr_dealloc_watched_add(-1)
            } else {
                watched[address] = registrations
            }
        }
    }

    /// How many objects are watched (by any observer).
    var watchedObjectCount: Int { csr_dealloc_watched_objects() }

    /// Whether the watcher hooked `-dealloc` on `cls` itself.
    func isHooked(_ cls: CSRClass) -> Bool { lock.withLock { hooked.contains(UInt(bitPattern: cls)) } }

    // MARK: Dealloc

    /// The body of the `-dealloc` replacement, entered from the trampoline of `slot` (the hooked class whose
    /// `-dealloc` this is: the receiver's class or, through `[super dealloc]`, a hooked ancestor of it).
    @inline(__always)
    private func objectDeallocating(_ receiver: CSRObject, _ cmd: CSRSelector?, slot: Int) {
        let notified = runCleanups(receiver)
        if notified != nil, postponeIfHeld(receiver, cmd, slot: slot, notified: notified) { return }
        guard let original = Self.original(slot: slot) else { return }  // unreachable: leak, not crash
        original(receiver, cmd)
        // The object is gone: never look at it again.
        notifyDidDeallocate(notified, address: UInt(bitPattern: receiver))
    }

    /// The original `-dealloc` of the class hooked in `slot` (resolved now for an added override).
    private static func original(slot: Int) -> DeallocIMP? {
        let word = csr_hook_table_resolve(deallocPoint.originals.storage, slot)
        return word == 0 ? nil : unsafeBitCast(word, to: DeallocIMP.self)
    }

    /// Tells the observers `runCleanups` returned that the object's whole `-dealloc` chain has run.
    func notifyDidDeallocate(_ registrations: [Registration]?, address: UInt) {
        for registration in registrations ?? [] { registration.observer?.objectDidDeallocate(address) }
    }

    // MARK: Postponed deallocation

    /// Postponed deallocations: object address -> holds outstanding, whether the dying thread finished the cleanups
    /// (then the last `releaseDeallocation` runs the original `-dealloc`) and the selector it was called with.
    private struct Postponed {
        var holds = 0; var cleanupsDone = false; var cmd: UInt = 0; var slot = 0; var notified: [Registration]?
    }
    private var postponed: [UInt: Postponed] = [:]

    /// Called by an observer inside its `objectWillDeallocate(object)` (on the dying thread): the memory of `object`
    /// must not be freed yet. The original `-dealloc` runs at the matching `releaseDeallocation`, on the thread that
    /// calls it (or at the end of the cleanups, on the dying thread, when every hold was released by then).
    ///
    /// The last resort of an observer that would otherwise have to wait for another thread that waits for this one
    /// (see `KVOProxyRegistry`): the object's own `-dealloc` runs later and maybe on another thread.
    func holdDeallocation(of object: CSRObject) {
        lock.withLock { postponed[UInt(bitPattern: object), default: Postponed()].holds += 1 }
    }

    /// Undoes one `holdDeallocation`; the last one finishes the deallocation (runs the original `-dealloc`) when the
    /// dying thread is done with its cleanups. Never call it with a lock held: it calls out.
    func releaseDeallocation(of object: CSRObject) {
        let address = UInt(bitPattern: object)
        let finish: (cmd: UInt, slot: Int, notified: [Registration]?)? = lock.withLock {
            guard var entry = postponed[address] else { return nil }
            entry.holds -= 1
            guard entry.holds <= 0 else { postponed[address] = entry; return nil }
            postponed[address] = nil
            return entry.cleanupsDone ? (entry.cmd, entry.slot, entry.notified) : nil
        }
        guard let finish else { return }
        runLateCleanups(object)
        guard let original = Self.original(slot: finish.slot) else { return }
        original(object, UnsafeRawPointer(bitPattern: finish.cmd))
        notifyDidDeallocate(finish.notified, address: address)
    }

    /// At the end of the cleanups: true when an observer holds the deallocation (the original runs at its release).
    @inline(never)
    private func postponeIfHeld(
        _ receiver: CSRObject, _ cmd: CSRSelector?, slot: Int, notified: [Registration]?
    ) -> Bool {
        let address = UInt(bitPattern: receiver)
        return lock.withLock {
            guard var entry = postponed[address] else { return false }
            entry.cleanupsDone = true
            entry.cmd = UInt(bitPattern: cmd)
            entry.slot = slot
            entry.notified = notified
            postponed[address] = entry
            return true
        }
    }

    /// Runs and forgets the cleanups registered for `receiver`; nothing when there are none (a second call for the
    /// same object finds none). Returns the registrations it ran (for `notifyDidDeallocate`). The zombie guard calls
    /// this when it keeps an object whose root `-dealloc` it replaces: a watcher hook below its own would not run.
    @inline(__always)
    @discardableResult
    func runCleanups(_ receiver: CSRObject) -> [Registration]? {
        guard csr_dealloc_watched_objects() > 0 else { return nil }
        let address = UInt(bitPattern: receiver)
        let registrations: [Registration]? = lock.withLock {
            guard let found = watched.removeValue(forKey: address) else { return nil }
            csr_dealloc_watched_add(-1)
            return found
        }
        guard let registrations else { return nil }
        for registration in registrations {
            registration.observer?.objectWillDeallocate(receiver)
        }
        runLateCleanups(receiver)
        return registrations
    }

    /// A cleanup may wait for, or hold the deallocation until, a call to the object on another thread (the KVO
    /// guard); that call may store something for the object again (a value, a registration). Those late entries are
    /// cleaned up too, before the memory is freed, so that an object reusing the address never sees them.
    @inline(never)
    private func runLateCleanups(_ receiver: CSRObject) {
        let address = UInt(bitPattern: receiver)
        for _ in 0..<8 {  // bounded: an object storing into itself from its own cleanup forever would loop
            let late: [Registration]? = lock.withLock {
                guard let found = watched.removeValue(forKey: address) else { return nil }
                csr_dealloc_watched_add(-1)
                return found
            }
            guard let late else { return }
            for registration in late { registration.observer?.objectWillDeallocate(receiver) }
        }
    }
}
