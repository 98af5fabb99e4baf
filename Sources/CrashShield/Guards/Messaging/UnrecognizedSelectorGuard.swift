import CrashShieldRuntime.Internal

/// Stops `unrecognized selector sent to instance/class` for the app's own classes and the Foundation classes app
/// code commonly confuses (`Configuration.unrecognizedSelectorFoundationClasses`, `protectedClassPrefixes`).
///
/// How: the one forwarding step both runtimes share. When a message has no method, GNUstep (and Apple's runtime)
/// asks the receiver for `methodSignatureForSelector:`, then sends it `forwardInvocation:`. NSObject's two methods
/// are hooked, instance and class side:
/// - `forwardingTargetForSelector:` answers as before, and marks the failing dispatch (this class and selector, on
///   this thread): on Apple, CoreFoundation's forwarding handler sends it first for every message that found no
///   method. GCC's libobjc marks it at its forwarding entry instead (`csr_forwarding_watchEntry`). The resolver is no
///   mark: objc4 sends `+resolveInstanceMethod:` once per class and selector, then caches the forwarding entry, so
///   on iOS a repeated bad message never reaches it (see Docs/AppleRuntime.md).
/// - `methodSignatureForSelector:` answers as before; only when it has no answer, inside a failing dispatch (code
///   that asks `methodSignatureForSelector:` itself still gets nil), for a protected receiver whose class really has
///   no method for the selector, it returns the signature the selector's own type information describes (GCC's
///   libobjc carries typed selectors: clang emits them at call sites), else the one the methods of that name agree
///   on, else an object-returning signature, as `performSelector:` calls it.
/// - `forwardInvocation:`, for such a receiver, sets a zeroed return value of the signature's size (nil, 0, NO,
///   0.0, a zeroed struct) and reports; in debug mode it raises exactly what the runtime would have raised.
///
/// Protected: the app's own classes, `protectedClassPrefixes`, `unrecognizedSelectorFoundationClasses`, and
/// instances of exactly NSObject (a placeholder delegate sent an optional method). A message sent from Foundation's
/// own frames still fails as before (`recoversFoundationCallers`).
/// Untouched, exactly as without CrashShield: NSNull (the `nsNull` guard owns it), NSProxy subclasses, deny-listed
/// classes, classes outside the protected scope (system frameworks that probe selectors themselves; NSObject's
/// class methods; other root classes), and every class that takes part in forwarding itself: it (or a superclass below NSObject) overrides
/// `forwardingTargetForSelector:`, `methodSignatureForSelector:`, `forwardInvocation:`, `+resolveInstanceMethod:`
/// or `+resolveClassMethod:`. No method is ever added to the receiver's class: `respondsToSelector:` keeps
/// answering NO. The per-class decision is cached (cleared on install and uninstall).
enum UnrecognizedSelectorGuard {
    static func install(in context: GuardContext) throws {
        Self.scope.clear()
        csr_forwarding_watchEntry(UInt32(CSRForwardingOwnerUnrecognizedSelector), true)
        guard let root = ObjCClass(named: "NSObject") else { return }
        try context.install(Self.instanceTarget, on: [root])
        try context.install(Self.instanceSignature, on: [root])
        try context.install(Self.instanceForward, on: [root])
        try context.install(Self.classTarget, on: [root])
        try context.install(Self.classSignature, on: [root])
        try context.install(Self.classForward, on: [root])
    }

    static func uninstall() {
        csr_forwarding_watchEntry(UInt32(CSRForwardingOwnerUnrecognizedSelector), false)
        Self.scope.clear()
    }

    // MARK: Hook points

    /// Answer-first (CSRCheckFirst.h): KVC on GNUstep asks every model object's signature, so a call that has an
    /// answer pays only the trampoline.
    static let instanceSignature: AnswerFirstHookPoint<Forwarding.SignatureIMP> = AnswerFirstHookPoint(
        "methodSignatureForSelector:", hotTable: Int32(CSRHotObjectMethodSignature),
        replacement: { receiver, cmd, selector in signature(instanceSignature, receiver, cmd, selector) },
        fallback: { receiver, _, selector in missingSignature(instanceSignature, receiver, selector) })
    static let classSignature: AnswerFirstHookPoint<Forwarding.SignatureIMP> = AnswerFirstHookPoint(
        "methodSignatureForSelector:", kind: .class, hotTable: Int32(CSRHotClassMethodSignature),
        replacement: { receiver, cmd, selector in signature(classSignature, receiver, cmd, selector) },
        fallback: { receiver, _, selector in missingSignature(classSignature, receiver, selector) })
    static let instanceForward: HookPoint<Forwarding.ForwardIMP> = HookPoint("forwardInvocation:") {
        receiver, cmd, invocation in
        forward(instanceForward, receiver, cmd, invocation)
    }
    static let classForward: HookPoint<Forwarding.ForwardIMP> = HookPoint("forwardInvocation:", kind: .class) {
        receiver, cmd, invocation in
        forward(classForward, receiver, cmd, invocation)
    }

    /// Apple's forwarding handler asks the receiver for another target first, for every message that found no
    /// method: remember which (see `csr_forwarding_markDispatch`).
    static let instanceTarget: HookPoint<Forwarding.TargetIMP> = HookPoint("forwardingTargetForSelector:") {
        receiver, cmd, selector in
        Forwarding.target(instanceTarget, receiver, cmd, selector)
    }
    static let classTarget: HookPoint<Forwarding.TargetIMP> = HookPoint("forwardingTargetForSelector:", kind: .class) {
        receiver, cmd, selector in
        Forwarding.target(classTarget, receiver, cmd, selector)
    }

    private static func signature(
        _ point: HookPoint<Forwarding.SignatureIMP>, _ receiver: CSRObject?,
        _ cmd: CSRSelector?, _ selector: CSRSelector?
    ) -> CSRObject? {
        guard let original = point.original(for: receiver) else { return nil }
        if let answer = original(receiver, cmd, selector) { return answer }
        return missingSignature(point, receiver, selector)
    }

    /// The original had no signature for `selector`: inside a failing dispatch, for a protected receiver, the one
    /// forwarding needs to reach `forwardInvocation:`; nil otherwise, as without CrashShield.
    private static func missingSignature(
        _ point: HookPoint<Forwarding.SignatureIMP>, _ receiver: CSRObject?,
        _ selector: CSRSelector?
    ) -> CSRObject? {
        guard let selector, csr_forwarding_isDispatching(receiver, selector), isProtected(receiver, selector, point)
        else {
            return nil
        }
        csr_forwarding_remember(receiver, selector)
        return csr_signature_for_selector(receiver, selector)
    }

    private static func forward(
        _ point: HookPoint<Forwarding.ForwardIMP>, _ receiver: CSRObject?, _ cmd: CSRSelector?,
        _ invocation: CSRObject?
    ) {
        guard let original = point.original(for: receiver) else { return }
        guard let invoked = csr_invocation_getSelector(invocation), isProtected(receiver, invoked, point) else {
            return original(receiver, cmd, invocation)
        }
        Forwarding.stop(
            .unrecognizedSelector, receiver, invocation, invoked, point,
            hint: "the receiver is not the type the code expects: check its class (a wrong cast, a stale "
                + "delegate, JSON of another shape?) or implement the method")
    }

    // MARK: Scope

    /// Whether a message `selector` to `receiver` that found no method is this guard's to stop. Cold path (only
    /// messages that are about to fail get here), cached per class.
    static func isProtected(_ receiver: CSRObject?, _ selector: CSRSelector, _ point: AnyHookPoint) -> Bool {
        guard let receiver, let isa = ObjCClass(of: receiver),
            let session = Session.current.load(ordering: .acquiring), session.isEnabled(.unrecognizedSelector),
            !isa.responds(to: ObjCSelector(selector)), point.isActive(for: receiver)
        else { return false }
        return scope.decide(isa) { classIsProtected(isa, session: session) }
    }

    /// State between install and uninstall: which classes are protected, decided per class under the session's
    /// configuration; emptied by `install` and `uninstall` (a new configuration decides anew).
    private static let scope = ClassDecisions()

    private static func classIsProtected(_ isa: ObjCClass, session: Session) -> Bool {
        let objectClass = isa.isMetaclass ? Forwarding.classOfMetaclass(isa) : isa
        guard let objectClass else { return false }
        if let null = ObjCClass(named: "NSNull"), objectClass.isKind(of: null) { return false }
        if Forwarding.isProxy(objectClass) || session.isExcluded(objectClass) { return false }
        if Forwarding.takesPartInForwarding(objectClass) { return false }
        let configuration = session.configuration
        if configuration.unrecognizedSelectorFoundationClasses.contains(where: { name in
            ObjCClass(named: name).map { objectClass.isKind(of: $0) } ?? false
        }) {
            return true
        }
        let name = objectClass.name
        if configuration.protectedClassPrefixes.contains(where: { name.hasPrefix($0) }) { return true }
        // An instance of exactly NSObject: a placeholder the app made (a delegate sent an optional method it does not
        // implement) is protected as the app's own classes are. A message Foundation's own code sends one still fails
        // as before (`Incident.recoversFoundationCallers`), wherever the object came from.
        if !isa.isMetaclass, let root = ObjCClass(named: "NSObject"), objectClass == root { return true }
        // Any other root class, and NSObject's class methods, are the runtime's, whatever image they live in: only
        // the lists above protect them.
        guard objectClass.superclass != nil else { return false }
        return session.isAppClass(objectClass) == true
    }
}

extension GuardDeclaration {
    /// State: `UnrecognizedSelectorGuard.scope` and the C layer's forwarding-entry watch, both cleared by `uninstall`.
    static let unrecognizedSelector = GuardDeclaration(
        .unrecognizedSelector, install: UnrecognizedSelectorGuard.install,
        uninstall: UnrecognizedSelectorGuard.uninstall)
}

/// A per-class yes/no, computed once. Thread-safe.
final class ClassDecisions: @unchecked Sendable {
    private let lock = Lock()
    private var decisions: [UInt: Bool] = [:]

    func decide(_ cls: ObjCClass, _ compute: () -> Bool) -> Bool {
        let key = UInt(bitPattern: cls.pointer)
        if let known = lock.withLock({ decisions[key] }) { return known }
        let decision = compute()  // outside the lock: it sends messages
        lock.withLock { decisions[key] = decision }
        return decision
    }

    func clear() { lock.withLock { decisions.removeAll() } }
}

/// What the messaging guards share: the hooked signatures, the forwarding checks and the failure path.
enum Forwarding {
    typealias SignatureIMP = @convention(c) (CSRObject?, CSRSelector?, CSRSelector?) -> CSRObject?
    typealias ForwardIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias TargetIMP = @convention(c) (CSRObject?, CSRSelector?, CSRSelector?) -> CSRObject?

    static let exception = ExceptionName.invalidArgument

    /// `forwardingTargetForSelector:`: marks the failing dispatch, then answers exactly as before.
    static func target(
        _ point: HookPoint<TargetIMP>, _ receiver: CSRObject?, _ cmd: CSRSelector?,
        _ selector: CSRSelector?
    ) -> CSRObject? {
        csr_forwarding_markDispatch(receiver, selector)
        return point.original(for: receiver)?(receiver, cmd, selector)
    }

    /// Reports a message nothing answers and recovers with a zeroed return value; in debug mode (a call from the
    /// app's own code) raises exactly what the runtime would have raised.
    static func stop(
        _ category: GuardCategory, _ receiver: CSRObject?, _ invocation: CSRObject?,
        _ invoked: CSRSelector, _ point: AnyHookPoint, hint: String
    ) {
        // The selector the message was really sent with (GNUstep may have retyped it after our signature answer).
        var untypedFailure = false
        let sent = csr_forwarding_recall(receiver, invoked, &untypedFailure)
        csr_forwarding_clearDispatch()
        csr_forwarding_remember(nil, nil)
        let reason = { () -> String in
            var buffer = [CChar](repeating: 0, count: 1024)
            csr_unrecognized_reason(receiver, sent, untypedFailure, &buffer, buffer.count)
            return String(cString: buffer)
        }
        // Not recovered, the message raises what the runtime raises (the incident path raises it).
        let violation = Violation.unrecognizedSelector(exception, hint: hint, reason: reason)
        if IncidentPath.handle(
            Incident(
                category, receiver: receiver, selector: sent, violation,
                details: details(invocation), point: point, callSite: .pastForwarding,
                unrecovered: .raiseAlways(Incident.Exception(name: exception, reason: violation.reason)))) == .recover
        {
            csr_invocation_setZeroReturn(invocation)
        }
    }

    private static func details(_ invocation: CSRObject?) -> [String: String] {
        ["returnSize": String(csr_invocation_returnLength(invocation))]
    }

    /// The class whose metaclass `meta` is.
    static func classOfMetaclass(_ meta: ObjCClass) -> ObjCClass? {
        // A metaclass and its class share the name; the registered class of that name is the one.
        guard let cls = ObjCClass(named: meta.name), cls.metaclass == meta else { return nil }
        return cls
    }

    static func isProxy(_ cls: ObjCClass) -> Bool {
        guard let proxy = ObjCClass(named: "NSProxy") else { return false }
        return cls.isKind(of: proxy)
    }

    private static let forwardingSelectors: [ObjCSelector] = [
        "forwardingTargetForSelector:", "methodSignatureForSelector:", "forwardInvocation:",
    ]
    private static let resolvingSelectors: [ObjCSelector] = ["resolveInstanceMethod:", "resolveClassMethod:"]

    /// Whether `cls` (or a superclass below NSObject) overrides one of the forwarding or dynamic-resolution methods,
    /// instance or class side: its implementation differs from NSObject's (hooked or not, both sides compare the
    /// current implementations).
    static func takesPartInForwarding(_ cls: ObjCClass) -> Bool {
        guard let root = ObjCClass(named: "NSObject"), cls.isKind(of: root) else { return true }
        func differs(_ a: ObjCClass, _ b: ObjCClass, _ selector: ObjCSelector) -> Bool {
            let mine = csr_class_methodImplementation(a.pointer, selector.pointer)
            let roots = csr_class_methodImplementation(b.pointer, selector.pointer)
            return mine.map { unsafeBitCast($0, to: UInt.self) } != roots.map { unsafeBitCast($0, to: UInt.self) }
        }
        for selector in forwardingSelectors {
            if differs(cls, root, selector) || differs(cls.metaclass, root.metaclass, selector) { return true }
        }
        for selector in resolvingSelectors where differs(cls.metaclass, root.metaclass, selector) { return true }
        return false
    }

}
