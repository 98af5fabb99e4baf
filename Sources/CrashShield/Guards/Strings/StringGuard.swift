import CrashShieldRuntime.Internal

/// Stops out-of-range and nil arguments to NSString, NSMutableString, NSAttributedString and
/// NSMutableAttributedString.
///
/// Recovery semantics (the container rules, applied to text):
/// - a read that would raise returns an empty value of the declared kind: an empty string for a substring (the
///   original answers a legal empty range, so the class is the one Foundation would return), an empty attributed
///   string, an empty attribute dictionary; nil for an attribute value; 0 for `characterAtIndex:`; NO for
///   `hasPrefix:`/`hasSuffix:`; {NSNotFound, 0} for `rangeOfString:` and the searches (`SearchHooks`);
///   NSOrderedDescending for a comparison; an effective-range out-parameter is set to {NSNotFound, 0}, line and
///   paragraph bounds to NSNotFound;
/// - an invalid mutation is skipped entirely: the string is left exactly as it was (`replaceOccurrencesOfString:...`
///   answers 0 replacements, a `stringByReplacingOccurrencesOfString:...` an unchanged copy);
/// - a constructor given a nil string or a NULL C string builds an empty string (of the class asked for).
/// Preconditions are checked before the original runs, except for `characterAtIndex:` (the hottest read: the
/// original runs under `@try` in a C trampoline and its own exception is caught, see `HotReadHookPoint`), and are
/// never stricter than Foundation's: a range {length, 0} at the end, an insert at index length, and whatever else
/// the platform's Foundation accepts (on GNUstep: `appendString:nil`, `insertString:nil atIndex:0`, `replaceCharactersInRange:r
/// withString:nil`, `attributesAtIndex:length`, attribute indexes of 2^32 and above (cut to 32 bits),
/// `setAttributes:range:` with any empty range, `addAttribute:value:nil` with an empty range at a run's start) reach
/// Foundation unchanged. The string guard's differential test tries every index and range edge against the real
/// Foundation (`StringGuardTests`).
enum StringGuard {
    static func install(in context: GuardContext) throws {
        try StringHooks.install(in: context)
        try MutableStringHooks.install(in: context)
        try AttributedStringHooks.install(in: context)
        try ReplacementNilHooks.install(in: context)
        try FormatHooks.install(in: context)
        try SearchHooks.install(in: context)
        try RegularExpressionHooks.install(in: context)
        try PredicateHooks.install(in: context)
    }

}

extension GuardDeclaration {
    /// No state.
    static let string = GuardDeclaration(.string, install: StringGuard.install)
}

/// `@convention(c)` signatures of the hooked string methods.
enum StringIMP {
    typealias CharacterAtIndex = @convention(c) (CSRObject?, CSRSelector?, UInt) -> UInt16
    typealias RangeWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRRange
    typealias BoolWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> UInt8
    typealias ObjectWithCString = @convention(c) (CSRObject?, CSRSelector?, UnsafePointer<CChar>?) -> CSRObject?
    typealias AttributesAtIndex =
        @convention(c) (CSRObject?, CSRSelector?, UInt, UnsafeMutablePointer<CSRRange>?) -> CSRObject?
    typealias AttributeAtIndex =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, UnsafeMutablePointer<CSRRange>?) -> CSRObject?
    typealias AttributesAtIndexInRange =
        @convention(c) (CSRObject?, CSRSelector?, UInt, UnsafeMutablePointer<CSRRange>?, CSRRange) -> CSRObject?
    typealias AttributeAtIndexInRange =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, UnsafeMutablePointer<CSRRange>?, CSRRange) ->
        CSRObject?
    typealias VoidWithObjectRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRRange) -> Void
    typealias VoidWithObjectObjectRange =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, CSRRange) -> Void
    /// The `va_list` is passed through untouched, as the one word it is in a call on every supported ABI (arm64
    /// Darwin: a `char *`; x86_64: an array that decays to a pointer; AAPCS64's struct goes by reference).
    typealias InitWithFormat =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UnsafeMutableRawPointer?) -> CSRObject?
}
