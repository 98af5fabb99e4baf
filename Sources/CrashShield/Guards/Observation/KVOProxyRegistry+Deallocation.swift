import CrashShieldRuntime.Internal

/// The end of observers and observed objects (`DeallocObserver`, end marks): their registrations are dropped, what
/// Foundation would have raised for is reported.
extension KVOProxyRegistry {
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
            let held =
                hasForeignPins(address, except: thread)
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
                guard entry.staleKeyPath != nil, entry.watchesDeallocation else { continue }
                // Inside a delivery (or a Foundation call) this thread may hold GNUstep's lock of another object,
                // which a call on this one could wait for, while the thread holding this one waits for it: the
                // janitor takes the proxy off later. (Without CrashShield an observer's dealloc makes no KVO call.)
                if pins.keys.contains(where: { $0.thread == thread }) {
                    schedulePruneLocked(objectAddress)
                    continue
                }
                switch acquireLocked(objectAddress, entry, thread: thread, wait: false) {
                case .held: prunes.append((objectAddress, entry, .held))
                case .without: _ = unpinLocked(objectAddress, thread: thread)  // its access holder prunes
                case .gone: break
                }
            }
            // As an observed object: retire its entry (the proxy comes off), forget its observers' registrations.
            // Reported only when Foundation would have raised: a watched object (it may also be watched as an
            // observer) where Foundation raises for it (not GNUstep, which drops a dead object's observers).
            if let (entry, registrations) = retireObservedLocked(address) {
                left.observedClass = entry.className
                left.observedBy = entry.watchesDeallocation ? registrations : []
                // Another thread holding the access disposes of it when it gives the access up.
                if entry.owner == nil || entry.owner == thread, entry.beginDisposal() {
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
        entry.retire()
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

    /// An observed object whose `-dealloc` is not watched (see `Observed.end`) is being destroyed: its end mark
    /// ran, on the destroying thread, after the object's whole `-dealloc` chain and before its memory is freed. Its
    /// entry leaves the table with no call to Foundation (which forgets the proxy's registrations with the object)
    /// and no report (nothing would have failed). Calls on the object in flight on other threads return first (no
    /// new one starts); one that outlasts `waitLimit` keeps the proxy and key path copies it may use (leaked).
    func observedObjectEnded(_ address: UInt, token: UInt) {
        let thread = csr_thread_id()
        let ended: Observed? = lock.withLock {
            guard let entry = observed[address], entry.token == token, !entry.watchesDeallocation else { return nil }
            let quiet = awaitForeignPins(on: address, thread: thread)
            dying[address] = nil
            _ = retireObservedLocked(address)
            noteEndLocked()
            guard entry.beginDisposal() else { return nil }
            return quiet ? entry : nil
        }
        if let ended { dispose(nil, ended) }
    }

    /// The object's own `-dealloc` has run: report what it left registered (see `departed`).
    func objectDidDeallocate(_ address: UInt) {
        guard
            let left = lock.withLock({ () -> Departed? in
                defer { noteEndLocked() }
                return departed.removeValue(forKey: address)
            })
        else { return }
        if let first = left.observing.first {
            KVOGuard.observerDied(
                className: first.registration.observerClass,
                keyPaths: left.observing.map(\.registration.keyPath))
        }
        if !left.observedBy.isEmpty, csr_kvo_foundation_raises_for_dead_observed_objects() {
            KVOGuard.observedDied(address, className: left.observedClass, keyPaths: left.observedBy.map(\.keyPath))
        }
    }
}
