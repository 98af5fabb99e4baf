import CrashShieldRuntime.Internal

/// Stops unbalanced, duplicate and dangling key-value observation.
///
/// Design (one proxy per observed object): `NSObject`'s `addObserver:forKeyPath:options:context:` is hooked so that
/// Foundation only ever sees one observer per observed object, a proxy (`KVOProxyRegistry`). The proxy keeps every
/// registration, keyed on (observed object, observer, key path, context) with its options, and forwards each change
/// to the registrations of its key path with the values they asked for. Both the observed object and the observers
/// are watched through `DeallocWatcher` (only their classes get a `-dealloc` hook).
///
/// | case | GNUstep 1.28 unprotected | guarded |
/// | --- | --- | --- |
/// | remove an observer never added / more often than added | nothing (Apple: NSRangeException) | skipped, reported |
/// | add the same registration twice | delivered once (Apple: twice) | delivered once, reported |
/// | observed object deallocated with observers | nothing (Apple < iOS 11: exception) | cleaned up, reported |
/// | observer deallocated while registered | message to freed memory (crash) | removed at its dealloc, reported |
/// | observer released on one thread while a change is delivered to it on another | message to freed memory (crash) | its dealloc waits for the call (or, when its thread is itself inside a delivery, the memory is freed when the call returns); no later change reaches it |
/// | observer without `observeValueForKeyPath:...` | NSInvalidArgumentException at the change | skipped, reported |
/// | nil key path on add | SIGSEGV | skipped, reported |
/// | empty key path on add | NSRangeException | skipped, reported |
/// | nil or empty key path on remove | nothing | skipped, reported |
/// | `removeObserver:forKeyPath:context:` | not implemented on GNUstep (added by the guard) | Apple semantics; a context that matches nothing is skipped and reported |
///
/// Valid observation is delivered as Foundation delivers it: the same change dictionaries (kind, new, old, indexes,
/// prior), the observer's own context, the newest registration first (GNUstep's order), initial notifications at
/// add time (Foundation's own). One difference, deliberate: one observer may observe one key path with several
/// contexts and gets each (Apple's behaviour; GNUstep keeps only the last registration).
final class KVOGuard: CrashGuard {
    static let category = GuardCategory.kvo

    init() {}

    static let registry = KVOProxyRegistry.shared

    func install(in context: GuardContext) throws {
        guard let object = ObjCClass(named: "NSObject") else { return }
        csr_kvo_set_handler { proxy, keyPath, object, change, context in
            guard let proxy, let keyPath, let object, let change else { return }
            KVOGuard.registry.deliver(proxy: proxy, keyPath: keyPath, object: object, change: change, context: context)
        }
        try context.install(Self.addObserver, on: [object])
        try context.install(Self.removeObserver, on: [object])
        if Self.addedContextRemoval {
            // Added by an earlier start: it is the replacement itself (hooking it would call itself).
        } else if object.responds(to: Self.removeObserverContext.selector) {
            try context.install(Self.removeObserverContext, on: [object])
        } else {
            // GNUstep 1.28 has no -removeObserver:forKeyPath:context:; the guard adds it (it stays after stop, and
            // then raises "does not recognize" as before).
            Self.addedContextRemoval = csr_class_addMethod(object.pointer, Self.removeObserverContext.selector.pointer,
                                                           Self.removeObserverContext.replacement, "v@:@@^v")
                || Self.addedContextRemoval
        }
        Self.active = true
    }

    func uninstall() {
        Self.active = false
        // The hooks are gone: registrations made through the proxies go back to Foundation, unchanged.
        Self.registry.handBackToFoundation()
    }

    nonisolated(unsafe) static var active = false
    nonisolated(unsafe) static var addedContextRemoval = false

    // MARK: Hooks

    typealias AddIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt, UnsafeMutableRawPointer?) -> Void
    typealias RemoveIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void
    typealias RemoveContextIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UnsafeMutableRawPointer?) -> Void

    static let addObserver: HookPoint<AddIMP> = HookPoint("addObserver:forKeyPath:options:context:") { receiver, cmd, observer, keyPath, options, context in
        guard let original = addObserver.original(for: receiver) else { return }
        guard let receiver, isGuarding(receiver), !csr_kvo_is_proxy(observer) else {
            return original(receiver, cmd, observer, keyPath, options, context)
        }
        let name = keyPath.flatMap(string)
        guard let observer, let keyPath, let name, !name.isEmpty else {
            let exception: String, reason: String
            if observer == nil {
                exception = "NSInvalidArgumentException"; reason = "observer is nil"
            } else if keyPath == nil {
                #if canImport(Darwin)
                exception = "NSInvalidArgumentException"; reason = "key path is nil"
                #else
                exception = "SIGSEGV"; reason = "key path is nil (GNUstep dereferences it)"
                #endif
            } else {
                exception = "NSRangeException"; reason = emptyKeyPathReason
            }
            // Failing loudly raises Foundation's exception here: GNUstep's own path for an empty key path goes
            // through -substringFromIndex:, which the string guard would stop (and report) a second time.
            if GuardFailure.stopOrRaise(.kvo, receiver, cmd, addObserver, exception,
                                        hint: "pass an observer and a non-empty key path", reason: { _ in reason }) { return }
            return original(receiver, cmd, observer, keyPath, options, context)
        }
        let outcome: KVOProxyRegistry.AddOutcome
        do {
            outcome = try registry.add(observed: receiver, observer: observer, keyPathObject: keyPath, keyPath: name,
                                       options: options, context: UInt(bitPattern: context))
        } catch {
            return original(receiver, cmd, observer, keyPath, options, context)   // the classes cannot be watched
        }
        if outcome == .duplicate {
            _ = GuardFailure.stop(.kvo, receiver, cmd, addObserver, duplicateException,
                                  hint: "add each (observer, key path, context) once; remove before adding again", reason: { cls in
                "\(String(describing: observer)) is already observing the key path \"\(name)\" of \(cls) with context \(GuardFailure.address(context)): delivered once"
            })
        }
    }

    static let removeObserver: HookPoint<RemoveIMP> = HookPoint("removeObserver:forKeyPath:") { receiver, cmd, observer, keyPath in
        guard let original = removeObserver.original(for: receiver) else { return }
        guard let receiver, !csr_kvo_is_proxy(observer) else { return original(receiver, cmd, observer, keyPath) }
        if remove(receiver, cmd, observer, keyPath, context: nil, point: removeObserver) { return }
        original(receiver, cmd, observer, keyPath)
    }

    static let removeObserverContext: HookPoint<RemoveContextIMP> = HookPoint("removeObserver:forKeyPath:context:") { receiver, cmd, observer, keyPath, context in
        let original = removeObserverContext.original(for: receiver)
        guard let receiver, !csr_kvo_is_proxy(observer) else {
            if let original { original(receiver, cmd, observer, keyPath, context) }
            return
        }
        if remove(receiver, cmd, observer, keyPath, context: UInt(bitPattern: context), point: removeObserverContext) { return }
        if let original { return original(receiver, cmd, observer, keyPath, context) }
        // GNUstep: the method is the guard's own; not recovered (guard off, debug mode, after stop) it fails as
        // GNUstep does without it.
        csr_object_does_not_recognize(receiver, cmd)
    }

    /// The common part of the two removals. true: handled (removed, or stopped and reported).
    private static func remove(_ receiver: CSRObject, _ cmd: CSRSelector?, _ observer: CSRObject?, _ keyPath: CSRObject?,
                               context: UInt?, point: AnyHookPoint) -> Bool {
        let name = keyPath.flatMap(string)
        if let observer, let name, !name.isEmpty,
           registry.remove(observed: receiver, observer: observer, keyPath: name, context: context) {
            return true
        }
        guard isGuarding(receiver) else { return false }
        let hint = "remove only what was added (balance add/remove; check the key path and context)"
        let reason: (String) -> String = { cls in
            "Cannot remove an observer \(String(describing: observer)) for the key path \"\(name ?? "(null)")\" from \(cls)"
                + (context.map { " with context \(GuardFailure.address(UnsafeRawPointer(bitPattern: $0)))" } ?? "")
                + " because it is not registered as an observer."
        }
        if point === removeObserverContext && addedContextRemoval {
            // Not a hook (GNUstep has no original): report directly.
            return Interception.shouldRecover(.kvo, receiver: receiver, selector: cmd, exception: "NSRangeException",
                                              reason: { reason(GuardFailure.className(receiver)) }, hint: hint,
                                              implementation: point.replacementAddress)
        }
        return GuardFailure.stop(.kvo, receiver, cmd, point, "NSRangeException", hint: hint, reason: reason)
    }

    // MARK: Incidents that are not a call

    /// An observer that does not implement `observeValueForKeyPath:ofObject:change:context:` got a change. true: skip.
    static func unhandledChange(observer: CSRObject, keyPath: CSRObject) -> Bool {
        let cls = GuardFailure.className(observer)
        return Interception.report(.kvo, className: cls, selector: observeSelector, exception: unhandledException,
                                   reason: { unhandledReason(cls, keyPath: string(keyPath) ?? "") },
                                   hint: "implement observeValueForKeyPath:ofObject:change:context: in the observer",
                                   implementation: nil)
    }

    /// An observer was deallocated while still registered: its registrations are gone, nothing will message it.
    static func observerDied(className: String, keyPaths: [String]) {
        _ = Interception.report(.kvo, className: className, selector: observeSelector, exception: deadObserverException,
                                reason: { "An instance of \(className) was deallocated while still observing the key paths \(keyPaths.joined(separator: ", ")); its registrations were removed" },
                                hint: "remove the observer (removeObserver:forKeyPath:) before it is deallocated",
                                implementation: nil)
    }

    /// An observed object was deallocated with observers still registered: they were removed.
    static func observedDied(_ object: CSRObject, className: String, keyPaths: [String]) {
        _ = Interception.report(.kvo, className: className, selector: "dealloc", exception: "NSInternalInconsistencyException",
                                reason: { "An instance \(GuardFailure.address(object)) of class \(className) was deallocated while key value observers were still registered with it (key paths: \(keyPaths.joined(separator: ", "))); they were removed" },
                                hint: "remove every observer before the observed object goes away",
                                implementation: nil)
    }

    // MARK: Helpers

    static let observeSelector = "observeValueForKeyPath:ofObject:change:context:"
    static let duplicateException = "KVODuplicateRegistration"
    #if canImport(Darwin)
    static let deadObserverException = "EXC_BAD_ACCESS"
    static let unhandledException = "NSInternalInconsistencyException"
    static let emptyKeyPathReason = "key path is empty"
    static func unhandledReason(_ cls: String, keyPath: String) -> String {
        "<\(cls)>: An -observeValueForKeyPath:ofObject:change:context: message was received but not handled.\nKey path: \(keyPath)"
    }
    #else
    static let deadObserverException = "SIGSEGV"
    static let unhandledException = "NSInvalidArgumentException"
    static let emptyKeyPathReason = "in substringWithRange:, range { 1, 18446744073709551615 } extends beyond size (0)"
    static func unhandledReason(_ cls: String, keyPath: String) -> String {
        "-observeValueForKeyPath:ofObject:change:context: cannot be sent to \(cls) ... create an instance overriding this"
    }
    #endif

    /// Whether new registrations go through the proxy (guard on and the class not excluded).
    static func isGuarding(_ receiver: CSRObject) -> Bool {
        guard active, let session = Session.current.load(ordering: .acquiring), session.isEnabled(.kvo) else { return false }
        guard let cls = ObjCClass(of: receiver) else { return false }
        return !session.isExcluded(cls)
    }

    /// The UTF-8 contents of an NSString (nil for nil or a non-string).
    static func string(_ object: CSRObject?) -> String? {
        guard let object else { return nil }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard csr_string_copyUTF8(object, &buffer, buffer.count) else { return nil }
        return String(cString: buffer)
    }
}
