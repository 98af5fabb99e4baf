import CrashShieldRuntime.Internal

/// Repeating timers no longer keep their target alive, and timers whose target lacks the selector are stopped.
///
/// Design: `NSTimer`'s `initWithFireDate:interval:target:selector:userInfo:repeats:` is hooked; on GNUstep every
/// target/selector form ends there (`scheduledTimerWithTimeInterval:...` -> `timerWithTimeInterval:...` -> the
/// initializer, once each; the run loop's own housekeeping timer is made through it too, the first time a thread's
/// run loop is created). For a repeating timer the guard passes a weak proxy (`CSRTimerProxy`, runtime layer) as the
/// target: the timer retains the proxy, the proxy forwards each fire to the real target with the original selector and
/// the timer as argument (exactly what `-[NSTimer fire]` sends) and does not retain it; the target is watched through
/// `DeallocWatcher` and the proxy drops it when it is deallocated. At the next fire the proxy invalidates the timer and
/// one report names the class that leaked a timer.
///
/// | case | GNUstep 1.28 unprotected | guarded |
/// | --- | --- | --- |
/// | repeating timer not invalidated before its owner goes | the timer keeps its target alive forever (a leak) | target freed when its owner lets it go; timer invalidated at its next fire, reported |
/// | owner that invalidates its timer in its own `-dealloc` | never deallocated (the timer retains it) | works as intended, never reported |
/// | target without the selector | NSTimer logs "ignoring exception" at every fire (Apple: crash) | not fired (invalidated at once), reported |
///
/// Nothing in the timer area crashes unprotected on GNUstep (a target over-released by the app crashes with or without
/// the guard), so these cases are in-process tests only, not crash-matrix rows. One-shot timers keep their target
/// until they fire, as before: that is not a leak, and "fire and forget" targets owned only by their timer keep
/// working. Class objects as targets and invocation timers are left alone.
final class TimerGuard: CrashGuard {
    static let category = GuardCategory.timer

    init() {}

    static let registry = TimerProxyRegistry.shared

    func install(in context: GuardContext) throws {
        guard let timer = ObjCClass(named: "NSTimer") else { return }
        TimerProxyRegistry.installHandler()
        try context.install(Self.initPoint, on: [timer])
    }

    func uninstall() {
        // Timers made while the guard was on keep their proxies (NSTimer has no way to change a target): the proxies
        // and the registry keep working without hooks, so those targets stay weak and safe.
    }

    typealias InitIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, Double, CSRObject?, CSRSelector?, CSRObject?, UInt8) -> CSRObject?

    static let initPoint: HookPoint<InitIMP> = HookPoint("initWithFireDate:interval:target:selector:userInfo:repeats:") { receiver, cmd, date, interval, target, selector, userInfo, repeats in
        guard let original = initPoint.original(for: receiver) else { return nil }
        guard let receiver, let target, let selector, Session.isGuarding(.timer, receiver), !csr_timer_is_proxy(target),
              !csr_object_is_class(target) else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        if !csr_object_responds(target, selector) {
            let targetClass = GuardFailure.className(target)
            let name = String(cString: csr_sel_getName(selector))
            let recover = initPoint.isActive(for: receiver) && Interception.report(
                .timer, className: targetClass, selector: name, exception: ExceptionName.invalidArgument,
                reason: { "-[\(targetClass) \(name)]: unrecognized selector sent to instance \(GuardFailure.address(target))" },
                hint: "implement -\(name) in \(targetClass) or schedule the timer with the right selector",
                details: ["timerSelector": "initWithFireDate:interval:target:selector:userInfo:repeats:"],
                implementation: initPoint.replacementAddress)
            let timer = original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
            // Stopped: a real, invalidated timer (it never fires; scheduling it is harmless; target and userInfo released).
            if recover, let timer { csr_timer_invalidate(timer) }
            return timer
        }
        guard repeats != 0, let proxy = csr_timer_proxy_new(target, selector) else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        defer { csr_object_release_owned(proxy) }   // the timer retains it
        guard registry.register(proxy: proxy, target: target) else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        return original(receiver, cmd, date, interval, proxy, csr_timer_proxy_selector(), userInfo, repeats)
    }

    /// A repeating timer fired after its target was deallocated: the proxy invalidated it.
    static func targetGone(className: String, selector: String) {
        _ = Interception.report(.timer, className: className, selector: selector, exception: targetGoneException,
                                reason: { "A repeating timer (selector \(selector)) outlived its target, an instance of \(className) that was deallocated; without CrashShield the timer would have kept it alive forever (a leak). The timer was invalidated." },
                                hint: "invalidate the timer when its owner is done with it (e.g. when the screen goes away, or in the owner's -dealloc now that the timer does not retain it)",
                                implementation: nil)
    }

    static let targetGoneException = "TimerTargetDeallocated"}

/// Which proxy stands for which target. Proxies are kept by address: a proxy removes itself in its `-dealloc`
/// (after its timer released it), a dying target clears its proxies (under this lock, so no proxy can finish its
/// `-dealloc` meanwhile). One lock; the only calls made under it are the proxies' one-word stores.
final class TimerProxyRegistry: DeallocObserver, @unchecked Sendable {
    static let shared = TimerProxyRegistry()

    private let lock = Lock()
    /// Target address -> its proxies.
    private var proxies: [UInt: Set<UInt>] = [:]
    /// Proxy address -> its target (absent once the target died).
    private var targets: [UInt: UInt] = [:]
    private let watcher = DeallocWatcher.shared

    /// Proxies whose target is alive (for tests and diagnostics).
    var liveProxyCount: Int { lock.withLock { targets.count } }

    static func installHandler() {
        csr_timer_set_handler { event, proxy, _, targetClass, selector in
            guard let proxy else { return }
            switch event {
            case CSRTimerEventTargetGone:
                TimerGuard.targetGone(className: targetClass.map { String(cString: $0) } ?? "?",
                                      selector: selector.map { String(cString: csr_sel_getName($0)) } ?? "?")
            default:
                TimerProxyRegistry.shared.proxyDeallocating(proxy)
            }
        }
    }

    /// false when the target's class cannot be watched (then the timer keeps its target, as without the guard).
    func register(proxy: CSRObject, target: CSRObject) -> Bool {
        do { try watcher.cover(objectOf: target) } catch { return false }
        let proxyAddress = UInt(bitPattern: proxy), targetAddress = UInt(bitPattern: target)
        lock.withLock {
            if proxies[targetAddress] == nil { watcher.watch(targetAddress, by: self) }
            proxies[targetAddress, default: []].insert(proxyAddress)
            targets[proxyAddress] = targetAddress
        }
        return true
    }

    func proxyDeallocating(_ proxy: CSRObject) {
        let proxyAddress = UInt(bitPattern: proxy)
        lock.withLock {
            guard let target = targets.removeValue(forKey: proxyAddress) else { return }
            proxies[target]?.remove(proxyAddress)
            if proxies[target]?.isEmpty == true {
                proxies[target] = nil
                watcher.unwatch(target, by: self)
            }
        }
    }

    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        lock.withLock {
            for proxy in proxies.removeValue(forKey: address) ?? [] {
                targets[proxy] = nil
                csr_timer_proxy_clear(UnsafeMutableRawPointer(bitPattern: proxy))
            }
        }
    }
}
