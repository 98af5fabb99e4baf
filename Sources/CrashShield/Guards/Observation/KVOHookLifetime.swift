import CrashShieldRuntime.Internal

/// When the KVO guard's hooks are installed: while the guard is on, and after it is switched off (the kill switch,
/// `stop()`) for as long as registrations made through the proxies are left (draining).
///
/// Those registrations are not moved when the guard goes off (handing them back to Foundation one by one opened a
/// window where a change made on another thread reached an observer twice: directly and through the proxy). They
/// stay on their proxies until their natural end, and their removals must still reach the registry: the removal
/// hooks stay. While draining, the hooks pass every call the registry does not know straight to Foundation (one
/// lookup under the registry's lock), registrations go to Foundation, and nothing is reported (the failure path sees
/// the guard off). Deliveries through the proxies and the dealloc watching (`DeallocWatcher`, which is never
/// reverted) go on as before. Once the registry holds nothing (`KVOProxyRegistry.closeIfDrained`), the hooks are
/// reverted: at the switch-off itself, or later on the registry's janitor when the last registration ends.
///
/// Lock order: this lock -> the registry's lock -> the hook engine's lock (the registry never calls in here with
/// its lock held).
final class KVOHookLifetime: @unchecked Sendable {
    private let lock = Lock()
    private var hooks: [Hook] = []
    private var guardOn = false

    /// Whether the hooks are installed.
    var installed: Bool { lock.withLock { !hooks.isEmpty } }

    /// The guard is being switched on: the registry takes registrations again, and `points` are installed on `cls`
    /// (again, or still installed from a draining period: the engine returns the same hooks). On a throw the caller
    /// calls `switchOff`.
    func switchOn(_ points: [AnyHookPoint], on cls: ObjCClass) throws {
        try lock.withLock {
            guardOn = true
            KVOGuard.registry.open()
            for point in points {
                let hook = try HookEngine.shared.install(point, on: cls)
                if !hooks.contains(where: { $0 === hook }) { hooks.append(hook) }
            }
        }
    }

    /// The guard is switched off: the hooks are reverted now if no registration is left on a proxy; otherwise they
    /// drain, and `drained` reverts them later.
    func switchOff() {
        lock.withLock {
            guardOn = false
            KVOGuard.registry.beginDraining()
            revertIfDrainedLocked()
        }
    }

    /// The registry may hold nothing any more (called on its janitor, no lock held).
    func drained() {
        lock.withLock {
            guard !guardOn else { return }
            HookEngine.shared.batch { revertIfDrainedLocked() }
        }
    }

    /// Under the lock, guard off.
    private func revertIfDrainedLocked() {
        guard !hooks.isEmpty, KVOGuard.registry.closeIfDrained() else { return }
        for hook in hooks.reversed() { hook.revert() }
        hooks.removeAll()
    }
}
