import CrashShieldRuntime.Internal

/// The state behind the KVO guard: one proxy per observed object (the only observer Foundation knows of), the
/// registrations it forwards to, and who watches whom. Objects are kept by address and never retained; both the
/// observed objects and the observers are watched through `DeallocWatcher` (GCC's libobjc has no weak references).
///
/// A registration is keyed on (observed, observer, key path, context) and keeps its options. The proxy is registered
/// with Foundation once per key path, with the union of the registrations' options; each change is forwarded to every
/// registration of that key path (newest first, GNUstep's order), prior notifications only to those that asked for
/// them; on Apple each gets only the values it asked for (GNUstep sends every observer the same dictionary). An
/// initial notification Foundation sends while the proxy is registered with Initial goes to the new registration only.
///
/// The proxy stays registered for a key path once registered, until the observed object is deallocated or the guard
/// stops (see `remove`: GNUstep's removal is not thread-safe).
///
/// Locking: one lock for every table; nothing calls out (to observers, to Foundation's KVO, to the report pipeline)
/// while holding it. Observers are pinned while a change is delivered to them, and their dealloc waits for calls on
/// other threads (see "Deliveries in flight").
final class KVOProxyRegistry: DeallocObserver, @unchecked Sendable {
    static let shared = KVOProxyRegistry()

    struct Registration {
        let id: Int
        let observer: UInt
        let keyPath: String
        let context: UInt
        let options: UInt
        let observerClass: String
    }

    final class Observed {
        let proxy: CSRObject
        let className: String
        var registrations: [Registration] = []
        /// Key path -> (an owned copy of the key path string, the options the proxy is registered with).
        var proxied: [String: (keyPath: UInt, options: UInt)] = [:]
        /// Registrations being added with the Initial option, by thread: Foundation's initial notification to the
        /// proxy during that add belongs to them alone.
        var initialFor: [(thread: UInt64, id: Int)] = []
        init(proxy: CSRObject, className: String) { self.proxy = proxy; self.className = className }
    }

    enum Options {
        static let new: UInt = 0x01, old: UInt = 0x02, initial: UInt = 0x04, prior: UInt = 0x08
    }

    private let lock = Lock()
    private var observed: [UInt: Observed] = [:]
    /// Observer address -> the observed objects it has registrations on.
    private var observers: [UInt: Set<UInt>] = [:]
    private var nextID = 0
    private let watcher = DeallocWatcher.shared

    // MARK: Queries

    /// Whether (observed, observer, key path, context) is registered.
    func contains(observed object: CSRObject, observer: CSRObject, keyPath: String, context: UInt) -> Bool {
        lock.withLock {
            observed[UInt(bitPattern: object)]?.registrations.contains {
                $0.observer == UInt(bitPattern: observer) && $0.keyPath == keyPath && $0.context == context
            } ?? false
        }
    }

    /// How many registrations the observed object has (0 when unknown).
    func registrationCount(of object: CSRObject) -> Int {
        lock.withLock { observed[UInt(bitPattern: object)]?.registrations.count ?? 0 }
    }

    var observedCount: Int { lock.withLock { observed.count } }

    /// Observers in their dealloc cleanup waiting for calls on other threads, or whose deallocation is held.
    var dyingCount: Int { lock.withLock { dying.count } }

    // MARK: Add

    enum AddOutcome { case added, duplicate }

    /// Registers `observer` through the proxy of `object`. Throws when the classes cannot be watched.
    func add(observed object: CSRObject, observer: CSRObject, keyPathObject: CSRObject, keyPath: String,
             options: UInt, context: UInt) throws -> AddOutcome {
        try watcher.cover(objectOf: object)
        try watcher.cover(objectOf: observer)
        let objectAddress = UInt(bitPattern: object), observerAddress = UInt(bitPattern: observer)
        let observerClass = GuardFailure.className(observer)
        var spareProxy: CSRObject? = lock.withLock { observed[objectAddress] == nil } ? csr_kvo_proxy_new() : nil
        defer { if let spareProxy { csr_object_release_owned(spareProxy) } }

        let keyPathCopy = csr_object_copy_owned(keyPathObject)
        var unusedCopy: CSRObject? = keyPathCopy
        defer { if let unusedCopy { csr_object_release_owned(unusedCopy) } }

        enum Step { case duplicate, register(proxy: CSRObject, keyPath: UInt, options: UInt, previous: UInt?, id: Int, initial: Bool) }
        let step: Step? = lock.withLock {
            let entry: Observed
            if let existing = observed[objectAddress] {
                entry = existing
            } else {
                guard let proxy = spareProxy else { return nil }
                spareProxy = nil
                entry = Observed(proxy: proxy, className: GuardFailure.className(object))
                observed[objectAddress] = entry
                watcher.watch(objectAddress, by: self)
            }
            if entry.registrations.contains(where: {
                $0.observer == observerAddress && $0.keyPath == keyPath && $0.context == context
            }) { return .duplicate }
            nextID += 1
            let registration = Registration(id: nextID, observer: observerAddress, keyPath: keyPath, context: context,
                                            options: options, observerClass: observerClass)
            entry.registrations.append(registration)
            if observers[observerAddress] == nil { watcher.watch(observerAddress, by: self) }
            observers[observerAddress, default: []].insert(objectAddress)
            let previous = entry.proxied[keyPath]
            let union = (previous?.options ?? 0) | (options & ~Options.initial)
            let proxiedKeyPath: UInt
            if let previous {
                proxiedKeyPath = previous.keyPath
            } else {
                proxiedKeyPath = UInt(bitPattern: keyPathCopy)
                unusedCopy = nil
            }
            entry.proxied[keyPath] = (proxiedKeyPath, union)
            if options & Options.initial != 0 { entry.initialFor.append((csr_thread_id(), registration.id)) }
            return .register(proxy: entry.proxy, keyPath: proxiedKeyPath, options: union, previous: previous?.options,
                             id: registration.id, initial: options & Options.initial != 0)
        }
        guard let step else { return .added }
        switch step {
        case .duplicate:
            return .duplicate
        case let .register(proxy, keyPath, options, previous, id, initial):
            let keyPathObject = UnsafeMutableRawPointer(bitPattern: keyPath)
            if previous != options || initial {
                #if canImport(Darwin)
                // Apple keeps both registrations of one observer: replace the proxy's instead.
                if previous != nil { csr_kvo_remove(object, proxy, keyPathObject) }
                #endif
                // GNUstep replaces the options of an observer registered again for the same key path. With Initial,
                // Foundation sends the initial notification now; `deliver` hands it to this registration only.
                csr_kvo_add(object, proxy, keyPathObject, options | (initial ? Options.initial : 0), nil)
            }
            if initial {
                lock.withLock { observed[objectAddress]?.initialFor.removeAll { $0.id == id } }
            }
        }
        return .added
    }

    // MARK: Remove

    /// Removes the registration matching (observer, key path, context), or the newest one for (observer, key path)
    /// when `context` is nil. Returns false when there is none.
    func remove(observed object: CSRObject, observer: CSRObject, keyPath: String, context: UInt?) -> Bool {
        let objectAddress = UInt(bitPattern: object), observerAddress = UInt(bitPattern: observer)
        return lock.withLock {
            guard let entry = observed[objectAddress],
                  let index = entry.registrations.lastIndex(where: {
                      $0.observer == observerAddress && $0.keyPath == keyPath && (context == nil || $0.context == context)
                  }) else { return false }
            entry.registrations.remove(at: index)
            forgetObserverIfDone(observerAddress, on: objectAddress, entry: entry)
            // The proxy stays registered with Foundation for the key path, even without registrations: it is
            // unregistered only when the observed object is deallocated (or at stop). GNUstep's
            // -removeObserver:forKeyPath: is not synchronised with -addObserver:... and changes on other threads
            // (it drops the object's observation info, and swaps its class back, without the KVO lock): removing
            // and re-adding the proxy while other threads observe or change the object corrupts GNUstep's state
            // (an over-released object, found at a later autorelease pool drain). A change nobody observes costs one
            // proxy call and a lookup.
            return true
        }
    }

    /// Under the lock.
    private func forgetObserverIfDone(_ observerAddress: UInt, on objectAddress: UInt, entry: Observed) {
        guard !entry.registrations.contains(where: { $0.observer == observerAddress }) else { return }
        observers[observerAddress]?.remove(objectAddress)
        if observers[observerAddress]?.isEmpty == true {
            observers[observerAddress] = nil
            // Still watched while a call to it is in flight: its dealloc must wait for the call (`unpinLocked`).
            if observed[observerAddress] == nil, !isPinned(observerAddress) { watcher.unwatch(observerAddress, by: self) }
        }
    }

    // MARK: Delivery

    /// A change Foundation delivered to a proxy: forward it to the registrations of that key path.
    func deliver(proxy: CSRObject, keyPath: CSRObject, object: CSRObject, change: CSRObject, context: UnsafeMutableRawPointer?) {
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

    private func forward(_ target: Registration, keyPath: CSRObject, object: CSRObject, change: CSRObject?) {
        guard let observer = UnsafeMutableRawPointer(bitPattern: target.observer) else { return }
        if !csr_kvo_observer_handles(observer), KVOGuard.unhandledChange(observer: observer, keyPath: keyPath) {
            return
        }
        #if canImport(Darwin)
        // Apple gives each observer only the values it asked for; the proxy is registered with the union.
        let filtered = csr_kvo_change_filtered(change, target.options & Options.new != 0,
                                               target.options & Options.old != 0)
        #else
        // GNUstep gives every observer of a key path the same dictionary, whatever its options: so does the proxy.
        let filtered = change
        #endif
        // An exception out of the observer unwinds past `deliver`: its pin is dropped on the way.
        csr_kvo_deliver(observer, keyPath, object, filtered, UnsafeMutableRawPointer(bitPattern: target.context)) { observer in
            guard let observer else { return }
            KVOProxyRegistry.shared.unpin(UInt(bitPattern: observer), thread: csr_thread_id())
        }
    }

    // MARK: Deliveries in flight
    //
    // The proxy never retains observers (KVO does not), and GCC's libobjc has no weak references: an observer can be
    // released on one thread while another thread is calling its observeValueForKeyPath:... So every call to an
    // observer is made with the observer *pinned* (under the lock: `pins[(observer, thread)] += 1`, dropped after the
    // call, also when an exception leaves it), and an observer's dealloc cleanup (`objectWillDeallocate`, which runs
    // before its memory is freed), when another thread has it pinned:
    //   1. marks it dying (`dying`): no delivery pins it any more;
    //   2. when its own thread is in no delivery (holds no pin), waits on `settled` (the wait releases the lock) until
    //      no other thread has it pinned. Pins of the dying thread itself are never waited for: the observer released
    //      itself inside its own observeValue..., or a change was made from inside a dealloc; that call finishes as it
    //      would without the guard;
    //   3. otherwise (its own thread is inside a delivery), or when the wait lasts longer than `waitLimit`, it does not
    //      wait: it holds the deallocation (`DeallocWatcher.holdDeallocation`), and the thread that drops the last
    //      pin of another thread runs the original -dealloc (`finishHeldDeallocation`).
    // Why no deadlock: only a thread holding no pin ever waits, and it waits only for pins; a pinned thread never
    // waits (step 3), so no thread waits, through pins, for a waiting thread. GNUstep's KVO holds the observed
    // object's lock while it notifies (so a pinned thread holds a KVO lock), which is why a thread inside a delivery
    // must not wait either: it could hold the lock the other call needs. (And an observer's cleanup never calls
    // Foundation: the proxies stay registered, see `remove`, so it needs no KVO lock.)
    // The time limit covers locks the guard cannot see (an app lock held around the release that the other call
    // needs): a late deallocation instead of a deadlock.
    // Nothing calls out with the lock held; the lock order is registry lock -> DeallocWatcher's lock.

    private struct Pin: Hashable { let observer: UInt; let thread: UInt64 }
    /// Calls to observers in flight: (observer, calling thread) -> how many (nested deliveries on one thread).
    private var pins: [Pin: Int] = [:]
    /// Observers being deallocated: address -> the dying thread, and whether the deallocation is held (step 3).
    private var dying: [UInt: (thread: UInt64, held: Bool)] = [:]
    /// Broadcast when a call to a dying observer returns.
    private let settled = Condition()
    /// How long a dealloc waits for calls on other threads before it holds the deallocation instead (seconds).
    static let waitLimit = 2.0

    /// Drops a pin after an exception left the observer's handler.
    func unpin(_ observer: UInt, thread: UInt64) {
        if let finish = lock.withLock({ unpinLocked(observer, thread: thread) }) { finishHeldDeallocation(finish) }
    }

    /// Under the lock: drops one pin. Returns the observer whose held deallocation must now finish (outside the lock).
    private func unpinLocked(_ observer: UInt, thread: UInt64) -> UInt? {
        let key = Pin(observer: observer, thread: thread)
        if let depth = pins[key], depth > 1 {
            pins[key] = depth - 1
        } else {
            pins[key] = nil
            // Removed while it was being called: the watch was kept for the call (`forgetObserverIfDone`).
            if observers[observer] == nil, observed[observer] == nil, !isPinned(observer) {
                watcher.unwatch(observer, by: self)
            }
        }
        guard !dying.isEmpty, let death = dying[observer] else { return nil }
        settled.broadcast()
        guard death.held, !hasForeignPins(observer, except: death.thread) else { return nil }
        dying[observer] = nil
        return observer
    }

    /// Under the lock: whether some thread is calling `observer`.
    private func isPinned(_ observer: UInt) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == observer }
    }

    /// Under the lock: whether a thread other than `thread` is calling `observer`.
    private func hasForeignPins(_ observer: UInt, except thread: UInt64) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == observer && $0.thread != thread }
    }

    /// Under the lock, in the dealloc cleanup of `address` on `thread`, when other threads are calling it: steps 1-3.
    /// Returns true when the deallocation is held. Leaves `dying[address]` set (the caller clears it unless held).
    private func settleDeliveries(to address: UInt, object: CSRObject, thread: UInt64) -> Bool {
        dying[address] = (thread, false)
        let inDelivery = pins.keys.contains { $0.thread == thread }
        let deadline = Deadline(after: Self.waitLimit)
        while hasForeignPins(address, except: thread) {
            if inDelivery || !lock.wait(settled, until: deadline) && hasForeignPins(address, except: thread) {
                dying[address] = (thread, true)
                watcher.holdDeallocation(of: object)
                return true
            }
        }
        return false
    }

    private func finishHeldDeallocation(_ address: UInt) {
        guard let object = UnsafeMutableRawPointer(bitPattern: address) else { return }
        watcher.releaseDeallocation(of: object)
    }

    // MARK: Deallocation

    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        // As an observer: drop its registrations everywhere, never message it again (the proxies stay registered
        // with Foundation, see `remove`).
        var lostPaths: [String] = []
        var observerClass = ""
        // As an observed object: unregister the proxy, report leftover observers.
        var orphaned: Observed?
        let thread = csr_thread_id()
        lock.withLock {
            // First let calls to it on other threads return (no new one starts once it is dying).
            // Held: the original -dealloc runs when the last call on another thread returns.
            let held = hasForeignPins(address, except: thread)
                && settleDeliveries(to: address, object: object, thread: thread)
            defer { if !held { dying[address] = nil } }
            for objectAddress in observers.removeValue(forKey: address) ?? [] {
                guard let entry = observed[objectAddress] else { continue }
                let mine = entry.registrations.filter { $0.observer == address }
                entry.registrations.removeAll { $0.observer == address }
                for registration in mine {
                    observerClass = registration.observerClass
                    lostPaths.append(registration.keyPath)
                }
            }
            orphaned = observed.removeValue(forKey: address)
            if let orphaned {
                for registration in orphaned.registrations {
                    observers[registration.observer]?.remove(address)
                    if observers[registration.observer]?.isEmpty == true {
                        observers[registration.observer] = nil
                        if observed[registration.observer] == nil, !isPinned(registration.observer) {
                            watcher.unwatch(registration.observer, by: self)
                        }
                    }
                }
            }
        }
        if !lostPaths.isEmpty {
            KVOGuard.observerDied(className: observerClass, keyPaths: lostPaths)
        }
        if let orphaned {
            for (_, proxied) in orphaned.proxied {
                let keyPath = UnsafeMutableRawPointer(bitPattern: proxied.keyPath)
                csr_kvo_remove(object, orphaned.proxy, keyPath)
                csr_object_release_owned(keyPath)
            }
            if !orphaned.registrations.isEmpty {
                KVOGuard.observedDied(object, className: orphaned.className,
                                      keyPaths: orphaned.registrations.map(\.keyPath))
            }
            csr_object_release_owned(orphaned.proxy)
        }
    }

    // MARK: Stop

    /// Hands every registration back to Foundation (the hooks are gone): each observer is registered directly again,
    /// with its own options and context, and the proxies are dropped.
    func handBackToFoundation() {
        let all: [(UInt, Observed)] = lock.withLock {
            let all = Array(observed)
            observed.removeAll()
            for (address, _) in all { watcher.unwatch(address, by: self) }
            for (address, _) in observers { watcher.unwatch(address, by: self) }
            observers.removeAll()
            return all
        }
        for (address, entry) in all {
            guard let object = UnsafeMutableRawPointer(bitPattern: address) else { continue }
            withAutoreleasePool {
                for registration in entry.registrations {
                    guard let proxied = entry.proxied[registration.keyPath] else { continue }
                    csr_kvo_add(object, UnsafeMutableRawPointer(bitPattern: registration.observer),
                                UnsafeMutableRawPointer(bitPattern: proxied.keyPath),
                                registration.options & ~Options.initial,
                                UnsafeMutableRawPointer(bitPattern: registration.context))
                }
                for (_, proxied) in entry.proxied {
                    let keyPath = UnsafeMutableRawPointer(bitPattern: proxied.keyPath)
                    csr_kvo_remove(object, entry.proxy, keyPath)
                    csr_object_release_owned(keyPath)
                }
            }
            csr_object_release_owned(entry.proxy)
        }
    }
}
