/// How the container and string guards protect the hottest read-only methods (`objectAtIndex:`,
/// `objectAtIndexedSubscript:`, `characterAtIndex:`), and the mutation `replaceCharactersInRange:withString:` and the
/// buffer fill `getCharacters:range:` where Foundation raises their failure before changing anything.
@_spi(CrashShieldTools) public enum HotReadRecovery: String, Sendable, CaseIterable {
    /// A method whose failure can be recovered when Foundation raises it is not hooked at all, so a valid call costs
    /// nothing: when it raises, CrashShield finds the failing call on the stack and the caller gets nil / 0. That
    /// needs Foundation code with nothing to run on the way, and an implementation whose exception names its receiver
    /// and index (GNUstep's arrays) or that raises for that failure only (GNUstep's own strings' `characterAtIndex:`,
    /// reported with the class that implements it). Where the raise cannot tell the app's call (`array[i]`), the
    /// method gets a marker that notes the call for that search and jumps to Foundation's method (8 instructions, no
    /// frame); only calls made through it are recovered. GNUstep's mutable strings' `replaceCharactersInRange:withString:`
    /// and its own strings' `getCharacters:range:` get a marker too (5 instructions), instead of their check-first
    /// trampolines. Every other method keeps its
    /// trampoline, and so does every method on Apple platforms.
    case atRaise
    /// Every hot read is hooked by a C trampoline that calls the original inside `@try` (about 1.2x to 1.5x a valid
    /// call's cost): the fallback.
    case trampolines
}
