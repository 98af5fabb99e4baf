import CrashShieldRuntime.Internal

/// Words for failure reasons, as Foundation prints them. (The failure path itself is `IncidentPath`.)
enum GuardFailure {
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
