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
/// The replacing methods check their template first: `stringByReplacingMatchesInString:options:range:withTemplate:`
/// and `replaceMatchesInString:options:range:withTemplate:` raise `nil argument` with their own names for a nil
/// template (the same decompiled source); GNUstep replaces the matches with nothing. Hooked too, Apple's rules only.
///
/// Recovery: the call is skipped: the block is never called, so `matchesInString:` answers an empty array,
/// `numberOfMatchesInString:` 0, `firstMatchInString:` nil, `rangeOfFirstMatchInString:` {NSNotFound, 0};
/// `stringByReplacingMatchesInString:` with a nil template answers nil, `replaceMatchesInString:` 0 replacements, the
/// string untouched.
enum RegularExpressionHooks {
    typealias Enumerate = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> Void
    typealias Replacing =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> CSRObject?
    typealias Replace = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> UInt

    static let enumerateMethod = "enumerateMatchesInString:options:range:usingBlock:"

    static func install(in context: GuardContext) throws {
        // GNUstep answers nothing for a nil string or a range past the end: only Apple's Foundation raises.
        guard FoundationRules.isApple, let regex = ObjCClass(named: "NSRegularExpression") else { return }
        // Apple's NSDataDetector overrides the primitive with the same two checks and texts (its own name) and does
        // not call super (iPadOS 18's NSDataDetector.m, decompiled as above): hooked where it owns one, with the
        // second layer on NSRegularExpression so that an override calling super would reach that layer, never its
        // own hook again. GNUstep's NSDataDetector has no override of its own: there only NSRegularExpression's is.
        if let detector = ObjCClass(named: "NSDataDetector"), detector.owns(enumerateMatches.selector) {
            try context.install(enumerateMatches, on: [detector])
            try context.install(enumerateMatches.layer(1), on: [regex])
        } else {
            try context.install(enumerateMatches, on: [regex])
        }
        try context.install([stringByReplacingMatches, replaceMatches] as [AnyHookPoint], on: [regex])
    }

    static let enumerateMatches: GuardedMethod<Enumerate> = GuardedMethod(
        ObjCSelector(enumerateMethod), .string,
        layers: [
            { enumerate(in: enumerateMatches, $0, $1, $2, $3, $4, $5) },
            { enumerate(in: enumerateMatches.layer(1), $0, $1, $2, $3, $4, $5) },
        ])

    private static func enumerate(
        in point: GuardedMethod<Enumerate>, _ r: CSRObject?, _ cmd: CSRSelector?, _ string: CSRObject?,
        _ options: UInt, _ range: CSRRange, _ block: CSRObject?
    ) {
        // An argument that does not answer `length` is left to Foundation, which sends it first (as without
        // CrashShield: no question of CrashShield's own fails).
        let fits = probe(string, Selectors.length).map { range.fits(in: $0) } ?? true
        point.mutation(r, cmd, valid: string != nil && fits, else: string == nil ? .nilRegexString : .regexRange) {
            $0(r, cmd, string, options, range, block)
        }
    }

    static let stringByReplacingMatches: GuardedMethod<Replacing> = GuardedMethod(
        "stringByReplacingMatchesInString:options:range:withTemplate:", .string
    ) { r, cmd, string, options, range, template in
        stringByReplacingMatches.read(
            r, cmd, valid: template != nil,
            else: .nilRegexTemplate(method: "stringByReplacingMatchesInString:options:range:withTemplate:")
        ) { $0(r, cmd, string, options, range, template) }
    }

    static let replaceMatches: GuardedMethod<Replace> = GuardedMethod(
        "replaceMatchesInString:options:range:withTemplate:", .string
    ) { r, cmd, string, options, range, template in
        replaceMatches.guarded(
            r, cmd, valid: template != nil,
            else: .nilRegexTemplate(method: "replaceMatchesInString:options:range:withTemplate:"), unhooked: 0,
            recovery: { _ in 0 }
        ) { $0(r, cmd, string, options, range, template) }
    }
}
