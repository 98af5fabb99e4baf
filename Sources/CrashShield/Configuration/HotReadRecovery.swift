/// How the container and string guards protect the hottest read-only methods (`objectAtIndex:`,
/// `objectAtIndexedSubscript:`, `characterAtIndex:`), and the mutation `replaceCharactersInRange:withString:` where
/// Foundation raises its failure before changing anything.
public enum HotReadRecovery: String, Sendable, CaseIterable {
    /// A method whose failure can be recovered when Foundation raises it is not hooked at all, so a valid call costs
    /// nothing: when it raises, CrashShield finds the failing call on the stack and the caller gets nil / 0. That
    /// needs an exception that names its receiver and index and Foundation code without cleanups on the way (GNUstep's
    /// arrays). Where only the exception falls short (GNUstep's strings, `array[i]`), the method gets a marker that
    /// notes the call for that search and jumps to Foundation's method (5 to 8 instructions, no frame); only calls
    /// made through it are recovered. GNUstep's mutable strings' `replaceCharactersInRange:withString:` gets a marker
    /// too, instead of its check-first trampoline. Every other method keeps its trampoline, and so does every method
    /// on Apple platforms.
    case atRaise
    /// Every hot read is hooked by a C trampoline that calls the original inside `@try` (about 1.2x to 1.5x a valid
    /// call's cost): the fallback.
    case trampolines
}
