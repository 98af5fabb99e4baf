import CrashShieldRuntime.Internal

/// The ledger: registrations added through the proxies and removed by the app (KVOProxyRegistry.swift has the
/// tables; every method here runs the calls it makes on Foundation with the object's access, see
/// KVOProxyRegistry+Access.swift).
extension KVOProxyRegistry {
    // MARK: Add

    /// `.added`: a registration was added, or (GNUstep) the observer's registration for the key path was given the
    /// new context and options.
    enum AddOutcome { case added, notOurs }

    /// Registers `observer` through the proxy of `object`. `.notOurs`: the registry is closed (the guard is off and
    /// its hooks are being reverted); the caller registers it with Foundation directly. Throws when the classes cannot be watched.
    /// `watchObserved`: `object`'s `-dealloc` must be watched for this registration (else an end mark will do).
    func add(
        observed object: CSRObject, observer: CSRObject, keyPathObject: CSRObject, keyPath: String,
        options: UInt, context: UInt, watchObserved: Bool
    ) throws -> AddOutcome {
        if watchObserved {
            try watcher.cover(objectOf: object)
        } else if let cls = csr_object_getClass(object) {
            try DeallocWatcher.requireDealloc(cls)  // the end mark goes with objc_destructInstance, which CF never calls
        }
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
            guard mode != .closed else { return (nil, .notOurs(nil)) }
            let entry: Observed
            if let existing = observed[objectAddress] {
                entry = existing
            } else {
                guard let proxy = spareProxy else { return (nil, .notOurs(nil)) }  // created and retired meanwhile
                spareProxy = nil
                nextID += 1
                entry = Observed(proxy: proxy, className: GuardFailure.className(object), token: UInt(nextID))
                observed[objectAddress] = entry
                proxies.insert(UInt(bitPattern: proxy))
                if !watchObserved { endMark = entry.token }
            }
            if watchObserved && entry.watchDeallocation() {
                watcher.watch(objectAddress, by: self)
            }
            let access = acquireLocked(objectAddress, entry, thread: thread, wait: true)
            guard access != .gone, mode != .closed else { return (entry, .notOurs(access)) }
            // The same observer and key path again. Apple keeps every registration, whatever its context (each is
            // notified, each needs its removal). GNUstep keeps one per observer and key path: adding it again gives
            // that one the new context and options, in place (its turn in the notification order stays).
            let registration: Registration
            if !FoundationRules.isApple,
                let index = entry.registrations.firstIndex(where: {
                    $0.observer == observerAddress && $0.keyPath == keyPath
                })
            {
                registration = Registration(
                    id: entry.registrations[index].id, observer: observerAddress, keyPath: keyPath,
                    context: context, options: options, observerClass: observerClass)
                entry.registrations[index] = registration
            } else {
                nextID += 1
                registration = Registration(
                    id: nextID, observer: observerAddress, keyPath: keyPath, context: context,
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
            return (
                entry,
                .added(
                    access,
                    ProxyCall(
                        keyPath: keyPath, keyPathObject: copy, options: union,
                        replaces: previous != nil, initial: initial,
                        first: entry.applied.isEmpty, id: registration.id,
                        proxy: csr_object_retain_owned(entry.proxy)))
            )
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
        // Apple keeps both registrations of one observer: replace the proxy's instead. GNUstep replaces the options
        // of an observer registered again for the same key path (as `add` keeps one registration per observer there).
        if call.replaces && FoundationRules.isApple { csr_kvo_remove(object, call.proxy, keyPathObject) }
        csr_kvo_add(object, call.proxy, keyPathObject, call.options | (call.initial ? Options.initial : 0), nil)
        enum Outcome { case applied, spareCopy, stray }
        let outcome: Outcome = lock.withLock {
            if call.initial { entry.initialFor.removeAll { $0.id == call.id } }
            // Disposed of meanwhile (only without the access): the proxy must come off again.
            guard !entry.isDisposed else { return .stray }
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
        if var left = departed[observer],
            let index = left.observing.lastIndex(where: { $0.object == object && matches($0.registration) })
        {
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
            if observed[observerAddress] == nil, !isPinned(observerAddress) {
                watcher.unwatch(observerAddress, by: self)
            }
        }
    }
}
