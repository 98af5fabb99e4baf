import CrashShieldRuntime.Internal

/// NSAttributedString and NSMutableAttributedString: ranges and indexes past the end, a nil string. Recovery as in
/// `StringGuard`: an empty attributed string, an empty attribute dictionary or nil (the effective range, if asked
/// for, is {NSNotFound, 0}); an invalid mutation is skipped; `initWithString:nil` builds an empty attributed string.
///
/// GNUstep accepts `attributesAtIndex:length` (an empty dictionary), and reads attributes through a helper taking
/// `unsigned` index and length: an index of 2^32 or more is cut to its low 32 bits and answers
/// (`attributesAtIndex:2^32` is `attributesAtIndex:0`). Apple raises from index length on, 2^32 and above included.
enum AttributedStringHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let attributed = ClassFamily("NSAttributedString", "NSMutableAttributedString"),
            let mutable = ClassFamily("NSMutableAttributedString")
        else { return }
        try context.install(
            [
                attributedSubstringFromRange, attributesAtIndex, attributeAtIndex, attributesInRange,
                attributeInRange, initWithString,
            ], onOwnersIn: attributed)
        try AttributedInitHooks.install(in: context, attributed: attributed)
        // The text mutations that check in `replaceCharactersInRange:withString:` are NSMutableString's points.
        try context.install(
            [
                MutableStringHooks.replaceCharactersInRange, MutableStringHooks.deleteCharactersInRangeBase,
                replaceWithAttributedString, addAttribute, addAttributes, setAttributes, removeAttribute,
            ], onOwnersIn: mutable)
    }

    // MARK: Text mutations (skipped when invalid; GNUstep checks in `replaceCharactersInRange:withString:`)

    /// Checked at the app's call: GNUstep changes the receiver's attributes before its inner
    /// `replaceCharactersInRange:withString:` raises. GNUstep asks the argument its `string` first: an argument that
    /// does not answer (not an attributed string) meets Foundation as without CrashShield. A nil attributed string:
    /// Apple's rules only (`ReplacementNilHooks`).
    static let replaceWithAttributedString: GuardedMethod<IMP.VoidWithRangeObject> = GuardedMethod(
        "replaceCharactersInRange:withAttributedString:", .string,
        layers: [
            { replaceWithAttributedString(in: replaceWithAttributedString, $0, $1, $2, $3) },
            { replaceWithAttributedString(in: replaceWithAttributedString.layer(1), $0, $1, $2, $3) },
            { replaceWithAttributedString(in: replaceWithAttributedString.layer(2), $0, $1, $2, $3) },
        ])
    private static func replaceWithAttributedString(
        in point: GuardedMethod<IMP.VoidWithRangeObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange, _ string: CSRObject?
    ) {
        let violation =
            string == nil || csr_object_responds(string, stringSelector)
            ? ReplacementNilHooks.nilStringFailure(r, string, method: "replaceCharactersInRange:withAttributedString:")
                ?? MutableStringHooks.rangeFailure(range, r, apple: "replaceCharactersInRange:withAttributedString:")
            : nil
        point.mutation(r, cmd, violation) { $0(r, cmd, range, string) }
    }
    private static let stringSelector = csr_sel_register("string")

    // MARK: Attribute mutations (skipped when invalid)

    /// GNUstep: after the range check, each run the range covers gets a copy of its attribute dictionary with
    /// `value` set for `name`, so a nil name or value raises there, the name first (a nil name stopped inside that
    /// dictionary would leave the runs split: the guard checks before the original runs). An empty range covers a run
    /// only when it starts inside one (`reachesAttributeDictionary`). Apple: a nil value raises.
    static let addAttribute: GuardedMethod<StringIMP.VoidWithObjectObjectRange> = GuardedMethod(
        "addAttribute:value:range:", .string,
        layers: [
            { addAttribute(in: addAttribute, $0, $1, $2, $3, $4) },
            { addAttribute(in: addAttribute.layer(1), $0, $1, $2, $3, $4) },
            { addAttribute(in: addAttribute.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func addAttribute(
        in point: GuardedMethod<StringIMP.VoidWithObjectObjectRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ name: CSRObject?, _ value: CSRObject?, _ range: CSRRange
    ) {
        point.mutation(r, cmd, addAttributeFailure(r, name, value, range)) { $0(r, cmd, name, value, range) }
    }

    private static func addAttributeFailure(
        _ r: CSRObject?, _ name: CSRObject?, _ value: CSRObject?, _ range: CSRRange
    ) -> Violation? {
        let length = length(of: r)
        guard range.fits(in: length) else {
            return .textMutation(
                range, length: length, method: "addAttribute:value:range:", appleMethod: "addAttribute:value:range:")
        }
        let nilValue = Violation.nilAttributeValue(name: String(describing: name, limit: 256))
        // Apple raises for a nil value; GNUstep for a nil name or value, once its loop reaches a run's dictionary.
        if FoundationRules.isApple { return value == nil ? nilValue : nil }
        guard name == nil || value == nil, reachesAttributeDictionary(r, range) else { return nil }
        return name == nil ? .nilAttributeName : nilValue
    }

    /// Whether GNUstep's loop over the runs in `range` runs at all: the range is not empty, or it starts inside a
    /// run (after the run's first character).
    private static func reachesAttributeDictionary(_ receiver: CSRObject?, _ range: CSRRange) -> Bool {
        if range.length > 0 { return true }
        var effective = CSRRange.empty
        let read = Messaging.implementation(receiver, attributesSelector, as: StringIMP.AttributesAtIndex.self)
        _ = read(receiver, attributesSelector, range.location, &effective)
        return effective.location < range.location
    }
    private static let attributesSelector = csr_sel_register("attributesAtIndex:effectiveRange:")

    /// GNUstep checks the dictionary first, then `NSMaxRange(range) > length` in C's wrapping arithmetic with an
    /// `unsigned` length (a range whose end wraps past 2^64 passes), then reads the attributes at the range's
    /// location (its own index check). (Apple's behaviour for nil is not guarded here.) For a range whose end wraps,
    /// see `wrappedRangeFailure`.
    static let addAttributes: GuardedMethod<StringIMP.VoidWithObjectRange> = GuardedMethod(
        "addAttributes:range:", .string,
        layers: [
            { addAttributes(in: addAttributes, $0, $1, $2, $3) },
            { addAttributes(in: addAttributes.layer(1), $0, $1, $2, $3) },
            { addAttributes(in: addAttributes.layer(2), $0, $1, $2, $3) },
        ])
    private static func addAttributes(
        in point: GuardedMethod<StringIMP.VoidWithObjectRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ attributes: CSRObject?, _ range: CSRRange
    ) {
        point.mutation(r, cmd, addAttributesFailure(r, attributes, range)) { $0(r, cmd, attributes, range) }
    }

    private static func addAttributesFailure(_ r: CSRObject?, _ attributes: CSRObject?, _ range: CSRRange) -> Violation?
    {
        let length = length(of: r)
        if FoundationRules.isApple {
            return range.fits(in: length)
                ? nil
                : .textMutation(
                    range, length: length, method: "addAttributes:range:", appleMethod: "addAttributes:range:")
        }
        if attributes == nil { return .nilAttributes }
        if !range.endFits(in: UInt(UInt32(truncatingIfNeeded: length))) { return .addAttributesRange }
        guard attributeIndexFits(range.location, length: length) else { return .attributeIndex }
        return wrappedRangeFailure(r, range, length: length)
    }

    /// GNUstep, `addAttributes:range:` with a range whose end wraps past 2^64 (its check passed): it reads the run at
    /// the location and, while that run starts before the wrapped end, hands `setAttributes:range:` the intersection
    /// of the two (in wrapping arithmetic), after `beginEditing`. A location within the run makes that intersection
    /// the range itself, and `setAttributes:range:` raises for it: stopped here, at the app's call, with that reason.
    /// A location past the run makes it {0, 0}, and the loop never ends (a hang, left to Foundation as GNUstep's other
    /// endless loops are, see `OrderedSetHooks.objectsAtIndexes`). A run that starts at or after the wrapped end: no
    /// loop, nothing changes.
    private static func wrappedRangeFailure(_ r: CSRObject?, _ range: CSRRange, length: UInt) -> Violation? {
        let end = range.location &+ range.length
        guard end < range.location else { return nil }
        var run = CSRRange.empty
        let read = Messaging.implementation(r, attributesSelector, as: StringIMP.AttributesAtIndex.self)
        _ = read(r, attributesSelector, range.location, &run)
        guard run.location < end, range.location <= run.location &+ run.length else { return nil }
        return .textRange(range, length: length, method: "setAttributes:range:")
    }

    /// GNUstep returns before its range check for an empty range (with a warning).
    static let setAttributes: GuardedMethod<StringIMP.VoidWithObjectRange> = GuardedMethod(
        "setAttributes:range:", .string,
        layers: [
            { setAttributes(in: setAttributes, $0, $1, $2, $3) },
            { setAttributes(in: setAttributes.layer(1), $0, $1, $2, $3) },
            { setAttributes(in: setAttributes.layer(2), $0, $1, $2, $3) },
        ])
    private static func setAttributes(
        in point: GuardedMethod<StringIMP.VoidWithObjectRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ attributes: CSRObject?, _ range: CSRRange
    ) {
        point.mutation(
            r, cmd, valid: FoundationRules.platform == .gnustep && range.length == 0,
            else: MutableStringHooks.rangeFailure(range, r, method: "setAttributes:range:")
        ) { $0(r, cmd, attributes, range) }
    }

    static let removeAttribute: GuardedMethod<StringIMP.VoidWithObjectRange> = GuardedMethod(
        "removeAttribute:range:", .string,
        layers: [
            { removeAttribute(in: removeAttribute, $0, $1, $2, $3) },
            { removeAttribute(in: removeAttribute.layer(1), $0, $1, $2, $3) },
            { removeAttribute(in: removeAttribute.layer(2), $0, $1, $2, $3) },
        ])
    private static func removeAttribute(
        in point: GuardedMethod<StringIMP.VoidWithObjectRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ name: CSRObject?, _ range: CSRRange
    ) {
        point.mutation(r, cmd, MutableStringHooks.rangeFailure(range, r, method: "removeAttribute:range:")) {
            $0(r, cmd, name, range)
        }
    }

    // MARK: Reads

    /// Whether `attributesAtIndex:` accepts `index`: Apple below length; GNUstep up to length, comparing the low 32
    /// bits of both. A valid call runs Apple's check alone (`index < length`); the rules are asked only when it
    /// fails, where GNUstep accepts more (an attributed string of 2^32 characters or more aside).
    @inline(__always)
    static func attributeIndexFits(_ index: UInt, length: UInt) -> Bool {
        index < length || gnustepAttributeIndexFits(index, length: length)
    }

    @inline(never)
    private static func gnustepAttributeIndexFits(_ index: UInt, length: UInt) -> Bool {
        !FoundationRules.isApple && UInt32(truncatingIfNeeded: index) <= UInt32(truncatingIfNeeded: length)
    }

    private static let dictionaryClass = ObjCClass(named: "NSDictionary")
    private static let emptyDictionary = csr_sel_register("dictionary")
    /// The attribute reads' recovery: the effective range (if asked for) set to {NSNotFound, 0}, and an empty
    /// dictionary (`attributes*`), or nil (one attribute).
    private static func noAttributes(
        _ effective: UnsafeMutablePointer<CSRRange>?, dictionary: Bool = true
    ) -> CSRObject? {
        effective?.pointee = .notFound
        return dictionary ? dictionaryClass.flatMap { Messaging.sendObject($0.pointer, emptyDictionary) } : nil
    }

    /// Recovery: an empty attributed string (the original with {0, 0}).
    static let attributedSubstringFromRange: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "attributedSubstringFromRange:", .string,
        layers: [
            { attributedSubstringFromRange(in: attributedSubstringFromRange, $0, $1, $2) },
            { attributedSubstringFromRange(in: attributedSubstringFromRange.layer(1), $0, $1, $2) },
            { attributedSubstringFromRange(in: attributedSubstringFromRange.layer(2), $0, $1, $2) },
        ])
    private static func attributedSubstringFromRange(
        in point: GuardedMethod<IMP.ObjectWithRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange
    ) -> CSRObject? {
        let length = length(of: r)
        return point.read(
            r, cmd, valid: range.fits(in: length),
            else: .textRange(range, length: length, method: "attributedSubstringFromRange:"),
            recovery: { $0(r, cmd, .empty) }
        ) { $0(r, cmd, range) }
    }

    /// Recovery: an empty dictionary.
    static let attributesAtIndex: GuardedMethod<StringIMP.AttributesAtIndex> = GuardedMethod(
        "attributesAtIndex:effectiveRange:", .string,
        layers: [
            { attributesAtIndex(in: attributesAtIndex, $0, $1, $2, $3) },
            { attributesAtIndex(in: attributesAtIndex.layer(1), $0, $1, $2, $3) },
            { attributesAtIndex(in: attributesAtIndex.layer(2), $0, $1, $2, $3) },
        ])
    private static func attributesAtIndex(
        in point: GuardedMethod<StringIMP.AttributesAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt, _ effective: UnsafeMutablePointer<CSRRange>?
    ) -> CSRObject? {
        point.read(
            r, cmd, attributeIndexFits(index, length: length(of: r)) ? nil : .attributeIndex,
            recovery: { _ in noAttributes(effective) }
        ) { $0(r, cmd, index, effective) }
    }

    /// Recovery: nil.
    static let attributeAtIndex: GuardedMethod<StringIMP.AttributeAtIndex> = GuardedMethod(
        "attribute:atIndex:effectiveRange:", .string,
        layers: [
            { attributeAtIndex(in: attributeAtIndex, $0, $1, $2, $3, $4) },
            { attributeAtIndex(in: attributeAtIndex.layer(1), $0, $1, $2, $3, $4) },
            { attributeAtIndex(in: attributeAtIndex.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func attributeAtIndex(
        in point: GuardedMethod<StringIMP.AttributeAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ name: CSRObject?, _ index: UInt, _ effective: UnsafeMutablePointer<CSRRange>?
    ) -> CSRObject? {
        point.read(
            r, cmd, attributeIndexFits(index, length: length(of: r)) ? nil : .attributeIndex,
            recovery: { _ in noAttributes(effective, dictionary: false) }
        ) { $0(r, cmd, name, index, effective) }
    }

    /// The longest-effective-range reads check the range limit first, `NSMaxRange(limit) > length` in C's wrapping
    /// arithmetic (a limit whose end wraps past 2^64 passes, and GNUstep's walk then stays within the string), then
    /// call `attributesAtIndex:effectiveRange:` and walk from the range it gave: a bad index is stopped here, at the
    /// app's call, before Foundation's walk starts (recovered inside it, GNUstep's walk would go on from a made-up
    /// range forever). Recovery: an empty dictionary.
    static let attributesInRange: GuardedMethod<StringIMP.AttributesAtIndexInRange> = GuardedMethod(
        "attributesAtIndex:longestEffectiveRange:inRange:", .string,
        layers: [
            { attributesInRange(in: attributesInRange, $0, $1, $2, $3, $4) },
            { attributesInRange(in: attributesInRange.layer(1), $0, $1, $2, $3, $4) },
            { attributesInRange(in: attributesInRange.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func attributesInRange(
        in point: GuardedMethod<StringIMP.AttributesAtIndexInRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt, _ effective: UnsafeMutablePointer<CSRRange>?, _ limit: CSRRange
    ) -> CSRObject? {
        let failure = longestRangeFailure(r, index, limit, name: true, beyondLimit: .attributesLimit)
        return point.read(r, cmd, failure, recovery: { _ in noAttributes(effective) }) {
            $0(r, cmd, index, effective, limit)
        }
    }

    /// As `attributesInRange`, for one attribute (past the limit's check, a nil name returns nil before the index is
    /// read). Recovery: nil.
    static let attributeInRange: GuardedMethod<StringIMP.AttributeAtIndexInRange> = GuardedMethod(
        "attribute:atIndex:longestEffectiveRange:inRange:", .string,
        layers: [
            { attributeInRange(in: attributeInRange, $0, $1, $2, $3, $4, $5) },
            { attributeInRange(in: attributeInRange.layer(1), $0, $1, $2, $3, $4, $5) },
            { attributeInRange(in: attributeInRange.layer(2), $0, $1, $2, $3, $4, $5) },
        ])
    private static func attributeInRange(
        in point: GuardedMethod<StringIMP.AttributeAtIndexInRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ name: CSRObject?, _ index: UInt, _ effective: UnsafeMutablePointer<CSRRange>?, _ limit: CSRRange
    ) -> CSRObject? {
        let failure = longestRangeFailure(r, index, limit, name: name != nil, beyondLimit: .attributeLimit)
        return point.read(r, cmd, failure, recovery: { _ in noAttributes(effective, dictionary: false) }) {
            $0(r, cmd, name, index, effective, limit)
        }
    }

    /// A limit past the end raises GNUstep's `beyondLimit`; under Apple's rules it is left to Foundation (its
    /// precondition there is unverified). Then, with a `name`, the index.
    private static func longestRangeFailure(
        _ r: CSRObject?, _ index: UInt, _ limit: CSRRange, name: Bool, beyondLimit: Violation
    ) -> Violation? {
        let length = length(of: r)
        if !limit.endFits(in: length) { return FoundationRules.isApple ? nil : beyondLimit }
        return !name || attributeIndexFits(index, length: length) ? nil : .attributeIndex
    }

    /// Recovery: an empty attributed string.
    static let initWithString: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "initWithString:", .string,
        layers: [
            { initWithString(in: initWithString, $0, $1, $2) },
            { initWithString(in: initWithString.layer(1), $0, $1, $2) },
            { initWithString(in: initWithString.layer(2), $0, $1, $2) },
        ])
    private static func initWithString(
        in point: GuardedMethod<IMP.ObjectWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ string: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: string != nil, else: .nilAttributedInit,
            recovery: { $0(r, cmd, csr_string_create("")) }
        ) { $0(r, cmd, string) }
    }
}
