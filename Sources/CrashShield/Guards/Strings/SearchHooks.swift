import CrashShieldRuntime.Internal

/// NSString's range-taking searches and comparisons, hooked where each family funnels (GNUstep: NSString.m and
/// GSString.m; Apple's crash logs show the same funnels, Docs/AppleRuntime.md):
/// - `rangeOfString:options:range:locale:`, which `rangeOfString:options:range:`, `rangeOfString:options:` and
///   `rangeOfString:` call (`hasPrefix:` and `hasSuffix:` too, behind their own hooks): the range, then a nil string.
///   Apple's crash logs name it for a nil string given to `rangeOfString:options:` as well.
/// - `compare:options:range:`: GNUstep's string classes (GSString.m) check the range, then a nil string, with their
///   own texts; `compare:` and `compare:options:` reach it. NSString's generic implementation (constant strings, app
///   subclasses), and GSString.m's own with NSNumericSearch, call `compare:options:range:locale:`, which checks with
///   its texts. Apple documents a nil string as undefined behaviour: under Apple's rules only the range is checked.
/// - `rangeOfCharacterFromSet:options:range:` (`rangeOfCharacterFromSet:` and `...options:` call it), implemented by
///   NSString and by GNUstep's string classes: the range, then a nil set (`characterSetFailure`).
/// - `getLineStart:end:contentsEnd:forRange:` and `getParagraphStart:end:contentsEnd:forRange:`, which
///   `lineRangeForRange:` and `paragraphRangeForRange:` call: the range (GNUstep checks it in
///   `_getStart:end:contentsEnd:forRange:lineSep:`, Apple in `_getBlockStart:end:contentsEnd:forRange:stopAtLineSeparators:`).
/// `enumerateSubstringsInRange:options:usingBlock:` is not guarded: GNUstep Base 1.28 has no such method (a call fails
/// as an unrecognized selector), and Apple's precondition for it is neither documented nor in public crash logs.
///
/// Every range check is GS_RANGE_CHECK's, overflow-safe (`fits(in:)`). Recovery: {NSNotFound, 0} for a search;
/// NSOrderedDescending for a comparison (never NSOrderedSame, so an equality test fails: the receiver orders after a
/// nil string or a range it does not have); the line or paragraph bounds asked for set to NSNotFound
/// (`lineRangeForRange:` and `paragraphRangeForRange:` then answer {NSNotFound, 0}).
enum SearchHooks {
    typealias RangeOfString =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> CSRRange
    typealias Compare = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange) -> Int
    typealias CompareLocale = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange, CSRObject?) -> Int
    typealias RangeOfCharacter = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, CSRRange) -> CSRRange
    typealias Bounds =
        @convention(c) (
            CSRObject?, CSRSelector?, UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UInt>?,
            UnsafeMutablePointer<UInt>?, CSRRange
        ) -> Void

    static func install(in context: GuardContext) throws {
        guard let strings = ClassFamily("NSString", "NSMutableString") else { return }
        try context.install(
            [rangeOfStringLocale, compare, compareLocale, lineStart, paragraphStart] as [AnyHookPoint],
            onOwnersIn: strings)
        try context.install(
            layers: [rangeOfCharacterBase, rangeOfCharacter, rangeOfCharacterInner], onOwnersIn: strings)
    }

    static let descending = 1  // NSOrderedDescending
    private static let numericSearch: UInt = 64  // NSNumericSearch

    // MARK: rangeOfString

    /// Check-first (CSRCheckFirst.h): valid calls skip the replacement, whose check must stay exactly "the string is not
    /// nil and the range fits in length".
    static let rangeOfStringLocale: GuardedMethod<RangeOfString> = GuardedMethod(
        "rangeOfString:options:range:locale:", .string, checkFirst: Int32(CSRHotStringRangeOfString)
    ) { r, cmd, search, mask, range, locale in
        let length = length(of: r)
        let violation: Violation? =
            !range.fits(in: length)
            ? .textRange(range, length: length, method: "rangeOfString:options:range:locale:")
            : search == nil ? .nilSearch(method: "rangeOfString:options:range:locale:") : nil
        return rangeOfStringLocale.guarded(r, cmd, violation, unhooked: .notFound, recovery: { _ in .notFound }) {
            $0(r, cmd, search, mask, range, locale)
        }
    }

    // MARK: compare

    /// GNUstep's string classes' own; with NSNumericSearch they hand the call to NSString's generic one. Check-first,
    /// as `rangeOfStringLocale` (under Apple's rules a nil string reaches the replacement, which passes it on).
    static let compare: GuardedMethod<Compare> = GuardedMethod(
        "compare:options:range:", .string, checkFirst: Int32(CSRHotStringCompare)
    ) { r, cmd, string, mask, range in
        let generic = !FoundationRules.isApple && mask & numericSearch != 0
        return compare.guarded(
            r, cmd, compareFailure(r, string, range, generic: generic), unhooked: descending,
            recovery: { _ in descending }
        ) {
            $0(r, cmd, string, mask, range)
        }
    }

    static let compareLocale: GuardedMethod<CompareLocale> = GuardedMethod("compare:options:range:locale:", .string) {
        r, cmd, string, mask, range, locale in
        compareLocale.guarded(
            r, cmd, compareFailure(r, string, range, generic: true), unhooked: descending, recovery: { _ in descending }
        ) {
            $0(r, cmd, string, mask, range, locale)
        }
    }

    /// `generic`: the check is NSString's `compare:options:range:locale:`.
    private static func compareFailure(
        _ r: CSRObject?, _ string: CSRObject?, _ range: CSRRange, generic: Bool
    ) -> Violation? {
        let length = length(of: r)
        if !range.fits(in: length) {
            return .textRange(
                range, length: length, method: generic ? "compare:options:range:locale:" : "compare:options:range:")
        }
        return string != nil || FoundationRules.isApple ? nil : .nilCompare(generic: generic)
    }

    // MARK: rangeOfCharacterFromSet

    /// Three layers, as `substringWithRange:`: NSString's generic implementation (app subclasses) under the string
    /// classes' own (GNUstep: GSString.m's and NXConstantString's).
    static let rangeOfCharacter: GuardedMethod<RangeOfCharacter> = GuardedMethod(
        "rangeOfCharacterFromSet:options:range:", .string
    ) { r, cmd, set, mask, range in
        characterSearch(rangeOfCharacter, r, cmd, set, mask, range)
    }
    static let rangeOfCharacterBase: GuardedMethod<RangeOfCharacter> = GuardedMethod(
        "rangeOfCharacterFromSet:options:range:", .string
    ) { r, cmd, set, mask, range in
        characterSearch(rangeOfCharacterBase, r, cmd, set, mask, range)
    }
    static let rangeOfCharacterInner: GuardedMethod<RangeOfCharacter> = GuardedMethod(
        "rangeOfCharacterFromSet:options:range:", .string
    ) { r, cmd, set, mask, range in
        characterSearch(rangeOfCharacterInner, r, cmd, set, mask, range)
    }

    private static func characterSearch(
        _ point: GuardedMethod<RangeOfCharacter>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ set: CSRObject?, _ mask: UInt, _ range: CSRRange
    ) -> CSRRange {
        point.guarded(
            r, cmd, characterSetFailure(point, r, cmd, set, mask, range), unhooked: .notFound,
            recovery: { _ in .notFound }
        ) {
            $0(r, cmd, set, mask, range)
        }
    }

    /// The range, then a nil set. On GNUstep what a nil set does depends on the implementation: GSString.m's raise
    /// ("range of nil"); NSString's generic one and NXConstantString's read no character for an empty range (they
    /// answer {NSNotFound, 0}) and crash at the first character of any other (`nilCharacterSetCrash`). The
    /// implementation itself is asked, with the set and an empty range: its exception, if it raises one, is
    /// Foundation's own name and reason.
    private static func characterSetFailure(
        _ point: GuardedMethod<RangeOfCharacter>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ set: CSRObject?, _ mask: UInt, _ range: CSRRange
    ) -> Violation? {
        let length = length(of: r)
        if !range.fits(in: length) {
            return .textRange(range, length: length, method: "rangeOfCharacterFromSet:options:range:")
        }
        guard set == nil else { return nil }
        if FoundationRules.isApple { return .nilCharacterSet }
        guard let original = point.original(for: r) else { return nil }
        if let raised = ObjCException.catching({ _ = original(r, cmd, nil, mask, .empty) }) {
            return .caught(raised.name, raised.reason, hint: Violation.nilCharacterSet.hint)
        }
        return range.length == 0 ? nil : .nilCharacterSetCrash
    }

    // MARK: Lines and paragraphs

    static let lineStart: GuardedMethod<Bounds> = GuardedMethod("getLineStart:end:contentsEnd:forRange:", .string) {
        r, cmd, start, end, contentsEnd, range in
        bounds(lineStart, r, cmd, start, end, contentsEnd, range)
    }
    static let paragraphStart: GuardedMethod<Bounds> = GuardedMethod(
        "getParagraphStart:end:contentsEnd:forRange:", .string
    ) { r, cmd, start, end, contentsEnd, range in
        bounds(paragraphStart, r, cmd, start, end, contentsEnd, range)
    }

    private static func bounds(
        _ point: GuardedMethod<Bounds>, _ r: CSRObject?, _ cmd: CSRSelector?, _ start: UnsafeMutablePointer<UInt>?,
        _ end: UnsafeMutablePointer<UInt>?, _ contentsEnd: UnsafeMutablePointer<UInt>?, _ range: CSRRange
    ) {
        let length = length(of: r)
        let violation: Violation? =
            range.fits(in: length)
            ? nil
            : .textRange(
                range, length: length, method: "_getStart:end:contentsEnd:forRange:lineSep:",
                appleMethod: "_getBlockStart:end:contentsEnd:forRange:stopAtLineSeparators:")
        point.guarded(
            r, cmd, violation, unhooked: (),
            recovery: { _ in
                for bound in [start, end, contentsEnd] { bound?.pointee = CSRRange.notFound.location }
            }
        ) { $0(r, cmd, start, end, contentsEnd, range) }
    }
}
