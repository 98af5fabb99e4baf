import CrashShieldRuntime.Internal

/// Per-object access: who may call Foundation's KVO on an observed object, and the end of an entry's proxy
/// (pruned key paths, disposal).
extension KVOProxyRegistry {
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

    enum Access { case held, without, gone }

    /// Under the lock: pins `address` for this thread and takes its access when it can. `.gone`: the entry is retired
    /// or its object is being deallocated (nothing pinned).
    func acquireLocked(_ address: UInt, _ entry: Observed, thread: UInt64, wait: Bool) -> Access {
        let deadline = Deadline(after: Self.waitLimit)
        var waited = false
        while true {
            if let death = dying[address], death.thread != thread { return .gone }
            let free = entry.owner == nil || entry.owner == thread
            // A retired entry stays in the table until its proxy is off: calls on its object wait for that.
            if !entry.isLive && free { return .gone }
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
    func release(_ object: CSRObject, _ entry: Observed, _ access: Access, thread: UInt64) {
        let address = UInt(bitPattern: object)
        while true {
            let next: ReleaseStep = lock.withLock {
                switch access {
                case .gone: return .done(nil)
                case .without:
                    // Retired while its access holder was done already: nobody else disposes of it.
                    if !entry.isLive, entry.owner == nil, let next = endRetiredLocked(address, entry) { return next }
                    noteEndLocked()
                    return .done(unpinLocked(address, thread: thread))
                case .held: break
                }
                if entry.depth == 1 {
                    if !entry.isLive {
                        if let next = endRetiredLocked(address, entry) { return next }
                    } else if dying[address] == nil, let stale = entry.staleKeyPath,
                        let applied = entry.applied.removeValue(forKey: stale)
                    {
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

    /// Under the lock, for a retired entry whose access is being given up: `.dispose` once (retired -> disposed),
    /// then it leaves the table.
    private func endRetiredLocked(_ address: UInt, _ entry: Observed) -> ReleaseStep? {
        if entry.beginDisposal() { return .dispose }
        if observed[address] === entry { observed[address] = nil }
        return nil
    }

    private enum ReleaseStep { case done(UInt?), prune(UInt), dispose }

    /// Takes the proxy of a retired entry off every key path and releases it. Called once per entry, by the thread
    /// that retired it or holds its access (the object is its own dying object, or pinned). Without `object` (it is
    /// gone, and Foundation forgot the proxy's registrations with it) only releases what the entry holds.
    func dispose(_ object: CSRObject?, _ entry: Observed) {
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
}
