import CrashShieldRuntime.Internal

/// NSMutableString mutations at an index or range past the end. An invalid mutation is skipped (see `StringGuard`).
/// Legal on GNUstep and left alone (GSString.m, NSString.m): `appendString:nil`, `appendFormat:nil`, `setString:nil`
/// (GSMutableString's own empties the string), `insertString:nil atIndex:i` for i <= length (NSMutableString's
/// replaces {i, 0} with nil: nothing), `replaceCharactersInRange:r withString:nil` (GSMutableString's deletes r;
/// `stringByReplacingCharactersInRange:withString:nil` too, on a mutable copy); their nil forms are in the
/// differential probes. Under Apple's rules (`FoundationRules`) `appendString:nil` raises and is guarded, and so is a
/// nil string in `replaceCharactersInRange:withString:` and `insertString:atIndex:` (`ReplacementNilHooks`).
enum MutableStringHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let mutable = ClassFamily("NSMutableString") else { return }
        try context.install([insertStringAtIndex, replaceCharactersInRange], onOwnersIn: mutable)
        try context.install(replaceOccurrences, onOwnersIn: mutable)
        try context.install(layers: [deleteCharactersInRangeBase, deleteCharactersInRange], onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(appendString, onOwnersIn: mutable) }
    }

    /// Legal for index == length (appends). GNUstep checks in `replaceCharactersInRange:withString:`. A nil string:
    /// as in `replaceCharactersInRange`.
    static let insertStringAtIndex: GuardedMethod<IMP.VoidWithObjectIndex> = GuardedMethod(
        "insertString:atIndex:", .string,
        layers: [
            { insertStringAtIndex(in: insertStringAtIndex, $0, $1, $2, $3) },
            { insertStringAtIndex(in: insertStringAtIndex.layer(1), $0, $1, $2, $3) },
            { insertStringAtIndex(in: insertStringAtIndex.layer(2), $0, $1, $2, $3) },
        ])
    private static func insertStringAtIndex(
        in point: GuardedMethod<IMP.VoidWithObjectIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ string: CSRObject?, _ index: UInt
    ) {
        let length = length(of: r)
        point.mutation(
            r, cmd, valid: index <= length && string != nil, else: insertFailure(r, string, index, length)
        ) { $0(r, cmd, string, index) }
    }
    /// Out of line: the valid path's replacement stays one inlined body.
    @inline(never)
    private static func insertFailure(
        _ r: CSRObject?, _ string: CSRObject?, _ index: UInt, _ length: UInt
    ) -> Violation? {
        if let failure = ReplacementNilHooks.nilStringFailure(r, string, method: "insertString:atIndex:") {
            return failure
        }
        return index <= length
            ? nil
            : .textMutation(
                CSRRange(location: index, length: 0), length: length,
                method: "replaceCharactersInRange:withString:", appleMethod: "insertString:atIndex:")
    }

    /// Apple's rules only (GNUstep appends nothing). Apple raises through CoreFoundation's `mutateError`, without
    /// `*** ` (`-[__NSCFString appendString:]: nil argument`).
    static let appendString: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "appendString:", .string,
        layers: [
            { appendString(in: appendString, $0, $1, $2) }, { appendString(in: appendString.layer(1), $0, $1, $2) },
            { appendString(in: appendString.layer(2), $0, $1, $2) },
        ])
    private static func appendString(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ string: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: string != nil,
            else: .appleOnly(
                "appendString:", "nil argument",
                hint: "check the string for nil before appending it", starred: false)
        ) { $0(r, cmd, string) }
    }

    /// Also installed on mutable attributed strings (an unrelated class hierarchy: no nesting).
    /// Valid calls skip the replacement (CSRCheckFirst.h): its check must stay exactly "the string is not nil and the
    /// range fits in length". A nil string is a failure under Apple's rules only, checked before the range as CF's
    /// `__CFStringCheckAndReplace` does; under GNUstep's the call goes on.
    static let replaceCharactersInRange: GuardedMethod<IMP.VoidWithRangeObject> = GuardedMethod(
        "replaceCharactersInRange:withString:", .string, checkFirst: Int32(CSRHotMutableStringReplaceCharacters),
        layers: [
            { replaceCharactersInRange(in: replaceCharactersInRange, $0, $1, $2, $3) },
            { replaceCharactersInRange(in: replaceCharactersInRange.layer(1), $0, $1, $2, $3) },
            { replaceCharactersInRange(in: replaceCharactersInRange.layer(2), $0, $1, $2, $3) },
        ])
    private static func replaceCharactersInRange(
        in point: GuardedMethod<IMP.VoidWithRangeObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange, _ string: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: range.fits(in: length(of: r)) && string != nil, else: replaceFailure(r, range, string)
        ) { $0(r, cmd, range, string) }
    }
    @inline(never)
    private static func replaceFailure(_ r: CSRObject?, _ range: CSRRange, _ string: CSRObject?) -> Violation? {
        ReplacementNilHooks.nilStringFailure(r, string, method: "replaceCharactersInRange:withString:")
            ?? rangeFailure(range, r)
    }

    typealias ReplaceOccurrences =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt, CSRRange) -> UInt

    /// The primitive of the replacing family: `stringByReplacingOccurrencesOfString:withString:` and
    /// `...options:range:` (NSString.m) call it on a mutable copy of the receiver, which they answer. GNUstep checks,
    /// in order: the target is a string, the replacement is a string, NSMaxRange(range) <= length, computed wrapping;
    /// each raises an NSInvalidArgumentException (`FoundationFailures`); a range whose end wraps passes and crashes. A non-nil argument that is not
    /// a string is Foundation's own failure, left to it. Recovery: 0 replacements, the receiver untouched (a
    /// `stringByReplacing...` answers an unchanged copy).
    static let replaceOccurrences: GuardedMethod<ReplaceOccurrences> = GuardedMethod(
        "replaceOccurrencesOfString:withString:options:range:", .string,
        layers: [
            { replaceOccurrences(in: replaceOccurrences, $0, $1, $2, $3, $4, $5) },
            { replaceOccurrences(in: replaceOccurrences.layer(1), $0, $1, $2, $3, $4, $5) },
            { replaceOccurrences(in: replaceOccurrences.layer(2), $0, $1, $2, $3, $4, $5) },
        ])
    private static func replaceOccurrences(
        in point: GuardedMethod<ReplaceOccurrences>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ target: CSRObject?, _ replacement: CSRObject?, _ options: UInt, _ range: CSRRange
    ) -> UInt {
        let length = length(of: r)
        return point.guarded(
            r, cmd, valid: target != nil && replacement != nil && range.fits(in: length),
            else: replaceOccurrencesFailure(target, replacement, range, length),
            unhooked: 0, recovery: { _ in 0 }
        ) { $0(r, cmd, target, replacement, options, range) }
    }

    /// The first failure GNUstep meets; nil (Foundation's own) where a non-nil argument before it is not a string.
    /// A range whose end passes 2^64 passes GNUstep's wrapping check and crashes its search (`replaceOccurrencesWrap`).
    private static func replaceOccurrencesFailure(
        _ target: CSRObject?, _ replacement: CSRObject?, _ range: CSRRange,
        _ length: UInt
    ) -> Violation? {
        guard let target else { return .nilReplaceOccurrences(replacement: false) }
        guard probe(target, Selectors.length) != nil else { return nil }
        guard let replacement else { return .nilReplaceOccurrences(replacement: true) }
        guard probe(replacement, Selectors.length) != nil else { return nil }
        if FoundationRules.isApple || range.location &+ range.length > length {
            return .replaceOccurrencesRange(range, length: length)
        }
        return .replaceOccurrencesWrap(range)
    }

    /// Two layers: NSMutableString's generic implementation (GNUstep: it checks in
    /// `replaceCharactersInRange:withString:`) under the concrete classes' own ones (which check in
    /// `deleteCharactersInRange:`).
    static let deleteCharactersInRange: GuardedMethod<IMP.VoidWithRange> = GuardedMethod(
        "deleteCharactersInRange:", .string
    ) { r, cmd, range in
        deleteCharactersInRange.mutation(
            r, cmd, rangeFailure(range, r, method: "deleteCharactersInRange:", apple: "deleteCharactersInRange:")
        ) { $0(r, cmd, range) }
    }
    /// The generic layer; also installed on mutable attributed strings (an unrelated class hierarchy: no nesting),
    /// which check in `replaceCharactersInRange:withString:` too.
    static let deleteCharactersInRangeBase: GuardedMethod<IMP.VoidWithRange> = GuardedMethod(
        "deleteCharactersInRange:", .string
    ) { r, cmd, range in
        deleteCharactersInRangeBase.mutation(r, cmd, rangeFailure(range, r, apple: "deleteCharactersInRange:")) {
            $0(r, cmd, range)
        }
    }

    /// The range check of every text mutation: `method` is where GNUstep checks, `apple` the method Apple names.
    @inline(__always)
    static func rangeFailure(
        _ range: CSRRange, _ r: CSRObject?, method: String = "replaceCharactersInRange:withString:",
        apple: String? = nil
    ) -> Violation? {
        let length = length(of: r)
        return range.fits(in: length)
            ? nil : .textMutation(range, length: length, method: method, appleMethod: apple ?? method)
    }
}
