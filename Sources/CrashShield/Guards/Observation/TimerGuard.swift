import CrashShieldRuntime.Internal

/// Stops timers whose target lacks the selector, and timers whose target was freed behind their back; a timer keeps
/// its target alive exactly as Foundation's does.
///
/// Design: `initWithFireDate:interval:target:selector:userInfo:repeats:` is hooked where a sampled timer's class has it
/// (Apple: the CoreFoundation-backed timer class; GNUstep: NSTimer); on GNUstep every
/// target/selector form ends there (`scheduledTimerWithTimeInterval:...` -> `timerWithTimeInterval:...` -> the
/// initializer, once each). A timer retains its target until it is invalidated (GNUstep's `-invalidate`, Apple's
/// documentation): apps rely on it, a worker scheduled on itself and released, or the weak proxy (YYWeakProxy) put
/// between a timer and its owner, which only the timer retains. So the guard never holds a target more weakly than
/// Foundation does. For a target of the app's own classes it passes a proxy (`CSRTimerProxy`, runtime layer) as the
/// target: the timer retains the proxy, the proxy retains the target and forwards each fire to it with the original
/// selector and the timer as argument (exactly what `-[NSTimer fire]` sends), and releases it when the timer
/// releases the proxy, at its invalidation (when Foundation releases the target). The target is watched through
/// `DeallocWatcher`: while a proxy holds it, its `-dealloc` can only run because it was released once more than it
/// was retained (or sent `-dealloc` directly). Then the proxy drops it without touching it again, one report names
/// the class, and the timer invalidates itself at its next fire.
///
/// | case | GNUstep 1.28 unprotected | guarded |
/// | --- | --- | --- |
/// | target only the timer keeps alive (scheduled and released; a weak proxy) | fires until invalidated, then released | the same |
/// | target over-released while its timer holds it | the next fire messages freed memory (SIGSEGV) | not fired, reported at its deallocation; the timer invalidates itself at its next fire |
/// | target without the selector | NSTimer logs "ignoring exception" at every fire (Apple: crash) | not fired (invalidated at once), reported |
///
/// Left to Foundation: targets that take part in forwarding (NSProxy subclasses, classes that override
/// `forwardingTargetForSelector:`, `methodSignatureForSelector:`, `forwardInvocation:` or resolve methods: they may
/// answer a selector they do not implement), targets of system classes (Foundation's own timers, never over-released
/// by the app; no `-dealloc` hook on them), class objects, deny-listed classes, invocation and block timers. An
/// over-release the guard cannot see stays a crash: after `stop()` (the `-dealloc` hooks are gone) or an over-release
/// racing a fire on another thread (the fire already holds the target, as NSTimer's own `-fire` does).
enum TimerGuard {
    static let registry = TimerProxyRegistry.shared

    static func install(in context: GuardContext) throws {
        // Where timers are really initialized: the class of a sampled timer, not NSTimer's own method (on Apple,
        // timers are a CoreFoundation-backed subclass whose initializer never reaches NSTimer's; ClassSamples).
        guard let family = ClassFamily("NSTimer") else { return }
        Self.forwarders.clear()
        TimerProxyRegistry.installHandler()
        try context.install(Self.initPoint, onOwnersIn: family)
    }

    static func uninstall() {
        // Timers made while the guard was on keep their proxies (NSTimer has no way to change a target): a proxy
        // holds its target as the timer would and releases it with the timer; without the -dealloc hooks an
        // over-release is no longer seen (as without CrashShield).
        Self.forwarders.clear()
    }

    typealias InitIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, Double, CSRObject?, CSRSelector?, CSRObject?, UInt8) ->
        CSRObject?

    static let initPoint: HookPoint<InitIMP> = HookPoint("initWithFireDate:interval:target:selector:userInfo:repeats:")
    { receiver, cmd, date, interval, target, selector, userInfo, repeats in
        guard let original = initPoint.original(for: receiver) else { return nil }
        guard let receiver, let target, let selector, Session.isGuarding(.timer, receiver),
            Session.isGuarding(.timer, target),
            !csr_timer_is_proxy(target), !csr_object_is_class(target), let targetClass = ObjCClass(of: target),
            !forwarders.decide(
                targetClass, { Forwarding.isProxy(targetClass) || Forwarding.takesPartInForwarding(targetClass) })
        else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        if !csr_object_responds(target, selector) {
            let targetClass = GuardFailure.className(target)
            let name = String(cString: csr_sel_getName(selector))
            let violation = Violation.unansweredTimerSelector(
                targetClass: targetClass, selector: name, target: GuardFailure.address(target))
            let recover =
                initPoint.isActive(for: receiver)
                && IncidentPath.handle(
                    Incident(
                        .timer, subject: Incident.Subject(className: targetClass), selector: name, violation,
                        details: ["timerSelector": "initWithFireDate:interval:target:selector:userInfo:repeats:"],
                        implementation: initPoint.replacementAddress)) == .recover
            let timer = original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
            // Stopped: a real, invalidated timer (it never fires; scheduling it is harmless; target and userInfo released).
            if recover, let timer { csr_timer_invalidate(timer) }
            return timer
        }
        guard Session.current.load(ordering: .acquiring)?.isAppClass(targetClass) == true,
            let proxy = csr_timer_proxy_new(target, selector)
        else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        defer { csr_object_release_owned(proxy) }  // the timer retains it
        guard registry.register(proxy: proxy, target: target, selector: selector) else {
            return original(receiver, cmd, date, interval, target, selector, userInfo, repeats)
        }
        return original(receiver, cmd, date, interval, proxy, csr_timer_proxy_selector(), userInfo, repeats)
    }

    /// Per class: takes part in forwarding (left to Foundation). Whether a class is the app's (its targets are
    /// watched) is the session's answer (`Session.isAppClass`).
    private static let forwarders = ClassDecisions()

    /// A target was deallocated while timers held it (it was over-released): their proxies dropped it before it was
    /// freed, so nothing is sent to it; each timer invalidates itself at its next fire. Nothing failed: reported as
    /// recovered, in every mode.
    static func targetFreed(className: String, selectors: [String]) {
        _ = IncidentPath.handle(
            Incident(
                .timer, subject: Incident.Subject(className: className), selector: selectors.first ?? "?",
                .freedTimerTarget(className: className, selectors: selectors),
                implementation: DeallocWatcher.deallocPoint.replacementAddress,
                unrecovered: .alreadyHandled))
    }
}

extension GuardDeclaration {
    /// State: `TimerGuard.forwarders` (per-class decisions, emptied by `install` and `uninstall`); the proxies of timers
    /// made while it was on stay in `TimerProxyRegistry.shared` until their timers release them.
    static let timer = GuardDeclaration(.timer, install: TimerGuard.install, uninstall: TimerGuard.uninstall)
}

/// Which proxy holds which target. Proxies are kept by address: a proxy leaves in its `-dealloc`, before it releases
/// its target; a target deallocated while proxies still hold it clears them (under this lock, so no proxy can finish
/// its `-dealloc` meanwhile) and is reported once its own `-dealloc` has run. One lock; the only calls made under it
/// are the proxies' one-word stores.
final class TimerProxyRegistry: DeallocObserver, @unchecked Sendable {
    static let shared = TimerProxyRegistry()

    private let lock = Lock()
    /// Target address -> the proxies that hold it.
    private var proxies: [UInt: Set<UInt>] = [:]
    /// Proxy address -> its target and the timer's selector.
    private var targets: [UInt: (target: UInt, selector: String)] = [:]
    /// Over-released targets whose `-dealloc` is running: their class and the selectors of the timers that held them.
    private var freed: [UInt: (className: String, selectors: [String])] = [:]
    private let watcher = DeallocWatcher.shared

    /// Proxies holding a live target (for tests and diagnostics).
    var liveProxyCount: Int { lock.withLock { targets.count } }

    static func installHandler() {
        csr_timer_set_handler { event, proxy in
            guard let proxy, event == CSRTimerEventProxyDeallocating else { return }
            TimerProxyRegistry.shared.proxyDeallocating(proxy)
        }
    }

    /// false when the target's class cannot be watched (then the timer gets its target, as without the guard).
    func register(proxy: CSRObject, target: CSRObject, selector: CSRSelector) -> Bool {
        do { try watcher.cover(objectOf: target) } catch { return false }
        let proxyAddress = UInt(bitPattern: proxy), targetAddress = UInt(bitPattern: target)
        let name = String(cString: csr_sel_getName(selector))
        lock.withLock {
            if proxies[targetAddress] == nil { watcher.watch(targetAddress, by: self) }
            proxies[targetAddress, default: []].insert(proxyAddress)
            targets[proxyAddress] = (targetAddress, name)
        }
        return true
    }

    /// The proxy is being deallocated (its timer released it) and releases its target next: from now on that
    /// release is the timer's own.
    func proxyDeallocating(_ proxy: CSRObject) {
        let proxyAddress = UInt(bitPattern: proxy)
        lock.withLock {
            guard let held = targets.removeValue(forKey: proxyAddress) else { return }
            proxies[held.target]?.remove(proxyAddress)
            if proxies[held.target]?.isEmpty == true {
                proxies[held.target] = nil
                watcher.unwatch(held.target, by: self)
            }
        }
    }

    /// A target is being deallocated while proxies hold it: it was over-released. Its proxies drop it.
    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        let className = GuardFailure.className(object)
        lock.withLock {
            var selectors: [String] = []
            for proxy in proxies.removeValue(forKey: address) ?? [] {
                if let held = targets.removeValue(forKey: proxy) { selectors.append(held.selector) }
                csr_timer_proxy_clear(UnsafeMutableRawPointer(bitPattern: proxy))
            }
            if !selectors.isEmpty { freed[address] = (className, selectors.sorted()) }
        }
    }

    func objectDidDeallocate(_ address: UInt) {
        guard let left = lock.withLock({ freed.removeValue(forKey: address) }) else { return }
        TimerGuard.targetFreed(className: left.className, selectors: left.selectors)
    }
}
