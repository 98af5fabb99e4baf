import Atomics
import CrashShieldRuntime.Internal

/// Delivery: changes Foundation sends a proxy, forwarded to the registrations of the key path, each call made with
/// its observer pinned so that a dealloc on another thread waits for it ("Deliveries in flight").
extension KVOProxyRegistry {
    // MARK: Delivery

    /// A change Foundation delivered to a proxy: forward it to the registrations of that key path.
    func deliver(
        proxy: CSRObject, keyPath: CSRObject, object: CSRObject, change: CSRObject, context: UnsafeMutableRawPointer?
    ) {
        let name = KVOGuard.string(keyPath) ?? ""
        let isPrior = csr_kvo_change_is_prior(change)
        let thread = csr_thread_id()
        let targets: [Registration] = lock.withLock {
            guard let entry = observed[UInt(bitPattern: object)], entry.proxy == proxy else { return [] }
            if let pending = entry.initialFor.last(where: { $0.thread == thread }) {
                return isPrior ? [] : entry.registrations.filter { $0.id == pending.id }
            }
            // Foundation on GNUstep notifies the newest observer first; the proxy keeps that order.
            return entry.registrations.reversed().filter {
                $0.keyPath == name && (!isPrior || $0.options & Options.prior != 0)
            }
        }
        // Each call to an observer is made with the observer pinned (see "Deliveries in flight"): its dealloc, on
        // another thread, waits for the call to return. The unpin of one target and the pin of the next share a lock.
        var pinned: UInt?
        for target in targets {
            let (go, finish): (Bool, UInt?) = lock.withLock {
                let finish = pinned.flatMap { unpinLocked($0, thread: thread) }
                pinned = nil
                // Skip a registration removed (or whose observer died) while earlier ones were being notified.
                guard dying.isEmpty || dying[target.observer] == nil,
                    observed[UInt(bitPattern: object)]?.registrations.contains(where: { $0.id == target.id }) == true
                else { return (false, finish) }
                pins[Pin(observer: target.observer, thread: thread), default: 0] += 1
                pinned = target.observer
                return (true, finish)
            }
            if let finish { finishHeldDeallocation(finish) }
            if go { forward(target, keyPath: keyPath, object: object, change: change) }
        }
        if let pinned, let finish = lock.withLock({ unpinLocked(pinned, thread: thread) }) {
            finishHeldDeallocation(finish)
        }
    }

    /// Whether each registration gets only the values it asked for: Apple gives each observer only those (the proxy
    /// is registered with the union, `csr_kvo_change_filtered` drops the rest); GNUstep gives every observer of a key
    /// path the same dictionary, whatever its options, and so does the proxy. Tests turn it on here to run Apple's
    /// path (an autoreleased copy of the change, handed to the observer) against GNUstep.
    static var filtersChangesPerObserver: Bool {
        get { filtersChangesFlag.load(ordering: .acquiring) }
        set { filtersChangesFlag.store(newValue, ordering: .releasing) }
    }
    private static let filtersChangesFlag = ManagedAtomic<Bool>(FoundationRules.platform == .apple)

    private func forward(_ target: Registration, keyPath: CSRObject, object: CSRObject, change: CSRObject?) {
        guard let observer = UnsafeMutableRawPointer(bitPattern: target.observer) else { return }
        if !csr_kvo_observer_handles(observer), KVOGuard.unhandledChange(observer: observer, keyPath: keyPath) {
            return
        }
        // +0: the change itself, or an autoreleased copy that lives until the pool around this delivery drains.
        let filtered =
            Self.filtersChangesPerObserver
            ? csr_kvo_change_filtered(change, target.options & Options.new != 0, target.options & Options.old != 0)
            : change
        // An exception out of the observer unwinds past `deliver`: its pin is dropped on the way.
        csr_kvo_deliver(observer, keyPath, object, filtered, UnsafeMutableRawPointer(bitPattern: target.context)) {
            observer in
            guard let observer else { return }
            KVOProxyRegistry.shared.unpin(UInt(bitPattern: observer), thread: csr_thread_id())
        }
    }

    // MARK: Deliveries in flight
    //
    // The proxy never retains observers (KVO does not), and GCC's libobjc has no weak references: an observer can be
    // released on one thread while another thread is calling its observeValueForKeyPath:... So every call to an
    // observer is made with the observer *pinned* (under the lock: `pins[(observer, thread)] += 1`, dropped after the
    // call, also when an exception leaves it), and so is every Foundation call on an observed object (see "Access").
    // An object's dealloc cleanup (`objectWillDeallocate`, which runs before its memory is freed), when another
    // thread has it pinned:
    //   1. marks it dying (`dying`): no delivery pins it any more, and no thread takes its access;
    //   2. when its own thread holds no pin, waits on `settled` (the wait releases the lock) until no other thread
    //      has it pinned. Pins of the dying thread itself are never waited for: the observer released itself inside
    //      its own observeValue..., or a change was made from inside a dealloc; that call finishes as it would
    //      without the guard;
    //   3. otherwise (its own thread holds a pin), or when the wait lasts longer than `waitLimit`, it does not wait:
    //      it holds the deallocation (`DeallocWatcher.holdDeallocation`), and the thread that drops the last pin of
    //      another thread runs the original -dealloc (`finishHeldDeallocation`).
    // Why no deadlock: only a thread holding no pin ever waits, and it waits only for pins; a pinned thread never
    // waits for a dying object (step 3), so no thread waits, through pins, for a waiting thread. GNUstep's KVO holds
    // the observed object's lock while it notifies (so a pinned thread holds a KVO lock), which is why a thread inside
    // a delivery must not wait either: it could hold the lock the other call needs.
    // The time limit covers locks the guard cannot see (an app lock held around the release that the other call
    // needs): a late deallocation instead of a deadlock.
    // The lock order is registry lock -> DeallocWatcher's lock.

    /// Drops a pin after an exception left the observer's handler.
    func unpin(_ observer: UInt, thread: UInt64) {
        if let finish = lock.withLock({ unpinLocked(observer, thread: thread) }) { finishHeldDeallocation(finish) }
    }

    /// Under the lock: drops one pin. Returns the object whose held deallocation must now finish (outside the lock).
    func unpinLocked(_ address: UInt, thread: UInt64) -> UInt? {
        let key = Pin(observer: address, thread: thread)
        if let depth = pins[key], depth > 1 {
            pins[key] = depth - 1
        } else {
            pins[key] = nil
            // Dropped from the tables while it was being called: the watch was kept for the call.
            if observers[address] == nil, observed[address] == nil, !isPinned(address) {
                watcher.unwatch(address, by: self)
            }
        }
        guard !dying.isEmpty, let death = dying[address] else { return nil }
        settled.broadcast()
        guard death.held, !hasForeignPins(address, except: death.thread) else { return nil }
        dying[address] = nil
        return address
    }

    /// Under the lock: whether some thread is calling `address` (or calling Foundation on it).
    func isPinned(_ address: UInt) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == address }
    }

    /// Under the lock: whether a thread other than `thread` has `address` pinned.
    func hasForeignPins(_ address: UInt, except thread: UInt64) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == address && $0.thread != thread }
    }

    /// Under the lock, in the dealloc cleanup of `address` on `thread`, when other threads have it pinned: steps 1-3.
    /// Returns true when the deallocation is held. Leaves `dying[address]` set (the caller clears it unless held).
    func settleDeliveries(to address: UInt, object: CSRObject, thread: UInt64) -> Bool {
        guard !awaitForeignPins(on: address, thread: thread) else { return false }
        dying[address] = (thread, true)
        watcher.holdDeallocation(of: object)
        return true
    }

    /// Under the lock: steps 1 and 2. Returns whether no other thread has `address` pinned any more.
    func awaitForeignPins(on address: UInt, thread: UInt64) -> Bool {
        dying[address] = (thread, false)
        let inDelivery = pins.keys.contains { $0.thread == thread }
        let deadline = Deadline(after: Self.waitLimit)
        while hasForeignPins(address, except: thread) {
            if inDelivery || !lock.wait(settled, until: deadline) && hasForeignPins(address, except: thread) {
                return false
            }
        }
        return true
    }

    func finishHeldDeallocation(_ address: UInt) {
        guard let object = UnsafeMutableRawPointer(bitPattern: address) else { return }
        watcher.releaseDeallocation(of: object)
    }
}
