import CrashShieldRuntime.Internal

/// The janitor: a thread of its own, holding no lock, for the registry's deferred work: taking a proxy off key paths
/// nobody observes any more when the thread that noticed could not (`schedulePruneLocked`), and, while the guard is
/// off, checking whether the registry holds nothing any more (`noteEndLocked`, `KVOHookLifetime.drained`).
extension KVOProxyRegistry {
    // MARK: Pruning

    /// Under the lock.
    func schedulePruneLocked(_ address: UInt) {
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

    // MARK: Drain checks

    /// Under the lock, where a registration or a proxy's key path may have ended: while draining, the janitor checks
    /// whether the registry holds nothing any more (once per burst).
    func noteEndLocked() {
        guard mode == .draining, !drainCheckScheduled else { return }
        drainCheckScheduled = true
        janitor.async {
            self.lock.withLock { self.drainCheckScheduled = false }
            KVOGuard.hooks.drained()
        }
    }
}
