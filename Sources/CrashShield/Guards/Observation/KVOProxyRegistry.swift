import CrashShieldRuntime

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
/// Locking: one lock for every table; nothing calls out (to observers, to Foundation's KVO, to the report pipeline)
/// while holding it.
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
        let unproxy: (proxy: CSRObject, keyPath: UInt)?? = lock.withLock {
            guard let entry = observed[objectAddress],
                  let index = entry.registrations.lastIndex(where: {
                      $0.observer == observerAddress && $0.keyPath == keyPath && (context == nil || $0.context == context)
                  }) else { return .none }
            entry.registrations.remove(at: index)
            forgetObserverIfDone(observerAddress, on: objectAddress, entry: entry)
            return .some(dropKeyPathIfUnused(keyPath, entry: entry))
        }
        guard let unproxy else { return false }
        if let (proxy, keyPathObject) = unproxy {
            let keyPath = UnsafeMutableRawPointer(bitPattern: keyPathObject)
            csr_kvo_remove(object, proxy, keyPath)
            csr_object_release_owned(keyPath)
        }
        return true
    }

    /// Under the lock: the proxy registration to undo when no registration uses `keyPath` any more.
    private func dropKeyPathIfUnused(_ keyPath: String, entry: Observed) -> (proxy: CSRObject, keyPath: UInt)? {
        guard !entry.registrations.contains(where: { $0.keyPath == keyPath }),
              let proxied = entry.proxied.removeValue(forKey: keyPath) else { return nil }
        return (entry.proxy, proxied.keyPath)
    }

    /// Under the lock.
    private func forgetObserverIfDone(_ observerAddress: UInt, on objectAddress: UInt, entry: Observed) {
        guard !entry.registrations.contains(where: { $0.observer == observerAddress }) else { return }
        observers[observerAddress]?.remove(objectAddress)
        if observers[observerAddress]?.isEmpty == true {
            observers[observerAddress] = nil
            if observed[observerAddress] == nil { watcher.unwatch(observerAddress, by: self) }
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
        for target in targets {
            // Skip a registration removed (or whose observer died) while earlier ones were being notified.
            let live = lock.withLock {
                observed[UInt(bitPattern: object)]?.registrations.contains { $0.id == target.id } ?? false
            }
            if live { forward(target, keyPath: keyPath, object: object, change: change) }
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
        csr_kvo_deliver(observer, keyPath, object, filtered, UnsafeMutableRawPointer(bitPattern: target.context))
    }

    // MARK: Deallocation

    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        // As an observer: drop its registrations everywhere, never message it again.
        var lost: [(object: CSRObject, proxy: CSRObject, keyPath: UInt)] = []
        var lostPaths: [String] = []
        var observerClass = ""
        // As an observed object: unregister the proxy, report leftover observers.
        var orphaned: Observed?
        lock.withLock {
            for objectAddress in observers.removeValue(forKey: address) ?? [] {
                guard let entry = observed[objectAddress] else { continue }
                let mine = entry.registrations.filter { $0.observer == address }
                entry.registrations.removeAll { $0.observer == address }
                for registration in mine {
                    observerClass = registration.observerClass
                    lostPaths.append(registration.keyPath)
                    if let drop = dropKeyPathIfUnused(registration.keyPath, entry: entry),
                       let observedObject = UnsafeMutableRawPointer(bitPattern: objectAddress) {
                        lost.append((observedObject, drop.proxy, drop.keyPath))
                    }
                }
            }
            orphaned = observed.removeValue(forKey: address)
            if let orphaned {
                for registration in orphaned.registrations {
                    observers[registration.observer]?.remove(address)
                    if observers[registration.observer]?.isEmpty == true {
                        observers[registration.observer] = nil
                        if observed[registration.observer] == nil { watcher.unwatch(registration.observer, by: self) }
                    }
                }
            }
        }
        for item in lost {
            let keyPath = UnsafeMutableRawPointer(bitPattern: item.keyPath)
            csr_kvo_remove(item.object, item.proxy, keyPath)
            csr_object_release_owned(keyPath)
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
