import CrashShieldRuntime.Internal

/// The failure path every hook-based guard takes when its precondition check failed.
enum GuardFailure {
    /// Reports a stopped call and says what to do with it (`Interception.Decision`; a hook reverted in place passes
    /// through unreported). `callSite`: where the bad call was made, relative to the replacement's direct caller (it
    /// decides the report's signature and whether debug mode fails loudly). `implementation`: the replacement that
    /// stopped the call, when not the point's own (a hot-read trampoline of one slot).
    @inline(never)
    static func decide(_ category: GuardCategory, _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint,
                       _ exception: String, hint: String, details: [String: String] = [:],
                       callSite: CallSite = .directCaller, implementation: UnsafeRawPointer? = nil,
                       reason: (String) -> String) -> Interception.Decision {
        guard point.isActive(for: receiver) else { return .passThrough }
        let failure = Interception.Failure(category, receiver: receiver, selector: cmd, exception: exception, hint: hint,
                                           details: details, implementation: implementation ?? point.replacementAddress,
                                           callSite: callSite)
        return Interception.decide(failure, reason: { reason(className(receiver)) })
    }

    /// `decide`, as a yes/no. true: recover (return a safe value, skip the mutation); false: call the original (guard
    /// off, class excluded, hook reverted in place, or debug mode for a call from the app's own code).
    static func stop(_ category: GuardCategory, _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint,
                     _ exception: String, hint: String, details: [String: String] = [:],
                     callSite: CallSite = .directCaller, implementation: UnsafeRawPointer? = nil,
                     reason: (String) -> String) -> Bool {
        decide(category, receiver, cmd, point, exception, hint: hint, details: details, callSite: callSite,
               implementation: implementation, reason: reason) == .recover
    }

    /// `stop`, for a guard whose original would raise `violation.exception`: in debug mode, for the app's own call,
    /// raises Foundation's exception (name and reason as reported) right here instead of returning false. The
    /// original is never reached, so guards on the methods it calls cannot stop the same failure again (GNUstep's
    /// `insertObjects:atIndexes:` calls `insertObject:atIndex:`, ...): one report, and the failure is loud. A failure
    /// by signal ("SIGSEGV": GNUstep dereferences a nil argument) cannot be raised: the original fails as it would.
    static func stopOrRaise(_ category: GuardCategory, _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint,
                            _ violation: Violation) -> Bool {
        let reason = violation.reason
        switch decide(category, receiver, cmd, point, violation.exception, hint: violation.hint, reason: reason) {
        case .recover: return true
        case .passThrough: return false
        case .failLoudly:
            if violation.exception.hasPrefix("SIG") { return false }
            csr_raise(violation.exception, reason(className(receiver)))
        }
    }

    /// An address as `%p` prints it (0x and lowercase hex; "0x0" for nil), for reasons that quote Foundation.
    static func address(_ pointer: UnsafeRawPointer?) -> String {
        "0x" + String(UInt(bitPattern: pointer), radix: 16)
    }

    /// Class name of a receiver (the class itself for a class object).
    static func className(_ receiver: CSRObject?) -> String {
        guard let cls = ObjCClass(of: receiver) else { return "nil" }
        return cls.isMetaclass ? ObjCClass(receiver!).name : cls.name
    }
}

/// Where a stopped call was made, relative to the replacement's direct caller.
enum CallSite: Sendable {
    /// The replacement's caller made the bad call (a swizzled method called by the app).
    case directCaller
    /// The replacement is a forwarding method the runtime's trampoline calls (libffi on GNUstep, CoreFoundation's
    /// `___forwarding___` on Apple): the call site is the frame that sent the message, past the trampoline.
    case pastForwarding
    /// The replacement is only reached through Foundation's own code (KVC's undefined-key fallbacks): the call site
    /// is the first frame of the app's own code above.
    case firstAppFrame
}
