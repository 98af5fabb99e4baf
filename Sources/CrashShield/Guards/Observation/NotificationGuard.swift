import Atomics
import CrashShieldRuntime.Internal

/// Stops notification observers that die registered or cannot receive what they registered for.
///
/// Design: `NSNotificationCenter`'s `addObserver:selector:name:object:` and both removals are hooked; Foundation
/// keeps every registration as usual (nothing is proxied), the guard only keeps a ledger of them
/// (`NotificationObserverRegistry`) and watches each observer (and center) through `DeallocWatcher`.
///
/// | case | GNUstep 1.28 unprotected | Apple (iOS 9+, macOS 10.11+) unprotected | guarded |
/// | --- | --- | --- | --- |
/// | observer deallocated without removing itself, then a post | SIGSEGV (message to freed memory) | fine: never messaged | GNUstep: removed at its dealloc, reported once; Apple: untouched, no -dealloc hook |
/// | observer that removes itself in its own `-dealloc` | fine | fine | fine, never reported |
/// | selector the observer does not implement | NSInvalidArgumentException at add time | unrecognized selector at each post | GNUstep: not registered, reported; Apple: registered as usual, the post's failure is the unrecognized-selector guard's |
/// | nil observer / NULL selector | NSInvalidArgumentException at add time | passed to Foundation unchanged | GNUstep: not registered, reported |
///
/// Where the center messages dead observers (GNUstep), the dealloc watcher runs *before* the observer's own
/// `-dealloc`. At that moment the guard removes the observer from its centers (so no post, from any thread, can reach
/// it while it is being torn down) and keeps the registrations aside; the observer's own `-dealloc` may still remove
/// itself (that is recorded, not forwarded twice). Only after its `-dealloc` chain returned does the guard report what
/// was left: correct code is never reported. Where the center forgets dead observers itself
/// (`csr_notification_center_forgets_deallocated_observers`: every Apple OS the package supports), the guard keeps no
/// ledger, watches no `-dealloc` and reports nothing for them: there is no crash to stop (Docs/AppleRuntime.md).
enum NotificationGuard {
    static let registry = NotificationObserverRegistry.shared

    static func install(in context: GuardContext) throws {
        guard let center = ObjCClass(named: "NSNotificationCenter") else { return }
        let watches = !csr_notification_center_forgets_deallocated_observers()
        Self.watchesObserversFlag.store(watches, ordering: .releasing)
        if Self.checksRegistrations || watches { try context.install(Self.addObserver, on: [center]) }
        if watches {
            try context.install(Self.removeObserver, on: [center])
            try context.install(Self.removeObserverNameObject, on: [center])
        }
    }

    static func uninstall() {
        // Foundation kept every registration: there is nothing to hand back, only the ledger to drop.
        Self.registry.forgetAll()
    }

    /// Whether observers are recorded and watched for deallocation: only where the center would message a dead one.
    /// Written under CrashShield's lock at install, read by the hooks on any thread.
    static var watchesObservers: Bool { watchesObserversFlag.load(ordering: .acquiring) }
    private static let watchesObserversFlag = ManagedAtomic<Bool>(true)

    /// Whether `addObserver:selector:name:object:` raises at add time for a bad registration: GNUstep does; Apple's
    /// center accepts it and fails at the post (an unrecognized selector, the unrecognized-selector guard's case).
    static var checksRegistrations: Bool { !FoundationRules.isApple }

    // MARK: Hooks

    typealias AddIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void
    typealias RemoveIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias RemoveNameObjectIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, CSRObject?) -> Void

    static let addObserver: HookPoint<AddIMP> = HookPoint("addObserver:selector:name:object:") {
        receiver, cmd, observer, selector, name, object in
        guard let original = addObserver.original(for: receiver) else { return }
        guard let receiver, Session.isGuarding(.notification, receiver), !csr_notification_is_trampoline(observer)
        else {
            return original(receiver, cmd, observer, selector, name, object)
        }
        if let violation = addProblem(center: receiver, cmd: cmd, observer: observer, selector: selector) {
            if IncidentPath.handle(
                Incident(
                    .notification, receiver: receiver, selector: cmd, violation,
                    point: addObserver)) == .recover
            {
                return
            }
            return original(receiver, cmd, observer, selector, name, object)
        }
        original(receiver, cmd, observer, selector, name, object)
        guard watchesObservers, let observer, let selector else { return }
        registry.added(
            center: receiver, observer: observer, selector: String(cString: csr_sel_getName(selector)),
            name: name.flatMap(KVOGuard.string), object: object)
    }

    static let removeObserver: HookPoint<RemoveIMP> = HookPoint("removeObserver:") { receiver, cmd, observer in
        guard let original = removeObserver.original(for: receiver) else { return }
        original(receiver, cmd, observer)
        if let receiver, let observer { registry.removed(center: receiver, observer: observer, name: nil, object: nil) }
    }

    static let removeObserverNameObject: HookPoint<RemoveNameObjectIMP> = HookPoint("removeObserver:name:object:") {
        receiver, cmd, observer, name, object in
        guard let original = removeObserverNameObject.original(for: receiver) else { return }
        original(receiver, cmd, observer, name, object)
        if let receiver {
            registry.removed(center: receiver, observer: observer, name: name.flatMap(KVOGuard.string), object: object)
        }
    }

    /// Removes `observer` from `center` without the guard's bookkeeping (the original implementation, or a plain
    /// message when the hook is gone).
    static func silentlyRemove(_ observer: CSRObject, from center: CSRObject) {
        if let original = removeObserverNameObject.original(for: center) {
            original(center, removeObserverNameObject.selector.pointer, observer, nil, nil)
        } else {
            csr_notification_remove(center, observer, nil, nil)
        }
    }

    // MARK: Preconditions

    /// What `addObserver:selector:name:object:` would raise at add time: GNUstep checks; Apple accepts every
    /// registration (a missing selector fails at each post instead, as an unrecognized selector).
    static func addProblem(
        center: CSRObject, cmd: CSRSelector?, observer: CSRObject?, selector: CSRSelector?
    ) -> Violation? {
        guard checksRegistrations else { return nil }
        guard let observer else { return .nilNotificationObserver }
        guard let selector else { return .nullNotificationSelector }
        guard !csr_object_responds(observer, selector) else { return nil }
        return .unansweredNotificationSelector(
            center: GuardFailure.className(center),
            method: cmd.map { String(cString: csr_sel_getName($0)) } ?? "addObserver:selector:name:object:",
            observer: describe(observer), observerClass: GuardFailure.className(observer),
            selector: String(cString: csr_sel_getName(selector)))
    }

    // MARK: Incidents that are not a call

    /// An observer's `-dealloc` returned while it was still registered: it was removed before it was freed.
    static func observerDied(className: String, selector: String, names: [String]) {
        _ = IncidentPath.handle(
            Incident(
                .notification, subject: Incident.Subject(className: className), selector: selector,
                .deadNotificationObserver(className: className, selector: selector, names: names),
                implementation: DeallocWatcher.deallocPoint.replacementAddress,
                unrecovered: .alreadyHandled))
    }

    // MARK: Helpers

    static func describe(_ object: CSRObject) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        csr_object_describe(object, &buffer, buffer.count)
        return String(cString: buffer)
    }
}

extension GuardDeclaration {
    /// State: `NotificationGuard.registry` (the ledger of registrations, dropped by `uninstall`) and
    /// `watchesObservers` (set by `install`).
    static let notification = GuardDeclaration(
        .notification, install: NotificationGuard.install, uninstall: NotificationGuard.uninstall)
}

/// The notification guard's ledger: which observers are registered with which center, for which name and object.
/// Objects are kept by address and never retained; observers and centers are watched through `DeallocWatcher`.
///
/// Locking: one lock for every table; nothing calls out (to Foundation, to the report pipeline) while holding it.
final class NotificationObserverRegistry: DeallocObserver, @unchecked Sendable {
    static let shared = NotificationObserverRegistry()

    struct Registration {
        let center: UInt
        let name: String?
        let object: UInt
        let selector: String
    }

    struct Observer {
        let className: String
        var registrations: [Registration]
    }

    private let lock = Lock()
    /// Observer address -> its registrations.
    private var live: [UInt: Observer] = [:]
    /// Observers whose `-dealloc` is running: what was registered when it began (the observer may still remove it).
    private var dying: [UInt: Observer] = [:]
    /// Center address -> how many registrations it has (centers are watched too).
    private var centers: [UInt: Int] = [:]
    private let watcher = DeallocWatcher.shared

    /// Observers registered now (for tests and diagnostics).
    var observerCount: Int { lock.withLock { live.count } }

    func added(center: CSRObject, observer: CSRObject, selector: String, name: String?, object: CSRObject?) {
        do {
            try watcher.cover(objectOf: observer)
            try watcher.cover(objectOf: center)
        } catch {
            return  // the classes cannot be watched: Foundation alone keeps the registration
        }
        let observerAddress = UInt(bitPattern: observer), centerAddress = UInt(bitPattern: center)
        let className = GuardFailure.className(observer)
        let registration = Registration(
            center: centerAddress, name: name, object: UInt(bitPattern: object),
            selector: selector)
        lock.withLock {
            if live[observerAddress] == nil {
                live[observerAddress] = Observer(className: className, registrations: [])
                watcher.watch(observerAddress, by: self)
            }
            live[observerAddress]!.registrations.append(registration)
            if centers[centerAddress] == nil { watcher.watch(centerAddress, by: self) }
            centers[centerAddress, default: 0] += 1
        }
    }

    /// Mirrors `removeObserver:name:object:` (nil name or object: any; nil observer: every observer).
    func removed(center: CSRObject, observer: CSRObject?, name: String?, object: CSRObject?) {
        let centerAddress = UInt(bitPattern: center), objectAddress = UInt(bitPattern: object)
        if observer == nil && name == nil && object == nil { return }  // Foundation does nothing either
        func matches(_ registration: Registration) -> Bool {
            registration.center == centerAddress
                && (name == nil || registration.name == name)
                && (objectAddress == 0 || registration.object == objectAddress)
        }
        lock.withLock {
            let addresses = observer.map { [UInt(bitPattern: $0)] } ?? Array(live.keys) + Array(dying.keys)
            for address in addresses {
                if var entry = live[address] {
                    let before = entry.registrations.count
                    entry.registrations.removeAll(where: matches)
                    release(center: centerAddress, count: before - entry.registrations.count)
                    if entry.registrations.isEmpty {
                        live[address] = nil
                        watcher.unwatch(address, by: self)
                    } else {
                        live[address] = entry
                    }
                }
                if var entry = dying[address] {
                    entry.registrations.removeAll(where: matches)
                    dying[address] = entry
                }
            }
        }
    }

    /// Under the lock.
    private func release(center: UInt, count: Int) {
        guard count > 0, let current = centers[center] else { return }
        if current <= count {
            centers[center] = nil
            watcher.unwatch(center, by: self)
        } else {
            centers[center] = current - count
        }
    }

    func forgetAll() {
        lock.withLock {
            for address in live.keys { watcher.unwatch(address, by: self) }
            for address in centers.keys { watcher.unwatch(address, by: self) }
            live.removeAll()
            dying.removeAll()
            centers.removeAll()
        }
    }

    // MARK: Deallocation

    func objectWillDeallocate(_ object: CSRObject) {
        let address = UInt(bitPattern: object)
        let leaving: Observer? = lock.withLock {
            // As a center: its registrations are gone with it.
            if centers.removeValue(forKey: address) != nil {
                for (observer, var entry) in live {
                    entry.registrations.removeAll { $0.center == address }
                    if entry.registrations.isEmpty {
                        live[observer] = nil
                        if observer != address { watcher.unwatch(observer, by: self) }
                    } else {
                        live[observer] = entry
                    }
                }
            }
            // As an observer: keep its registrations aside until its own -dealloc has run.
            guard let entry = live.removeValue(forKey: address) else { return nil }
            for registration in entry.registrations { release(center: registration.center, count: 1) }
            dying[address] = entry
            return entry
        }
        guard let leaving else { return }
        // Before the observer is torn down: no post may reach it from now on.
        var seen = Set<UInt>()
        for registration in leaving.registrations where seen.insert(registration.center).inserted {
            guard let center = UnsafeMutableRawPointer(bitPattern: registration.center) else { continue }
            withAutoreleasePool { NotificationGuard.silentlyRemove(object, from: center) }
        }
    }

    func objectDidDeallocate(_ address: UInt) {
        guard let left = lock.withLock({ dying.removeValue(forKey: address) }), let first = left.registrations.first
        else {
            return  // removed itself in its own -dealloc (or was never an observer): nothing to say
        }
        let names = left.registrations.map { $0.name ?? "(any name)" }
        NotificationGuard.observerDied(className: left.className, selector: first.selector, names: names)
    }
}
