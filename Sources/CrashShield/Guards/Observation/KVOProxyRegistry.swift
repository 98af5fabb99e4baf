import Atomics
import CrashShieldRuntime.Internal

/// The state behind the KVO guard: one proxy per observed object (the only observer Foundation knows of for the
/// registrations made through the guard), the registrations it forwards to, and who watches whom. Objects are kept
/// by address and never retained; both the observed objects and the observers are watched through `DeallocWatcher`
/// (GCC's libobjc has no weak references). Where Foundation forgets a dead object's observers by itself (Apple, iOS 11 /
/// macOS 10.13 and later, keys notified automatically) the observed object's `-dealloc` is not watched: an end mark
/// (an associated object, released after its `-dealloc` chain) takes its entry off the table, without a call to
/// Foundation or a report (`observedObjectEnded`). Such an entry never gets a Foundation call the app did not make
/// on its object: the proxy stays on a key path its last observer left by dying until the app's next KVO call on the
/// object, or the object's end.
///
/// A registration is keyed on (observed, observer, key path, context) and keeps its options. The proxy is registered
/// with Foundation for each key path some registration observes, with the union of their options, and taken off a
/// key path when its last registration goes (an object left observed when it is deallocated leaks GNUstep's
/// observation info). Each change is forwarded to every registration of that key path (newest first, GNUstep's
/// order), prior notifications only to those that asked for them; on Apple each gets only the values it asked for
/// (GNUstep sends every observer the same dictionary). An initial notification Foundation sends while the proxy is
/// registered with Initial goes to the new registration only.
///
/// Locking: one lock for every table; nothing calls out (to observers, to Foundation's KVO, to the report pipeline)
/// while holding it. Two kinds of calls are made outside it, each with the objects involved *pinned* (their
/// deallocation waits for the call, see "Deliveries in flight"), so nothing is ever sent to a freed object:
/// - changes delivered to observers (the observer is pinned);
/// - Foundation KVO calls on an observed object (the object is pinned, and the calling thread holds its *access*,
///   see "Access"): GNUstep's `-removeObserver:forKeyPath:` is not synchronised with `-addObserver:...` (it drops the
///   object's observation info without GNUstep's KVO lock), so the registry never makes two such calls on one object
///   at once, and the app's own calls on an object the registry knows wait for the registry's.
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
        /// Identifies the entry to its object's end mark (see `observedObjectEnded`).
        let token: UInt
        /// Whether its object's `-dealloc` is watched (`DeallocWatcher`). Not while every registration is for a key
        /// Foundation itself forgets at the object's deallocation (`KVOGuard.watchesDeallocation`): then an end mark
        /// tells the registry when the object is gone.
        var watched = false
        var registrations: [Registration] = []
        /// What Foundation has for the proxy: key path -> (an owned copy of the key path string, the options).
        var applied: [String: (keyPath: UInt, options: UInt)] = [:]
        /// Registrations being added with the Initial option, by thread: Foundation's initial notification to the
        /// proxy during that add belongs to them alone.
        var initialFor: [(thread: UInt64, id: Int)] = []
        /// While the proxy is registered: whether it is the object's only observer in Foundation (the object had none
        /// when the proxy was first registered, and nothing was registered around the proxy since). Then a removal
        /// the registry does not know is unbalanced; otherwise Foundation may know it (registered before `start()`,
        /// while the guard was off, or left alone as system KVO) and decides.
        var proxyOnly = false
        /// The thread calling Foundation's KVO on the object (see "Access") and how deeply (nested calls).
        var owner: UInt64?
        var depth = 0
        /// Off the table (its object was deallocated): the proxy comes off every key path,
        /// once (`disposed`), by the thread that retired it or, when another holds the access, by that thread.
        var retired = false
        var disposed = false
        init(proxy: CSRObject, className: String, token: UInt) {
            self.proxy = proxy
            self.className = className
            self.token = token
        }

        /// A key path the proxy is registered for that no registration observes any more.
        var staleKeyPath: String? {
            applied.keys.first { keyPath in !registrations.contains { $0.keyPath == keyPath } }
        }
    }

    enum Options {
        static let new: UInt = 0x01, old: UInt = 0x02, initial: UInt = 0x04, prior: UInt = 0x08
    }

    private let lock = Lock()
    private var observed: [UInt: Observed] = [:]
    /// Observer address -> the observed objects it has registrations on.
    private var observers: [UInt: Set<UInt>] = [:]
    /// The live proxies' addresses.
    private var proxies: Set<UInt> = []
    /// Objects being deallocated: what they left registered, until their own `-dealloc` has run (it may still remove
    /// it: an observer removing itself, an object removing its observers). Reported at `objectDidDeallocate`.
    private var departed: [UInt: Departed] = [:]
    /// The guard is off and registrations may be left on the proxies: their ends are watched for the moment the
    /// registry holds nothing (`KVOHookLifetime`).
    private var draining = false
    /// Drained while the guard is off: the hooks are being (or were) reverted, no new registrations.
    private var closed = false
    private var drainCheckScheduled = false
    private var nextID = 0
    private let watcher = DeallocWatcher.shared

    private struct Departed {
        /// As an observer: (observed object, registration).
        var observing: [(object: UInt, registration: Registration)] = []
        /// As an observed object: its class and the registrations of its observers (its own `-dealloc` may still
        /// remove them).
        var observedClass = ""
        var observedBy: [Registration] = []
        var isEmpty: Bool { observing.isEmpty && observedBy.isEmpty }
    }

    // MARK: Queries

    var observedCount: Int { lock.withLock { observed.count } }

    /// Whether `object` is one of the live proxies (by address: a removal may name an observer already freed).
    func isProxy(_ object: CSRObject?) -> Bool {
        guard let object else { return false }
        return lock.withLock { proxies.contains(UInt(bitPattern: object)) }
    }

    /// Registrations made through the proxies.
    var registrationCount: Int { lock.withLock { observed.values.reduce(0) { $0 + $1.registrations.count } } }

    /// Observers in their dealloc cleanup waiting for calls on other threads, or whose deallocation is held.
    var dyingCount: Int { lock.withLock { dying.count } }

    // MARK: Add

    /// `.added`: a registration was added, or (GNUstep) the observer's registration for the key path was given the
    /// new context and options.
    enum AddOutcome { case added, notOurs }

    /// Registers `observer` through the proxy of `object`. `.notOurs`: the registry is closed (the guard is off and
    /// its hooks are being reverted); the caller registers it with Foundation directly. Throws when the classes cannot be watched.
    /// `watchObserved`: `object`'s `-dealloc` must be watched for this registration (else an end mark will do).
    func add(observed object: CSRObject, observer: CSRObject, keyPathObject: CSRObject, keyPath: String,
             options: UInt, context: UInt, watchObserved: Bool) throws -> AddOutcome {
        if watchObserved { try watcher.cover(objectOf: object) }
        try watcher.cover(objectOf: observer)
        let objectAddress = UInt(bitPattern: object), observerAddress = UInt(bitPattern: observer)
        let thread = csr_thread_id()
        let observerClass = GuardFailure.className(observer)
        var spareProxy: CSRObject? = lock.withLock { observed[objectAddress] == nil } ? csr_kvo_proxy_new() : nil
        defer { if let spareProxy { csr_object_release_owned(spareProxy) } }
        var unusedCopy = csr_object_copy_owned(keyPathObject)
        defer { if let unusedCopy { csr_object_release_owned(unusedCopy) } }
        // A new entry whose object is not watched: marked (outside the lock: a mark it replaces ends at once).
        var endMark: UInt?
        defer { if let endMark { csr_kvo_mark_end(object, endMark) } }

        enum Step { case notOurs(Access?), added(Access, ProxyCall?) }
        let (entry, step): (Observed?, Step) = lock.withLock {
            guard !closed else { return (nil, .notOurs(nil)) }
            let entry: Observed
            if let existing = observed[objectAddress] {
                entry = existing
            } else {
                guard let proxy = spareProxy else { return (nil, .notOurs(nil)) }   // created and retired meanwhile
                spareProxy = nil
                nextID += 1
                entry = Observed(proxy: proxy, className: GuardFailure.className(object), token: UInt(nextID))
                observed[objectAddress] = entry
                proxies.insert(UInt(bitPattern: proxy))
                if !watchObserved { endMark = entry.token }
            }
            if watchObserved && !entry.watched {
                entry.watched = true
                watcher.watch(objectAddress, by: self)
            }
            let access = acquireLocked(objectAddress, entry, thread: thread, wait: true)
            guard access != .gone, !closed else { return (entry, .notOurs(access)) }
            // The same observer and key path again. Apple keeps every registration, whatever its context (each is
            // notified, each needs its removal). GNUstep keeps one per observer and key path: adding it again gives
            // that one the new context and options, in place (its turn in the notification order stays).
            let registration: Registration
            if !FoundationRules.isApple,
               let index = entry.registrations.firstIndex(where: { $0.observer == observerAddress && $0.keyPath == keyPath }) {
                registration = Registration(id: entry.registrations[index].id, observer: observerAddress, keyPath: keyPath,
                                            context: context, options: options, observerClass: observerClass)
                entry.registrations[index] = registration
            } else {
                nextID += 1
                registration = Registration(id: nextID, observer: observerAddress, keyPath: keyPath, context: context,
                                            options: options, observerClass: observerClass)
                entry.registrations.append(registration)
                if observers[observerAddress] == nil { watcher.watch(observerAddress, by: self) }
                observers[observerAddress, default: []].insert(objectAddress)
            }
            let previous = entry.applied[keyPath]
            let union = (previous?.options ?? 0) | (options & ~Options.initial)
            let initial = options & Options.initial != 0
            guard previous?.options != union || initial else { return (entry, .added(access, nil)) }
            if initial { entry.initialFor.append((thread, registration.id)) }
            let copy = previous?.keyPath ?? UInt(bitPattern: unusedCopy)
            if previous == nil { unusedCopy = nil }
            _ = csr_object_retain_owned(UnsafeMutableRawPointer(bitPattern: copy))
            return (entry, .added(access, ProxyCall(keyPath: keyPath, keyPathObject: copy, options: union,
                                                   replaces: previous != nil, initial: initial,
                                                   first: entry.applied.isEmpty, id: registration.id,
                                                   proxy: csr_object_retain_owned(entry.proxy))))
        }
        switch step {
        case let .notOurs(access):
            if let entry, let access { release(object, entry, access, thread: thread) }
            return .notOurs
        case let .added(access, call):
            guard let entry else { return .added }
            if let call { registerProxy(call, on: object, entry, exclusive: access == .held) }
            release(object, entry, access, thread: thread)
            return .added
        }
    }

    /// A registration of the proxy with Foundation `add` makes (outside the lock). The proxy and the key path object
    /// are retained for the call (a retired entry is disposed of by another thread).
    private struct ProxyCall {
        let keyPath: String, keyPathObject: UInt, options: UInt
        let replaces: Bool, initial: Bool, first: Bool
        let id: Int
        let proxy: CSRObject?
    }

    /// Registers the proxy for a key path with Foundation. With Initial, Foundation sends the initial notification
    /// now; `deliver` hands it to the new registration only. `exclusive`: made with the object's access.
    private func registerProxy(_ call: ProxyCall, on object: CSRObject, _ entry: Observed, exclusive: Bool) {
        let keyPathObject = UnsafeMutableRawPointer(bitPattern: call.keyPathObject)
        defer {
            csr_object_release_owned(call.proxy)
            csr_object_release_owned(keyPathObject)
        }
        // Whether Foundation has observers of the object the registry does not know (asked before the proxy is one).
        let others = call.first && exclusive ? csr_kvo_has_observation_info(object) : true
        #if canImport(Darwin)
        // Apple keeps both registrations of one observer: replace the proxy's instead.
        if call.replaces { csr_kvo_remove(object, call.proxy, keyPathObject) }
        #endif
        // GNUstep replaces the options of an observer registered again for the same key path.
        csr_kvo_add(object, call.proxy, keyPathObject, call.options | (call.initial ? Options.initial : 0), nil)
        enum Outcome { case applied, spareCopy, stray }
        let outcome: Outcome = lock.withLock {
            if call.initial { entry.initialFor.removeAll { $0.id == call.id } }
            // Disposed of meanwhile (only without the access): the proxy must come off again.
            guard !entry.disposed else { return .stray }
            if call.first { entry.proxyOnly = !others } else if !exclusive { entry.proxyOnly = false }
            if let existing = entry.applied[call.keyPath], existing.keyPath != call.keyPathObject {
                // Another thread (without the access) registered the key path meanwhile, with its own copy.
                entry.applied[call.keyPath] = (existing.keyPath, existing.options | call.options)
                return .spareCopy
            }
            entry.applied[call.keyPath] = (call.keyPathObject, call.options)
            return .applied
        }
        if outcome == .stray { csr_kvo_remove(object, call.proxy, keyPathObject) }
        if outcome != .applied, !call.replaces { csr_object_release_owned(keyPathObject) }
    }

    // MARK: Remove

    /// Removes the registration matching (observer, key path, context), or the newest one for (observer, key path)
    /// when `context` is nil; also one left by an object being deallocated (removed by its own `-dealloc`). Returns
    /// false when there is none.
    func remove(observed object: CSRObject, observer: CSRObject, keyPath: String, context: UInt?) -> Bool {
        let objectAddress = UInt(bitPattern: object), observerAddress = UInt(bitPattern: observer)
        let thread = csr_thread_id()
        func matches(_ registration: Registration) -> Bool {
            registration.observer == observerAddress && registration.keyPath == keyPath
                && (context == nil || registration.context == context)
        }
        var prune: (Observed, Access)?
        let found: Bool = lock.withLock {
            guard let entry = observed[objectAddress], let index = entry.registrations.lastIndex(where: matches) else {
                return removeDepartedLocked(object: objectAddress, observer: observerAddress, matches)
            }
            entry.registrations.remove(at: index)
            forgetObserverIfDone(observerAddress, on: objectAddress, entry: entry)
            // The proxy comes off the key path now, unless another thread is calling Foundation on the object
            // (that thread does it when it is done).
            if entry.staleKeyPath != nil {
                let access = acquireLocked(objectAddress, entry, thread: thread, wait: false)
                if access != .gone { prune = (entry, access) }
            }
            noteEndLocked()
            return true
        }
        if let (entry, access) = prune { release(object, entry, access, thread: thread) }
        return found
    }

    /// Under the lock: removes a registration an object in its `-dealloc` left behind (see `departed`).
    private func removeDepartedLocked(object: UInt, observer: UInt, _ matches: (Registration) -> Bool) -> Bool {
        if var left = departed[observer], let index = left.observing.lastIndex(where: { $0.object == object && matches($0.registration) }) {
            left.observing.remove(at: index)
            departed[observer] = left
            return true
        }
        if var left = departed[object], let index = left.observedBy.lastIndex(where: matches) {
            left.observedBy.remove(at: index)
            departed[object] = left
            return true
        }
        return false
    }

    /// For a removal the registry does not know: whether Foundation has no such registration either, so that the
    /// removal is unbalanced (Apple raises). true when the object has no observers at all, or only the proxy.
    /// Otherwise Foundation may know it (registered before `start()`, while the guard was off, or as system KVO).
    func removalIsUnbalanced(from object: CSRObject) -> Bool {
        let proxyOnly: Bool? = lock.withLock {
            guard let entry = observed[UInt(bitPattern: object)], !entry.applied.isEmpty else { return nil }
            return entry.proxyOnly
        }
        return proxyOnly ?? !csr_kvo_has_observation_info(object)
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

    // MARK: Calls the registry does not make

    /// Runs `body`, a Foundation KVO call on `object` made for the app (a registration or removal that is not the
    /// registry's), after the registry's own calls on that object: see "Access". `adds`: it registers an observer
    /// the registry will not know.
    func callFoundation(on object: CSRObject, adds: Bool, _ body: () -> Void) {
        let address = UInt(bitPattern: object), thread = csr_thread_id()
        let held: (Observed, Access)? = lock.withLock {
            guard let entry = observed[address] else { return nil }
            let access = acquireLocked(address, entry, thread: thread, wait: true)
            if adds, access != .gone { entry.proxyOnly = false }
            return access == .gone ? nil : (entry, access)
        }
        body()
        if let (entry, access) = held { release(object, entry, access, thread: thread) }
    }

    // MARK: Access
    //
    // Every Foundation KVO call the registry makes on an observed object (registering and removing its proxy, handing
    // registrations back) is made by the thread holding the object's *access*, one thread at a time, with the object
    // pinned (its dealloc cleanup waits for the call, as for deliveries). The app's own KVO calls on an object the
    // registry knows (removals it does not know, registrations it leaves alone) take the access too.
    // A thread waits for the access only when it is inside no delivery and holds no other access (it could hold
    // GNUstep's lock of an object, which the call it waits for needs), and at most `waitLimit`: otherwise it makes its
    // call without the access (pinned all the same), as the call would be made without CrashShield.
    // Whoever gives the access up last takes the proxy off the key paths nobody observes any more (`release`).

    private enum Access { case held, without, gone }

    /// Under the lock: pins `address` for this thread and takes its access when it can. `.gone`: the entry is retired
    /// or its object is being deallocated (nothing pinned).
    private func acquireLocked(_ address: UInt, _ entry: Observed, thread: UInt64, wait: Bool) -> Access {
        let deadline = Deadline(after: Self.waitLimit)
        var waited = false
        while true {
            if let death = dying[address], death.thread != thread { return .gone }
            let free = entry.owner == nil || entry.owner == thread
            // A retired entry stays in the table until its proxy is off: calls on its object wait for that.
            if entry.retired && free { return .gone }
            if free || !wait || waited || pins.keys.contains(where: { $0.thread == thread }) {
                pins[Pin(observer: address, thread: thread), default: 0] += 1
                guard free else { return .without }
                entry.owner = thread
                entry.depth += 1
                return .held
            }
            waited = !lock.wait(settled, until: deadline)
        }
    }

    /// Gives up what `acquireLocked` returned (outside the lock). The outermost holder of the access first takes the
    /// proxy off stale key paths, or disposes of a retired entry.
    private func release(_ object: CSRObject, _ entry: Observed, _ access: Access, thread: UInt64) {
        let address = UInt(bitPattern: object)
        while true {
            let next: ReleaseStep = lock.withLock {
                switch access {
                case .gone: return .done(nil)
                case .without:
                    // Retired while its access holder was done already: nobody else disposes of it.
                    if entry.retired, entry.owner == nil, let next = retireLocked(address, entry) { return next }
                    noteEndLocked()
                    return .done(unpinLocked(address, thread: thread))
                case .held: break
                }
                if entry.depth == 1 {
                    if entry.retired {
                        if let next = retireLocked(address, entry) { return next }
                    } else if dying[address] == nil, let stale = entry.staleKeyPath,
                              let applied = entry.applied.removeValue(forKey: stale) {
                        return .prune(applied.keyPath)
                    }
                    entry.owner = nil
                    settled.broadcast()
                }
                entry.depth -= 1
                noteEndLocked()
                return .done(unpinLocked(address, thread: thread))
            }
            switch next {
            case let .done(finish):
                if let finish { finishHeldDeallocation(finish) }
                return
            case let .prune(keyPath):
                let keyPathObject = UnsafeMutableRawPointer(bitPattern: keyPath)
                csr_kvo_remove(object, entry.proxy, keyPathObject)
                csr_object_release_owned(keyPathObject)
            case .dispose:
                dispose(object, entry)
            }
        }
    }

    /// Under the lock, for a retired entry whose access is being given up: `.dispose` once, then it leaves the table.
    private func retireLocked(_ address: UInt, _ entry: Observed) -> ReleaseStep? {
        if !entry.disposed {
            entry.disposed = true
            return .dispose
        }
        if observed[address] === entry { observed[address] = nil }
        return nil
    }

    private enum ReleaseStep { case done(UInt?), prune(UInt), dispose }

    /// Takes the proxy of a retired entry off every key path and releases it. Called once per entry, by the thread
    /// that retired it or holds its access (the object is its own dying object, or pinned). Without `object` (it is
    /// gone, and Foundation forgot the proxy's registrations with it) only releases what the entry holds.
    private func dispose(_ object: CSRObject?, _ entry: Observed) {
        let applied = lock.withLock {
            let applied = entry.applied
            entry.applied.removeAll()
            return applied
        }
        withAutoreleasePool {
            for (_, proxied) in applied {
                let keyPath = UnsafeMutableRawPointer(bitPattern: proxied.keyPath)
                if let object { csr_kvo_remove(object, entry.proxy, keyPath) }
                csr_object_release_owned(keyPath)
            }
        }
        lock.withLock {
            _ = proxies.remove(UInt(bitPattern: entry.proxy))
            noteEndLocked()
        }
        csr_object_release_owned(entry.proxy)
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

    /// Whether each registration gets only the values it asked for: Apple gives each observer only those (the proxy
    /// is registered with the union, `csr_kvo_change_filtered` drops the rest); GNUstep gives every observer of a key
    /// path the same dictionary, whatever its options, and so does the proxy. Tests turn it on here to run Apple's
    /// path (an autoreleased copy of the change, handed to the observer) against GNUstep.
    static var filtersChangesPerObserver: Bool {
        get { filtersChangesFlag.load(ordering: .acquiring) }
        set { filtersChangesFlag.store(newValue, ordering: .releasing) }
    }
    #if canImport(Darwin)
    private static let filtersChangesFlag = ManagedAtomic<Bool>(true)
    #else
    private static let filtersChangesFlag = ManagedAtomic<Bool>(false)
    #endif

    private func forward(_ target: Registration, keyPath: CSRObject, object: CSRObject, change: CSRObject?) {
        guard let observer = UnsafeMutableRawPointer(bitPattern: target.observer) else { return }
        if !csr_kvo_observer_handles(observer), KVOGuard.unhandledChange(observer: observer, keyPath: keyPath) {
            return
        }
        // +0: the change itself, or an autoreleased copy that lives until the pool around this delivery drains.
        let filtered = Self.filtersChangesPerObserver
            ? csr_kvo_change_filtered(change, target.options & Options.new != 0, target.options & Options.old != 0)
            : change
        // An exception out of the observer unwinds past `deliver`: its pin is dropped on the way.
        csr_kvo_deliver(observer, keyPath, object, filtered, UnsafeMutableRawPointer(bitPattern: target.context)) { observer in
            guard let observer else { return }
            KVOProxyRegistry.shared.unpin(UInt(bitPattern: observer), thread: csr_thread_id())
        }
    }

    // MARK: Janitor

    /// Observed objects whose proxy may be registered for key paths nobody observes any more (see
    /// `objectWillDeallocate`): the janitor, a thread of its own that holds no lock, takes the proxy off.
    private var pendingPrunes: Set<UInt> = []
    private let janitor = SerialWorker(name: "CrashShield.KVO.janitor")

    /// Under the lock.
    private func schedulePruneLocked(_ address: UInt) {
        guard pendingPrunes.insert(address).inserted, pendingPrunes.count == 1 else { return }
        janitor.async { self.prunePending() }
    }

    private func prunePending() {
        let thread = csr_thread_id()
        while true {
            let next: (UInt, Observed, Access)? = lock.withLock {
                while let address = pendingPrunes.popFirst() {
                    guard let entry = observed[address], entry.staleKeyPath != nil else { continue }
                    let access = acquireLocked(address, entry, thread: thread, wait: true)
                    if access != .gone { return (address, entry, access) }
                }
                return nil
            }
            guard let (address, entry, access) = next, let object = UnsafeMutableRawPointer(bitPattern: address) else {
                return
            }
            withAutoreleasePool { self.release(object, entry, access, thread: thread) }
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

    private struct Pin: Hashable { let observer: UInt; let thread: UInt64 }
    /// Calls in flight: (observer or observed object, calling thread) -> how many (nested on one thread).
    private var pins: [Pin: Int] = [:]
    /// Objects being deallocated: address -> the dying thread, and whether the deallocation is held (step 3).
    private var dying: [UInt: (thread: UInt64, held: Bool)] = [:]
    /// Broadcast when a pinned call returns or an access is given up.
    private let settled = Condition()
    /// How long a dealloc waits for calls on other threads before it holds the deallocation instead, and how long a
    /// thread waits for another's access to an object before it goes on without (seconds).
    static let waitLimit = 2.0

    /// Drops a pin after an exception left the observer's handler.
    func unpin(_ observer: UInt, thread: UInt64) {
        if let finish = lock.withLock({ unpinLocked(observer, thread: thread) }) { finishHeldDeallocation(finish) }
    }

    /// Under the lock: drops one pin. Returns the object whose held deallocation must now finish (outside the lock).
    private func unpinLocked(_ address: UInt, thread: UInt64) -> UInt? {
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
    private func isPinned(_ address: UInt) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == address }
    }

    /// Under the lock: whether a thread other than `thread` has `address` pinned.
    private func hasForeignPins(_ address: UInt, except thread: UInt64) -> Bool {
        !pins.isEmpty && pins.keys.contains { $0.observer == address && $0.thread != thread }
    }

    /// Under the lock, in the dealloc cleanup of `address` on `thread`, when other threads have it pinned: steps 1-3.
    /// Returns true when the deallocation is held. Leaves `dying[address]` set (the caller clears it unless held).
    private func settleDeliveries(to address: UInt, object: CSRObject, thread: UInt64) -> Bool {
        guard !awaitForeignPins(on: address, thread: thread) else { return false }
        dying[address] = (thread, true)
        watcher.holdDeallocation(of: object)
        return true
    }

    /// Under the lock: steps 1 and 2. Returns whether no other thread has `address` pinned any more.
    private func awaitForeignPins(on address: UInt, thread: UInt64) -> Bool {
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

    private func finishHeldDeallocation(_ address: UInt) {
        guard let object = UnsafeMutableRawPointer(bitPattern: address) else { return }
        watcher.releaseDeallocation(of: object)
    }

    // MARK: Deallocation

    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        let thread = csr_thread_id()
        // Observed objects whose proxy this observer's registrations kept on key paths: taken off now.
        var prunes: [(UInt, Observed, Access)] = []
        // As an observed object: its entry, when this thread disposes of it.
        var orphaned: Observed?
        lock.withLock {
            // First let calls to it on other threads return (no new one starts once it is dying).
            // Held: the original -dealloc runs when the last call on another thread returns.
            let held = hasForeignPins(address, except: thread)
                && settleDeliveries(to: address, object: object, thread: thread)
            defer { if !held { dying[address] = nil } }
            var left = Departed()
            // As an observer: drop its registrations everywhere, never message it again.
            for objectAddress in observers.removeValue(forKey: address) ?? [] {
                guard let entry = observed[objectAddress] else { continue }
                for registration in entry.registrations where registration.observer == address {
                    left.observing.append((objectAddress, registration))
                }
                entry.registrations.removeAll { $0.observer == address }
                // An object whose death is not watched may be dying on another thread right now: its proxy stays on
                // the key path (changes reach no one) until the app's next KVO call on it, or its end.
                guard entry.staleKeyPath != nil, entry.watched else { continue }
                // Inside a delivery (or a Foundation call) this thread may hold GNUstep's lock of another object,
                // which a call on this one could wait for, while the thread holding this one waits for it: the
                // janitor takes the proxy off later. (Without CrashShield an observer's dealloc makes no KVO call.)
                if pins.keys.contains(where: { $0.thread == thread }) {
                    schedulePruneLocked(objectAddress)
                    continue
                }
                switch acquireLocked(objectAddress, entry, thread: thread, wait: false) {
                case .held: prunes.append((objectAddress, entry, .held))
                case .without: _ = unpinLocked(objectAddress, thread: thread)   // its access holder prunes
                case .gone: break
                }
            }
            // As an observed object: retire its entry (the proxy comes off), forget its observers' registrations.
            // Reported only when Foundation would have raised: a watched object (it may also be watched as an
            // observer) where Foundation raises for it (not GNUstep, which drops a dead object's observers).
            if let (entry, registrations) = retireObservedLocked(address) {
                left.observedClass = entry.className
                left.observedBy = entry.watched ? registrations : []
                // Another thread holding the access disposes of it when it gives the access up.
                if entry.owner == nil || entry.owner == thread, !entry.disposed {
                    entry.disposed = true
                    orphaned = entry
                }
            }
            if !left.isEmpty { departed[address] = left }
            noteEndLocked()
        }
        for (objectAddress, entry, access) in prunes {
            guard let observedObject = UnsafeMutableRawPointer(bitPattern: objectAddress) else { continue }
            release(observedObject, entry, access, thread: thread)
        }
        if let orphaned { dispose(object, orphaned) }
    }

    /// Under the lock: takes the entry of an observed object that is going away off the table and forgets its
    /// observers' registrations (returned).
    private func retireObservedLocked(_ address: UInt) -> (Observed, [Registration])? {
        guard let entry = observed.removeValue(forKey: address) else { return nil }
        entry.retired = true
        let registrations = entry.registrations
        for registration in registrations {
            observers[registration.observer]?.remove(address)
            if observers[registration.observer]?.isEmpty == true {
                observers[registration.observer] = nil
                if observed[registration.observer] == nil, !isPinned(registration.observer) {
                    watcher.unwatch(registration.observer, by: self)
                }
            }
        }
        entry.registrations.removeAll()
        return (entry, registrations)
    }

    /// An observed object whose `-dealloc` is not watched (see `Observed.watched`) is being destroyed: its end mark
    /// ran, on the destroying thread, after the object's whole `-dealloc` chain and before its memory is freed. Its
    /// entry leaves the table with no call to Foundation (which forgets the proxy's registrations with the object)
    /// and no report (nothing would have failed). Calls on the object in flight on other threads return first (no
    /// new one starts); one that outlasts `waitLimit` keeps the proxy and key path copies it may use (leaked).
    func observedObjectEnded(_ address: UInt, token: UInt) {
        let thread = csr_thread_id()
        let ended: Observed? = lock.withLock {
            guard let entry = observed[address], entry.token == token, !entry.watched else { return nil }
            let quiet = awaitForeignPins(on: address, thread: thread)
            dying[address] = nil
            _ = retireObservedLocked(address)
            noteEndLocked()
            guard !entry.disposed else { return nil }
            entry.disposed = true
            return quiet ? entry : nil
        }
        if let ended { dispose(nil, ended) }
    }

    /// The object's own `-dealloc` has run: report what it left registered (see `departed`).
    func objectDidDeallocate(_ address: UInt) {
        guard let left = lock.withLock({ () -> Departed? in
            defer { noteEndLocked() }
            return departed.removeValue(forKey: address)
        }) else { return }
        if let first = left.observing.first {
            KVOGuard.observerDied(className: first.registration.observerClass,
                                  keyPaths: left.observing.map(\.registration.keyPath))
        }
        if !left.observedBy.isEmpty, csr_kvo_foundation_raises_for_dead_observed_objects() {
            KVOGuard.observedDied(address, className: left.observedClass, keyPaths: left.observedBy.map(\.keyPath))
        }
    }

    // MARK: Guard switched on and off (see KVOHookLifetime)

    /// The guard is on: registrations go through the proxies again.
    func open() {
        lock.withLock {
            closed = false
            draining = false
        }
    }

    /// The guard is off: registrations made through the proxies stay on them until their natural end. Their ends
    /// are watched for the moment nothing is left (`noteEndLocked`).
    func beginDraining() { lock.withLock { draining = true } }

    /// While the guard is off: true, and closed to new registrations, when no registration is left on a proxy (or in
    /// a dealloc cleanup): the hooks can be reverted.
    func closeIfDrained() -> Bool {
        lock.withLock {
            guard draining else { return false }
            if !closed {
                let empty = departed.isEmpty && dying.isEmpty && pendingPrunes.isEmpty
                    && observed.values.allSatisfy { $0.registrations.isEmpty && $0.applied.isEmpty }
                guard empty else { return false }
                closed = true
            }
            return true
        }
    }

    /// Under the lock, where a registration or a proxy's key path may have ended: while draining, the janitor checks
    /// whether the registry holds nothing any more (once per burst).
    private func noteEndLocked() {
        guard draining, !closed, !drainCheckScheduled else { return }
        drainCheckScheduled = true
        janitor.async {
            self.lock.withLock { self.drainCheckScheduled = false }
            KVOGuard.hooks.drained()
        }
    }
}
