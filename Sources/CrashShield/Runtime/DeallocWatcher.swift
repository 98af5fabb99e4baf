import Atomics
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
/// The replacement runs the cleanups of the dying object first, then the original `-dealloc`, and never touches the
/// object afterwards. When one hooked class is a subclass of another (the subclass was hooked first), one dealloc chain
/// reaches the replacement twice (`[super dealloc]`); a per-thread frame recognises the second entry and continues with
/// the original of the next hooked class up, instead of calling the subclass's original again.
package final class DeallocWatcher: @unchecked Sendable {
    package static let shared = DeallocWatcher(engine: .shared)

    typealias DeallocIMP = @convention(c) (CSRObject?, CSRSelector?) -> Void

    /// The `-dealloc` replacement, installed on every hooked class.
    static let deallocPoint: HookPoint<DeallocIMP> = HookPoint("dealloc", handlesReentry: true) { receiver, cmd in
        guard let receiver else { return }
        DeallocWatcher.shared.objectDeallocating(receiver, cmd)
    }

    struct Registration {
        weak var observer: DeallocObserver?
        let id: ObjectIdentifier
    }

    private let engine: HookEngine
    private let lock = Lock()
    /// Watched object address -> the observers that hold something for it.
    private var watched: [UInt: [Registration]] = [:]
    /// `watched.count`, read without the lock: a dealloc skips the lock entirely while nothing is watched.
    private let watchedCount = ManagedAtomic<Int>(0)
    /// Classes the watcher installed the hook on.
    private var hooked: Set<UInt> = []
    /// Classes whose dealloc is known to reach the hook (hooked, or a subclass of a hooked class).
    private var covered: Set<UInt> = []
    /// Serialises installations (held without `lock`; the engine has its own lock).
    private let installLock = Lock()

    init(engine: HookEngine) { self.engine = engine }

    // MARK: Observers

    private static let classSelector = csr_sel_register("class")

    /// Makes sure `object` reports its deallocation: hooks `-dealloc` on its class unless that is covered already.
    ///
    /// The class hooked is the one the object claims (`[object class]`) when that is an ancestor of its real class:
    /// key-value observing swaps an object's class for a subclass made at run time (which answers `-class` with the
    /// original) and, on GNUstep, swaps it back when the last observer goes. Hooking the original covers both.
    package func cover(objectOf object: CSRObject) throws {
        guard let isa = csr_object_getClass(object) else { return }
        let isaWord = UInt(bitPattern: isa)
        if lock.withLock({ covered.contains(isaWord) }) { return }
        var target = isa
        if let claimed = Messaging.sendObject(object, Self.classSelector), claimed != isa,
           csr_class_isKindOf(isa, claimed), !csr_class_isMetaClass(claimed) {
            target = claimed
        }
        try cover(target)
        lock.withLock { _ = covered.insert(isaWord) }
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
            csr_runtime_flush_batch()   // inside a batch (a guard's install): subclasses must reach it before a watch
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
                watchedCount.wrappingIncrement(ordering: .releasing)
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
                watchedCount.wrappingDecrement(ordering: .releasing)
            } else {
                watched[address] = registrations
            }
        }
    }

    /// How many objects are watched (by any observer).
    var watchedObjectCount: Int { watchedCount.load(ordering: .acquiring) }

    /// Whether the watcher hooked `-dealloc` on `cls` itself.
    func isHooked(_ cls: CSRClass) -> Bool { lock.withLock { hooked.contains(UInt(bitPattern: cls)) } }

    // MARK: Dealloc

    /// The body of the `-dealloc` replacement.
    @inline(__always)
    private func objectDeallocating(_ receiver: CSRObject, _ cmd: CSRSelector?) {
        let frame = csr_thread_deallocFrame()!
        let saved = frame.pointee
        if saved.object == receiver {
            // `[super dealloc]` of a hooked subclass reached the hook again: cleanups ran already; call the original
            // of the next hooked class above the one this chain is in.
            continueChain(receiver, cmd, from: saved, frame: frame)
            return
        }
        guard let original = Self.deallocPoint.original(for: receiver) else { return }  // unreachable: leak, not crash
        let notified = runCleanups(receiver)
        if notified != nil, postponeIfHeld(receiver, cmd, notified: notified) { return }
        // hookedClass 0: "the hooked class nearest the receiver's class", worked out only if the chain re-enters.
        frame.pointee = CSRDeallocFrame(object: receiver, hookedClass: nil)
        original(receiver, cmd)
        // The object is gone: only restore this thread's words, never look at it again.
        frame.pointee = saved
        notifyDidDeallocate(notified, address: UInt(bitPattern: receiver))
    }

    /// Tells the observers `runCleanups` returned that the object's whole `-dealloc` chain has run.
    func notifyDidDeallocate(_ registrations: [Registration]?, address: UInt) {
        for registration in registrations ?? [] { registration.observer?.objectDidDeallocate(address) }
    }

    // MARK: Postponed deallocation

    /// Postponed deallocations: object address -> holds outstanding, whether the dying thread finished the cleanups
    /// (then the last `releaseDeallocation` runs the original `-dealloc`) and the selector it was called with.
    private struct Postponed { var holds = 0; var cleanupsDone = false; var cmd: UInt = 0; var notified: [Registration]? }
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
        let finish: (cmd: UInt, notified: [Registration]?)? = lock.withLock {
            guard var entry = postponed[address] else { return nil }
            entry.holds -= 1
            guard entry.holds <= 0 else { postponed[address] = entry; return nil }
            postponed[address] = nil
            return entry.cleanupsDone ? (entry.cmd, entry.notified) : nil
        }
        guard let finish else { return }
        runLateCleanups(object)
        let frame = csr_thread_deallocFrame()!
        let saved = frame.pointee
        guard let original = Self.deallocPoint.original(for: object) else { return }
        frame.pointee = CSRDeallocFrame(object: object, hookedClass: nil)
        original(object, UnsafeRawPointer(bitPattern: finish.cmd))
        frame.pointee = saved
        notifyDidDeallocate(finish.notified, address: address)
    }

    /// At the end of the cleanups: true when an observer holds the deallocation (the original runs at its release).
    @inline(never)
    private func postponeIfHeld(_ receiver: CSRObject, _ cmd: CSRSelector?, notified: [Registration]?) -> Bool {
        let address = UInt(bitPattern: receiver)
        return lock.withLock {
            guard var entry = postponed[address] else { return false }
            entry.cleanupsDone = true
            entry.cmd = UInt(bitPattern: cmd)
            entry.notified = notified
            postponed[address] = entry
            return true
        }
    }

    @inline(never)
    private func continueChain(_ receiver: CSRObject, _ cmd: CSRSelector?, from saved: CSRDeallocFrame,
                               frame: UnsafeMutablePointer<CSRDeallocFrame>) {
        let table = Self.deallocPoint.originals
        var last = saved.hookedClass
        if last == nil {
            last = table.nearestHook(from: UInt(bitPattern: csr_object_getClass(receiver)))
                .flatMap { UnsafeMutableRawPointer(bitPattern: $0.cls) }
        }
        guard let last, let above = csr_class_getSuperclass(last),
              let next = table.nearestHook(from: UInt(bitPattern: above)), next.original != 0 else {
            return  // no hooked class above: cannot happen for a real super chain; leak rather than recurse
        }
        frame.pointee = CSRDeallocFrame(object: receiver, hookedClass: UnsafeMutableRawPointer(bitPattern: next.cls))
        unsafeBitCast(next.original, to: DeallocIMP.self)(receiver, cmd)
        frame.pointee = saved
    }

    /// Runs and forgets the cleanups registered for `receiver`; nothing when there are none (a second call for the
    /// same object finds none). Returns the registrations it ran (for `notifyDidDeallocate`). The zombie guard calls
    /// this when it keeps an object whose root `-dealloc` it replaces: a watcher hook below its own would not run.
    @inline(__always)
    @discardableResult
    func runCleanups(_ receiver: CSRObject) -> [Registration]? {
        guard watchedCount.load(ordering: .acquiring) > 0 else { return nil }
        let address = UInt(bitPattern: receiver)
        let registrations: [Registration]? = lock.withLock {
            guard let found = watched.removeValue(forKey: address) else { return nil }
            watchedCount.wrappingDecrement(ordering: .releasing)
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
        for _ in 0..<8 {   // bounded: an object storing into itself from its own cleanup forever would loop
            let late: [Registration]? = lock.withLock {
                guard let found = watched.removeValue(forKey: address) else { return nil }
                watchedCount.wrappingDecrement(ordering: .releasing)
                return found
            }
            guard let late else { return }
            for registration in late { registration.observer?.objectWillDeallocate(receiver) }
        }
    }
}
