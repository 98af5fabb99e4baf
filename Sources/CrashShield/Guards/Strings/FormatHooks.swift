import CrashShieldRuntime.Internal

/// A nil format given to a variadic format method. The `va_list` forms (`initWithFormat:locale:arguments:`, behind
/// `initWithFormat:`, `initWithFormat:locale:`, `initWithFormat:arguments:` and `stringByAppendingFormat:` on both
/// Foundations, and `stringWithFormat:` on Apple) are guarded in `StringHooks`. Two variadic methods fail before
/// they get there, or never get there:
/// - `+[NSString stringWithFormat:nil]` on GNUstep raises in its own body ("[NSString+stringWithFormat:]: NULL
///   format"): hooked where GNUstep's Foundation runs, with the rules' text (under Apple's rules, what Apple raises
///   for it from `initWithFormat:locale:arguments:`). On Apple the call reaches the `va_list` form: no hook here.
///   GNUstep's NSMutableString has its own `+stringWithFormat:`, which reaches the `va_list` form.
/// - `-[NSMutableString appendFormat:nil]`: GNUstep's mutable strings append nothing (legal, not guarded); Apple
///   raises: guarded under Apple's rules only. Recovery: nothing is appended.
/// `+localizedStringWithFormat:nil` answers nil on GNUstep and is left alone.
///
/// A valid call: `+stringWithFormat:` does what GNUstep's does (`[[self alloc] initWithFormat:arguments:]`);
/// `appendFormat:` reaches the original with the text already formatted (`@"%@"` and the string), so the original
/// still makes the mutation (see CSRVariadic.h). One known difference: a receiver passed as its own argument
/// (`[m appendFormat:@"%@", m]`) is read before the append, where GNUstep's mutable string reads itself while it grows.
enum FormatHooks {

    static func install(in context: GuardContext) throws {
        if FoundationRules.platform == .gnustep, let string = ObjCClass(named: "NSString") {
            try context.install(stringWithFormat, on: [string])
        }
        if FoundationRules.isApple, let mutable = ClassFamily("NSMutableString") {
            try context.install(appendFormat, onOwnersIn: mutable)
        }
    }

    /// Recovery: an empty string of the class asked for (the original with @"").
    static let stringWithFormat = VariadicHookPoint(
        "stringWithFormat:", kind: .class, trampoline: Int32(CSRVariadicStringWithFormat), category: .string
    ) { _ in .nilFormatList }

    /// Apple's rules only. Apple's text unverified on a device.
    static let appendFormat = VariadicHookPoint(
        "appendFormat:", trampoline: Int32(CSRVariadicAppendFormat), category: .string
    ) { _ in .appleOnly("appendFormat:", "nil argument", hint: Hint.nilFormat) }
}
