import CrashShieldRuntime.Internal

/// NSAttributedString and NSMutableAttributedString: ranges and indexes past the end, a nil string. Recovery as in
/// `StringGuard`: an empty attributed string, an empty attribute dictionary or nil (the effective range, if asked
/// for, is {NSNotFound, 0}); an invalid mutation is skipped; `initWithString:nil` builds an empty attributed string.
///
/// GNUstep accepts `attributesAtIndex:length` (an empty dictionary), and reads attributes through a helper taking
/// `unsigned` index and length: an index of 2^32 or more is cut to its low 32 bits and answers
/// (`attributesAtIndex:2^32` is `attributesAtIndex:0`). Apple raises from index length on, 2^32 and above included.
enum AttributedStringGuard {
    typealias M = StringMessages
    private static let rangeHint = "check the index or range against length before the call"

    static func install(in context: GuardContext) throws {
        guard let attributed = ClassFamily("NSAttributedString", "NSMutableAttributedString"),
              let mutable = ClassFamily("NSMutableAttributedString") else { return }
        for point in [attributedSubstringFromRange, attributesAtIndex, attributeAtIndex, attributesInRange,
                      attributeInRange, initWithString] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: attributed)
        }
        // The same replacement serves plain mutable strings (an unrelated class hierarchy: no nesting).
        for point in [MutableStringGuard.replaceCharactersInRange, deleteCharactersInRange] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
        for point in [addAttribute, addAttributes, setAttributes, removeAttribute] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
    }

    // MARK: Attribute mutations (skipped when invalid)

    /// GNUstep: after the range check, each run the range covers gets a copy of its attribute dictionary with
    /// `value` set for `name`, so a nil name or value raises there, the name first (a nil name stopped inside that
    /// dictionary would leave the runs split: the guard checks before the original runs). An empty range covers a run
    /// only when it starts inside one (`reachesAttributeDictionary`). Apple: a nil value raises.
    static let addAttribute: HookPoint<StringIMP.VoidWithObjectObjectRange> = HookPoint("addAttribute:value:range:") { receiver, cmd, name, value, range in
        guard let original = addAttribute.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        guard let failure = addAttributeFailure(receiver, name, value, range, length: length) else {
            return original(receiver, cmd, name, value, range)
        }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, addAttribute, failure.exception, hint: failure.hint,
                                    reason: failure.reason) { return }
        original(receiver, cmd, name, value, range)
    }

    private typealias Failure = (exception: String, hint: String, reason: (String) -> String)

    private static func addAttributeFailure(_ receiver: CSRObject?, _ name: CSRObject?, _ value: CSRObject?,
                                            _ range: CSRRange, length: UInt) -> Failure? {
        guard range.fits(in: length) else {
            return (M.range, rangeHint, {
                M.mutationRange(range.value, length: length, method: "addAttribute:value:range:", appleMethod: "addAttribute:value:range:", cls: $0)
            })
        }
        let nilValue: Failure = (M.invalidArgument, "check the attribute value for nil", {
            M.nilAttributeValue(name: String(describing: name, limit: 256), cls: $0)
        })
        #if canImport(Darwin)
        return value == nil ? nilValue : nil
        #else
        guard name == nil || value == nil, reachesAttributeDictionary(receiver, range) else { return nil }
        return name == nil ? (M.invalidArgument, "check the attribute name for nil", { _ in "Tried to add nil key to dictionary" }) : nilValue
        #endif
    }

    /// Whether GNUstep's loop over the runs in `range` runs at all: the range is not empty, or it starts inside a
    /// run (after the run's first character).
    private static func reachesAttributeDictionary(_ receiver: CSRObject?, _ range: CSRRange) -> Bool {
        if range.length > 0 { return true }
        var effective = CSRRange(location: 0, length: 0)
        let read = Messaging.implementation(receiver, attributesSelector, as: StringIMP.AttributesAtIndex.self)
        _ = read(receiver, attributesSelector, range.location, &effective)
        return effective.location < range.location
    }
    private static let attributesSelector = csr_sel_register("attributesAtIndex:effectiveRange:")

    /// GNUstep checks the dictionary before the range. (Apple's behaviour for nil is not guarded here.)
    static let addAttributes: HookPoint<StringIMP.VoidWithObjectRange> = HookPoint("addAttributes:range:") { receiver, cmd, attributes, range in
        #if !canImport(Darwin)
        if attributes == nil, let original = addAttributes.original(for: receiver) {
            if GuardFailure.stopOrRaise(.string, receiver, cmd, addAttributes, M.invalidArgument, hint: "check the attributes for nil", reason: { _ in
                "attributes is nil in method -addAttributes:range: in class NSMutableAtrributedString"
            }) { return }
            return original(receiver, cmd, attributes, range)
        }
        #endif
        rangeChecked(addAttributes, receiver, cmd, attributes, range) { M.addAttributesRange(range.value, length: $1, cls: $0) }
    }

    /// GNUstep returns before its range check for an empty range (with a warning).
    static let setAttributes: HookPoint<StringIMP.VoidWithObjectRange> = HookPoint("setAttributes:range:") { receiver, cmd, attributes, range in
        #if !canImport(Darwin)
        if range.length == 0, let original = setAttributes.original(for: receiver) { return original(receiver, cmd, attributes, range) }
        #endif
        rangeChecked(setAttributes, receiver, cmd, attributes, range) {
            M.mutationRange(range.value, length: $1, method: "setAttributes:range:", appleMethod: "setAttributes:range:", cls: $0)
        }
    }

    static let removeAttribute: HookPoint<StringIMP.VoidWithObjectRange> = HookPoint("removeAttribute:range:") { receiver, cmd, name, range in
        rangeChecked(removeAttribute, receiver, cmd, name, range) {
            M.mutationRange(range.value, length: $1, method: "removeAttribute:range:", appleMethod: "removeAttribute:range:", cls: $0)
        }
    }

    /// An attribute mutation taking (object, range): checks the range, skips the call when it does not fit.
    @inline(__always)
    private static func rangeChecked(_ point: HookPoint<StringIMP.VoidWithObjectRange>, _ receiver: CSRObject?,
                                     _ cmd: CSRSelector?, _ argument: CSRObject?, _ range: CSRRange,
                                     reason: (String, UInt) -> String) {
        guard let original = point.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, argument, range) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, point, M.range, hint: rangeHint, reason: { reason($0, length) }) { return }
        original(receiver, cmd, argument, range)
    }

    /// Whether `attributesAtIndex:` accepts `index`: Apple below length; GNUstep up to length, comparing the low 32
    /// bits of both.
    @inline(__always)
    static func attributeIndexFits(_ index: UInt, length: UInt) -> Bool {
        #if canImport(Darwin)
        return index < length
        #else
        return UInt32(truncatingIfNeeded: index) <= UInt32(truncatingIfNeeded: length)
        #endif
    }

    private static let notFound = CSRRange(location: UInt(Int.max), length: 0)
    private static let dictionaryClass = ObjCClass(named: "NSDictionary")
    private static let emptyDictionary = csr_sel_register("dictionary")

    /// Recovery: an empty attributed string (the original with {0, 0}).
    static let attributedSubstringFromRange: HookPoint<ContainerIMP.ObjectWithRange> = HookPoint("attributedSubstringFromRange:") { receiver, cmd, range in
        guard let original = attributedSubstringFromRange.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, range) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, attributedSubstringFromRange, M.range, hint: rangeHint, reason: {
            #if canImport(Darwin)
            "*** -[\($0) attributedSubstringFromRange:]: Range {\(range.location), \(range.length)} out of bounds; string length \(length)"
            #else
            M.range(range.value, length: length, method: "attributedSubstringFromRange:", cls: $0)
            #endif
        }) { return original(receiver, cmd, CSRRange(location: 0, length: 0)) }
        return original(receiver, cmd, range)
    }

    /// Recovery: an empty dictionary.
    static let attributesAtIndex: HookPoint<StringIMP.AttributesAtIndex> = HookPoint("attributesAtIndex:effectiveRange:") { receiver, cmd, index, effective in
        guard let original = attributesAtIndex.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if attributeIndexFits(index, length: length) { return original(receiver, cmd, index, effective) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, attributesAtIndex, M.range, hint: rangeHint, reason: {
            M.attributeIndex(index, length: length, cls: $0)
        }) {
            effective?.pointee = notFound
            return dictionaryClass.flatMap { Messaging.sendObject($0.pointer, emptyDictionary) }
        }
        return original(receiver, cmd, index, effective)
    }

    /// Recovery: nil.
    static let attributeAtIndex: HookPoint<StringIMP.AttributeAtIndex> = HookPoint("attribute:atIndex:effectiveRange:") { receiver, cmd, name, index, effective in
        guard let original = attributeAtIndex.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if attributeIndexFits(index, length: length) { return original(receiver, cmd, name, index, effective) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, attributeAtIndex, M.range, hint: rangeHint, reason: {
            M.attributeIndex(index, length: length, cls: $0)
        }) {
            effective?.pointee = notFound
            return nil
        }
        return original(receiver, cmd, name, index, effective)
    }

    /// The longest-effective-range reads call `attributesAtIndex:effectiveRange:` and then walk from the range it
    /// gave: a bad index is stopped here, at the app's call, before Foundation's walk starts (recovered inside it,
    /// GNUstep's walk would go on from a made-up range forever). The range limit is Foundation's own check.
    /// Recovery: an empty dictionary.
    static let attributesInRange: HookPoint<StringIMP.AttributesAtIndexInRange> = HookPoint("attributesAtIndex:longestEffectiveRange:inRange:") { receiver, cmd, index, effective, limit in
        guard let original = attributesInRange.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if attributeIndexFits(index, length: length) || rejectsLimit(limit, length: length) {
            return original(receiver, cmd, index, effective, limit)
        }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, attributesInRange, M.range, hint: rangeHint, reason: {
            M.attributeIndex(index, length: length, cls: $0)
        }) {
            effective?.pointee = notFound
            return dictionaryClass.flatMap { Messaging.sendObject($0.pointer, emptyDictionary) }
        }
        return original(receiver, cmd, index, effective, limit)
    }

    /// Whether Foundation's own range-limit check raises first: `NSMaxRange(limit) > length`, in C's wrapping
    /// arithmetic (a limit whose end wraps past 2^64 passes it, and the walk then starts from the bad index).
    private static func rejectsLimit(_ limit: CSRRange, length: UInt) -> Bool {
        limit.location &+ limit.length > length
    }

    /// As `attributesInRange`, for one attribute. Recovery: nil.
    static let attributeInRange: HookPoint<StringIMP.AttributeAtIndexInRange> = HookPoint("attribute:atIndex:longestEffectiveRange:inRange:") { receiver, cmd, name, index, effective, limit in
        guard let original = attributeInRange.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        // A nil name returns nil before the index is read (GNUstep): nothing to stop.
        if name == nil || attributeIndexFits(index, length: length) || rejectsLimit(limit, length: length) {
            return original(receiver, cmd, name, index, effective, limit)
        }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, attributeInRange, M.range, hint: rangeHint, reason: {
            M.attributeIndex(index, length: length, cls: $0)
        }) {
            effective?.pointee = notFound
            return nil
        }
        return original(receiver, cmd, name, index, effective, limit)
    }

    /// Recovery: an empty attributed string.
    static let initWithString: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("initWithString:") { receiver, cmd, string in
        guard let original = initWithString.original(for: receiver) else { return nil }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, initWithString, M.invalidArgument,
                                    hint: "check the string for nil before the call (a JSON null or a failed lookup?)", reason: {
            M.nilInit("aString object passed to -[GSAttributedString initWithString:attributes:] is nil", cls: $0, method: "initWithString:")
        }) { return original(receiver, cmd, csr_string_create("")) }
        return original(receiver, cmd, string)
    }

    /// GNUstep checks in `replaceCharactersInRange:withString:`.
    static let deleteCharactersInRange: HookPoint<ContainerIMP.VoidWithRange> = HookPoint("deleteCharactersInRange:") { receiver, cmd, range in
        guard let original = deleteCharactersInRange.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, range) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, deleteCharactersInRange, M.range, hint: rangeHint, reason: {
            M.mutationRange(range.value, length: length, method: "replaceCharactersInRange:withString:",
                            appleMethod: "deleteCharactersInRange:", cls: $0)
        }) { return }
        original(receiver, cmd, range)
    }
}
