import CrashShieldRuntime.Internal

/// `-[NSRegularExpression enumerateMatchesInString:options:range:usingBlock:]`, under Apple's rules only
/// (`FoundationRules`). Apple's primitive checks the string, then the range, before matching: NSInvalidArgumentException
/// `*** -[NSRegularExpression enumerateMatchesInString:options:range:usingBlock:]: nil argument` (the receiver's
/// class: NSDataDetector is a subclass), NSRangeException `...: Range or index out of bounds` for a range past the
/// string's end. Apple's `matchesInString:`, `numberOfMatchesInString:`, `firstMatchInString:` and
/// `rangeOfFirstMatchInString:` (each `...:options:range:`) send it, and so do `stringByReplacingMatchesInString:...`
/// and `replaceMatchesInString:...` through `matchesInString:` after checking their template (iPadOS 18's
/// NSRegularExpression.m as decompiled in EthanArbuckle/iPad_10.2_18.0_22A3354_Restore; openradar 26981430 shows
/// `firstMatchInString:` raising from it): this one hook covers them all on Apple.
///
/// GNUstep 1.28 (NSRegularExpression.m) raises for neither: ICU refuses the region and nothing matches. Built with
/// GCC (no blocks), its conveniences do not even send the primitive: nothing is hooked there.
///
/// Recovery: the call is skipped: the block is never called, so `matchesInString:` answers an empty array,
/// `numberOfMatchesInString:` 0, `firstMatchInString:` nil, `rangeOfFirstMatchInString:` {NSNotFound, 0}.
enum RegularExpressionHooks {
    typealias Enumerate = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> Void

    static let enumerateMethod = "enumerateMatchesInString:options:range:usingBlock:"

    static func install(in context: GuardContext) throws {
        // GNUstep answers nothing for a nil string or a range past the end: only Apple's Foundation raises.
        guard FoundationRules.isApple, let regex = ObjCClass(named: "NSRegularExpression") else { return }
        try context.install(enumerateMatches, on: [regex])
    }

    static let enumerateMatches: GuardedMethod<Enumerate> = GuardedMethod(
        ObjCSelector(enumerateMethod), .string
    ) { r, cmd, string, options, range, block in
        enumerateMatches.mutation(
            r, cmd, valid: string != nil && range.fits(in: length(of: string)),
            else: string == nil ? .nilRegexString : .regexRange
        ) { $0(r, cmd, string, options, range, block) }
    }
}
