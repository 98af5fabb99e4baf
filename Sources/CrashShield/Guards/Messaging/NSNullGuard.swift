import CrashShieldRuntime.Internal

/// Messages NSNull does not implement (a JSON `null` used as a string, number, array or dictionary: `length`,
/// `integerValue`, `objectForKey:`, `count`, `objectAtIndex:`...) behave like messages to nil: the caller gets
/// nil / 0 / NO / a zeroed struct, and one report (category `nsNull`).
///
/// This guard owns NSNull: the unrecognized-selector guard never handles an NSNull receiver, so a message reports
/// once, here. It hooks NSNull's own `forwardingTargetForSelector:`, `methodSignatureForSelector:` and
/// `forwardInvocation:` (as overrides when NSNull inherits them) the way `UnrecognizedSelectorGuard` hooks NSObject's;
/// NSNull gains no other method, so
/// `respondsToSelector:` stays honest (NO for the selectors it does not implement).
enum NSNullGuard {
    static func install(in context: GuardContext) throws {
        csr_forwarding_watchEntry(UInt32(CSRForwardingOwnerNSNull), true)
        guard let null = ObjCClass(named: "NSNull") else { return }
        try context.install(Self.target, on: [null])
        try context.install(Self.signature, on: [null])
        try context.install(Self.forward, on: [null])
    }

    static func uninstall() { csr_forwarding_watchEntry(UInt32(CSRForwardingOwnerNSNull), false) }

    /// As `UnrecognizedSelectorGuard.instanceTarget`, for NSNull (this guard may run alone).
    static let target: HookPoint<Forwarding.TargetIMP> = HookPoint("forwardingTargetForSelector:") {
        receiver, cmd, selector in
        Forwarding.target(target, receiver, cmd, selector)
    }

    static let signature: HookPoint<Forwarding.SignatureIMP> = HookPoint("methodSignatureForSelector:") {
        receiver, cmd, selector in
        guard let original = signature.original(for: receiver) else { return nil }
        if let answer = original(receiver, cmd, selector) { return answer }
        guard let selector, csr_forwarding_isDispatching(receiver, selector),
            isNullMessage(receiver, selector, signature)
        else {
            return nil
        }
        csr_forwarding_remember(receiver, selector)
        return csr_signature_for_selector(receiver, selector)
    }

    static let forward: HookPoint<Forwarding.ForwardIMP> = HookPoint("forwardInvocation:") {
        receiver, cmd, invocation in
        guard let original = forward.original(for: receiver) else { return }
        guard let invoked = csr_invocation_getSelector(invocation), isNullMessage(receiver, invoked, forward) else {
            return original(receiver, cmd, invocation)
        }
        Forwarding.stop(
            .nsNull, receiver, invocation, invoked, forward,
            hint: "a JSON null (NSNull) is used as a value: check for [NSNull null] before using it")
    }

    /// A message NSNull has no method for, with the guard on and the class not deny-listed.
    private static func isNullMessage(_ receiver: CSRObject?, _ selector: CSRSelector, _ point: AnyHookPoint) -> Bool {
        guard let receiver, let isa = ObjCClass(of: receiver), !isa.isMetaclass,
            let session = Session.current.load(ordering: .acquiring), session.isEnabled(.nsNull),
            !session.isExcluded(isa), !isa.responds(to: ObjCSelector(selector)),
            point.isActive(for: receiver)
        else { return false }
        return true
    }
}

extension GuardDeclaration {
    /// State: the C layer's forwarding-entry watch for NSNull (`csr_forwarding_watchEntry`), switched off by `uninstall`.
    static let nsNull = GuardDeclaration(.nsNull, install: NSNullGuard.install, uninstall: NSNullGuard.uninstall)
}
