import Atomics
import CrashShieldRuntime.Internal

/// Stops unbalanced and dangling key-value observation.
///
/// Design (one proxy per observed object): `NSObject`'s `addObserver:forKeyPath:options:context:` is hooked so that
/// Foundation only ever sees one observer per observed object, a proxy (`KVOProxyRegistry`). The proxy keeps every
/// registration, keyed on (observed object, observer, key path, context) with its options, and forwards each change
/// to the registrations of its key path with the values they asked for. The observers are watched through
/// `DeallocWatcher` (only their classes get a `-dealloc` hook), and so is the observed object, except where Foundation
/// forgets a dead object's observers by itself (`watchesDeallocation`).
///
/// | case | GNUstep 1.28 unprotected | guarded |
/// | --- | --- | --- |
/// | remove an observer never added / more often than added | nothing (Apple: NSRangeException) | Apple: skipped, reported; GNUstep: left to GNUstep (nothing happens), not reported |
/// | add the same observer and key path twice (same or another context) | one registration, the last context and options (Apple: both, each needs its removal) | as Foundation: GNUstep one, Apple both; not reported (no Foundation raises) |
/// | observed object deallocated with observers | nothing (GNUstep's KVO forgets them; Apple < iOS 11, and Apple for keys notified manually: exception) | cleaned up; reported where Foundation raises (Apple); Apple iOS 11+ with keys notified automatically: not watched, not reported (`watchesDeallocation`); GNUstep: watched to clean up, not reported |
/// | observer deallocated while registered | message to freed memory at the next change (crash) | removed at its dealloc, reported (nothing fails, in any mode) |
/// | observer released on one thread while a change is delivered to it on another | message to freed memory (crash) | its dealloc waits for the call (or, when its thread is itself inside a delivery, the memory is freed when the call returns); no later change reaches it |
/// | observer without `observeValueForKeyPath:...` | NSInvalidArgumentException at the change | skipped, reported |
/// | nil key path on add | SIGSEGV | skipped, reported |
/// | empty key path on add | NSRangeException | skipped, reported |
/// | nil or empty key path on remove | nothing (Apple: NSRangeException, not registered) | Apple: skipped, reported; GNUstep: left to GNUstep, not reported |
/// | `removeObserver:forKeyPath:context:` | not implemented on GNUstep (added by the guard) | Apple semantics; a context that matches nothing is skipped and reported |
///
/// Valid observation is delivered as Foundation delivers it: the same change dictionaries (kind, new, old, indexes,
/// prior), the observer's own context, the newest registration first (GNUstep's order), initial notifications at
/// add time (Foundation's own). One observer adding itself again for a key path with another context (ReactiveObjC's
/// shared observer, one context per subscription) is kept as the running Foundation keeps it: Apple keeps both
/// registrations, GNUstep gives the one it has the new context and options.
///
/// Registrations the guard did not make are Foundation's: those made before `start()` or while the guard was off,
/// and (`Configuration.kvoLeavesSystemClassesAlone`) every registration whose observed object or
/// observer is of a system class. Their removal goes to Foundation; a removal is reported as unbalanced only when
/// Foundation has no observer of the object besides the guard's proxy.
///
/// Switching the guard off (`stop()`, the kill switch) moves no registration: those made through the proxies stay on
/// them until their natural end (the app removes them, or the observer or the object dies), so that a change made on
/// another thread meanwhile reaches each observer once, never twice or not at all. Until then the guard's hooks
/// stay installed (`KVOHookLifetime`): the removals of those registrations go to the registry, every other call
/// (and every registration made while the guard is off) goes straight to Foundation, and nothing is reported. They
/// are reverted once no registration is left on a proxy.
enum KVOGuard {
    static let registry = KVOProxyRegistry.shared

    static func install(in context: GuardContext) throws {
        guard let object = ObjCClass(named: "NSObject") else { return }
        Self.registry.open()
        csr_kvo_set_handler { proxy, keyPath, object, change, context in
            guard let proxy, let keyPath, let object, let change else { return }
            KVOGuard.registry.deliver(proxy: proxy, keyPath: keyPath, object: object, change: change, context: context)
        }
        csr_kvo_set_end_handler { address, token in
            KVOGuard.registry.observedObjectEnded(UInt(address), token: UInt(token))
        }
        // Not through `context`: the hooks outlive the guard while registrations are left on proxies.
        var points: [AnyHookPoint] = [Self.addObserver, Self.removeObserver]
        let hasContextRemoval = object.responds(to: Self.removeObserverContext.selector)
        // Once the guard added it (below), it is the replacement itself: hooking it would call itself.
        if hasContextRemoval && !Self.addedContextRemoval { points.append(Self.removeObserverContext) }
        try Self.hooks.switchOn(points, on: object)
        if !hasContextRemoval {
            // GNUstep 1.28 has no -removeObserver:forKeyPath:context:; the guard adds it (it stays after stop, and
            // then raises "does not recognize" as before).
            if csr_class_addMethod(
                object.pointer, Self.removeObserverContext.selector.pointer,
                Self.removeObserverContext.replacement, "v@:@@^v")
            {
                Self.addedContextRemovalFlag.store(true, ordering: .releasing)
            }
        }
    }

    static func uninstall() {
        Self.hooks.switchOff()  // reverted now, or once the last registration on a proxy ends
    }

    /// The guard's hooks (see `KVOHookLifetime`).
    static let hooks = KVOHookLifetime()

    /// Whether the KVO hooks are installed (the guard is on, or registrations are left on proxies).
    static var hooksInstalled: Bool { hooks.installed }

    /// Whether the guard added `-removeObserver:forKeyPath:context:` to NSObject (GNUstep). Written under
    /// CrashShield's lock, read by the removal hooks on any thread.
    static var addedContextRemoval: Bool { addedContextRemovalFlag.load(ordering: .acquiring) }
    private static let addedContextRemovalFlag = ManagedAtomic<Bool>(false)

    // MARK: Hooks

    typealias AddIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt, UnsafeMutableRawPointer?) -> Void
    typealias RemoveIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void
    typealias RemoveContextIMP =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UnsafeMutableRawPointer?) -> Void

    static let addObserver: HookPoint<AddIMP> = HookPoint("addObserver:forKeyPath:options:context:") {
        receiver, cmd, observer, keyPath, options, context in
        guard let original = addObserver.original(for: receiver) else { return }
        guard let receiver, !csr_kvo_is_proxy(observer) else {
            return original(receiver, cmd, observer, keyPath, options, context)
        }
        func toFoundation() {
            registry.callFoundation(on: receiver, adds: true) {
                original(receiver, cmd, observer, keyPath, options, context)
            }
        }
        guard Session.isGuarding(.kvo, receiver) else { return toFoundation() }
        let name = keyPath.flatMap(string)
        guard let observer, let keyPath, let name, !name.isEmpty else {
            let violation: Violation =
                observer == nil ? .kvoNilObserver : keyPath == nil ? .kvoNilKeyPath : .kvoEmptyKeyPath
            // Failing loudly raises Foundation's exception here: GNUstep's own path for an empty key path goes
            // through -substringFromIndex:, which the string guard would stop (and report) a second time.
            if IncidentPath.handle(
                Incident(
                    .kvo, receiver: receiver, selector: cmd, violation, point: addObserver,
                    unrecovered: .raiseWhenLoud(violation))) == .recover
            {
                return
            }
            return original(receiver, cmd, observer, keyPath, options, context)
        }
        if leavesAlone(receiver, observer) { return toFoundation() }
        let outcome: KVOProxyRegistry.AddOutcome
        do {
            outcome = try registry.add(
                observed: receiver, observer: observer, keyPathObject: keyPath, keyPath: name,
                options: options, context: UInt(bitPattern: context),
                watchObserved: watchesDeallocation(of: receiver, keyPath: keyPath, name))
        } catch {
            return toFoundation()  // the classes cannot be watched
        }
        if outcome == .notOurs { toFoundation() }  // the guard is being switched off
    }

    static let removeObserver: HookPoint<RemoveIMP> = HookPoint("removeObserver:forKeyPath:") {
        receiver, cmd, observer, keyPath in
        guard let original = removeObserver.original(for: receiver) else { return }
        guard let receiver, !registry.isProxy(observer) else { return original(receiver, cmd, observer, keyPath) }
        guard remove(receiver, cmd, observer, keyPath, context: nil, point: removeObserver) != .handled else { return }
        registry.callFoundation(on: receiver, adds: false) { original(receiver, cmd, observer, keyPath) }
    }

    static let removeObserverContext: HookPoint<RemoveContextIMP> = HookPoint("removeObserver:forKeyPath:context:") {
        receiver, cmd, observer, keyPath, context in
        let original = removeObserverContext.original(for: receiver)
        guard let receiver, !registry.isProxy(observer) else {
            if let original { original(receiver, cmd, observer, keyPath, context) }
            return
        }
        let removal = remove(
            receiver, cmd, observer, keyPath, context: UInt(bitPattern: context), point: removeObserverContext)
        guard removal != .handled else { return }
        if let original {
            return registry.callFoundation(on: receiver, adds: false) {
                original(receiver, cmd, observer, keyPath, context)
            }
        }
        // GNUstep: the method is the guard's own. A registration Foundation may know (made before start(), while the
        // guard was off, or as system KVO) is removed by key path, GNUstep's only removal; otherwise (guard off,
        // debug mode) it fails as GNUstep does without the method.
        if removal == .foundation, Session.isGuarding(.kvo, receiver),
            let plain = removeObserver.original(for: receiver)
        {
            let selector = removeObserver.selector.pointer
            return registry.callFoundation(on: receiver, adds: false) { plain(receiver, selector, observer, keyPath) }
        }
        csr_object_does_not_recognize(receiver, cmd)
    }

    /// What a removal hook does after `remove`.
    enum Removal {
        /// Removed, or stopped and reported.
        case handled
        /// Not the guard's: Foundation's own registration (or Foundation decides), as without CrashShield.
        case foundation
        /// Debug mode, reported: the call fails as Foundation's would.
        case failLoudly
    }

    /// The common part of the two removals.
    private static func remove(
        _ receiver: CSRObject, _ cmd: CSRSelector?, _ observer: CSRObject?, _ keyPath: CSRObject?,
        context: UInt?, point: AnyHookPoint
    ) -> Removal {
        let name = keyPath.flatMap(string)
        if let observer, let name, !name.isEmpty {
            if registry.remove(observed: receiver, observer: observer, keyPath: name, context: context) {
                return .handled
            }
            // Not the registry's. Unbalanced only when Foundation has no other observer of the object either.
            guard Session.isGuarding(.kvo, receiver), registry.removalIsUnbalanced(from: receiver),
                !leavesAlone(receiver, observer)
            else { return .foundation }
        } else {
            guard Session.isGuarding(.kvo, receiver) else { return .foundation }
        }
        // Only Apple's Foundation raises for it: GNUstep's removes nothing and raises nothing for a registration it does
        // not know, or for a nil or empty key path (`FoundationRules`). The context removal the guard adds on GNUstep
        // is the exception: without CrashShield that call fails there whatever its arguments.
        guard FoundationRules.isApple || (point === removeObserverContext && addedContextRemoval) else {
            return .foundation
        }
        let violation = Violation.kvoUnregisteredRemoval(observer: observer, keyPath: name, context: context)
        if point === removeObserverContext && addedContextRemoval {
            // Not a hook (GNUstep has no original): report directly.
            return IncidentPath.handle(
                Incident(.kvo, receiver: receiver, selector: cmd, violation, implementation: point.replacementAddress))
                == .recover ? .handled : .failLoudly
        }
        return IncidentPath.handle(Incident(.kvo, receiver: receiver, selector: cmd, violation, point: point))
            == .recover ? .handled : .failLoudly
    }

    // MARK: Incidents that are not a call

    /// An observer that does not implement `observeValueForKeyPath:ofObject:change:context:` got a change. true: skip.
    static func unhandledChange(observer: CSRObject, keyPath: CSRObject) -> Bool {
        let cls = GuardFailure.className(observer)
        return IncidentPath.handle(
            Incident(
                .kvo, subject: Incident.Subject(className: cls), selector: observeSelector,
                .kvoUnhandledChange(className: cls, keyPath: string(keyPath) ?? ""), implementation: nil)) == .recover
    }

    /// An observer's `-dealloc` returned while it was still registered: its registrations were removed before anything
    /// was sent to it. Nothing failed (without CrashShield the next change of those key paths would have been sent to
    /// the freed observer): reported as recovered, in every mode.
    static func observerDied(className: String, keyPaths: [String]) {
        _ = IncidentPath.handle(
            Incident(
                .kvo, subject: Incident.Subject(className: className), selector: observeSelector,
                .kvoDeadObserver(className: className, keyPaths: keyPaths),
                implementation: DeallocWatcher.deallocPoint.replacementAddress, unrecovered: .alreadyHandled))
    }

    /// An observed object's `-dealloc` returned with observers still registered, where Foundation raises for that
    /// (`csr_kvo_foundation_raises_for_dead_observed_objects`): they were removed. Nothing failed.
    static func observedDied(_ address: UInt, className: String, keyPaths: [String]) {
        _ = IncidentPath.handle(
            Incident(
                .kvo, subject: Incident.Subject(className: className), selector: "dealloc",
                .kvoDeadObserved(address: address, className: className, keyPaths: keyPaths),
                implementation: DeallocWatcher.deallocPoint.replacementAddress, unrecovered: .alreadyHandled))
    }

    // MARK: Helpers

    static let observeSelector = "observeValueForKeyPath:ofObject:change:context:"

    /// Whether a registration for `keyPath` makes the guard watch `object`'s `-dealloc`, to remove and report the
    /// observers it leaves registered (Docs/AppleRuntime.md §5). Not where Foundation forgets them itself and nothing
    /// fails: Apple since iOS 11 / macOS 10.13, for a key the class notifies automatically (it still raises for a
    /// key notified manually, `+automaticallyNotifiesObserversForKey:` NO); an end mark (an associated object) tells
    /// the registry when such an object is gone. GNUstep's KVO forgets a dead object's observers whatever its keys,
    /// but its runtime has no associated objects: there the guard always watches (and reports), as before.
    static func watchesDeallocation(of object: CSRObject, keyPath: CSRObject, _ name: String) -> Bool {
        guard csr_kvo_foundation_forgets_dead_observed_objects(), let cls = ObjCClass(of: object) else { return true }
        let key = ClassKey(
            cls: UInt(bitPattern: cls.pointer), key: name.split(separator: ".").first.map(String.init) ?? name)
        if let known = automaticKeys.withLock({ $0[key] }) { return !known }
        let automatic = csr_kvo_class_notifies_automatically(object, keyPath)  // outside the lock: it sends messages
        automaticKeys.withLock { $0[key] = automatic }
        return !automatic
    }

    private struct ClassKey: Hashable { let cls: UInt; let key: String }
    /// (class of the observed object, first key of the key path) -> whether the class notifies it automatically.
    private static let automaticKeys = Locked([ClassKey: Bool]())

    /// The system-classes rule (`Configuration.kvoLeavesSystemClassesAlone`): the KVO of system classes is theirs. true when
    /// the observed object or the observer is of a class defined outside the app's own binaries.
    static func leavesAlone(_ object: CSRObject, _ observer: CSRObject) -> Bool {
        guard let session = Session.current.load(ordering: .acquiring),
            session.configuration.kvoLeavesSystemClassesAlone
        else { return false }
        return isSystemObject(object, session) || isSystemObject(observer, session)
    }

    /// Whether `object`'s class is a system class: the session's answer (`Session.isAppClass`: the nearest class in
    /// its superclass chain that has an image, since KVO's subclasses made at run time have none) is "not the app's".
    private static func isSystemObject(_ object: CSRObject, _ session: Session) -> Bool {
        guard let cls = ObjCClass(of: object) else { return false }
        return session.isAppClass(cls) == false
    }

    /// The UTF-8 contents of an NSString (nil for nil or a non-string).
    static func string(_ object: CSRObject?) -> String? {
        guard let object else { return nil }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard csr_string_copyUTF8(object, &buffer, buffer.count) else { return nil }
        return String(cString: buffer)
    }
}

extension GuardDeclaration {
    /// State: `KVOGuard.registry` (the proxies and their registrations) and `KVOGuard.hooks`, which outlive the guard
    /// while registrations are left on proxies: `uninstall` switches the hooks off, reverted once the last one ends.
    /// `addedContextRemoval` (GNUstep: the method added to NSObject) is the process's.
    static let kvo = GuardDeclaration(.kvo, install: KVOGuard.install, uninstall: KVOGuard.uninstall)
}
