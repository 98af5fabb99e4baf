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
