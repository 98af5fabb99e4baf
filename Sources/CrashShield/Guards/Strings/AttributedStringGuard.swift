import CrashShieldRuntime

/// NSAttributedString and NSMutableAttributedString: ranges and indexes past the end, a nil string. Recovery as in
/// `StringGuard`: an empty attributed string, an empty attribute dictionary or nil (the effective range, if asked
/// for, is {NSNotFound, 0}); an invalid mutation is skipped; `initWithString:nil` builds an empty attributed string.
///
/// GNUstep accepts `attributesAtIndex:length` (an empty dictionary); Apple raises from index length on.
enum AttributedStringGuard {
    typealias M = StringMessages
    private static let rangeHint = "check the index or range against length before the call"

    static func install(in context: GuardContext) throws {
        guard let attributed = ClassFamily("NSAttributedString", "NSMutableAttributedString"),
              let mutable = ClassFamily("NSMutableAttributedString") else { return }
        for point in [attributedSubstringFromRange, attributesAtIndex, attributeAtIndex, initWithString] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: attributed)
        }
        // The same replacement serves plain mutable strings (an unrelated class hierarchy: no nesting).
        for point in [MutableStringGuard.replaceCharactersInRange, deleteCharactersInRange] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
    }

    /// The last index `attributesAtIndex:` accepts is below this.
    @inline(__always)
    static func indexLimit(length: UInt) -> UInt {
        #if canImport(Darwin)
        return length
        #else
        return length &+ 1
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
        if GuardFailure.stop(.string, receiver, cmd, attributedSubstringFromRange, M.range, hint: rangeHint, reason: {
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
        if index < indexLimit(length: length) { return original(receiver, cmd, index, effective) }
        if GuardFailure.stop(.string, receiver, cmd, attributesAtIndex, M.range, hint: rangeHint, reason: {
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
        if index < indexLimit(length: length) { return original(receiver, cmd, name, index, effective) }
        if GuardFailure.stop(.string, receiver, cmd, attributeAtIndex, M.range, hint: rangeHint, reason: {
            M.attributeIndex(index, length: length, cls: $0)
        }) {
            effective?.pointee = notFound
            return nil
        }
        return original(receiver, cmd, name, index, effective)
    }

    /// Recovery: an empty attributed string.
    static let initWithString: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("initWithString:") { receiver, cmd, string in
        guard let original = initWithString.original(for: receiver) else { return nil }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stop(.string, receiver, cmd, initWithString, M.invalidArgument,
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
        if GuardFailure.stop(.string, receiver, cmd, deleteCharactersInRange, M.range, hint: rangeHint, reason: {
            M.mutationRange(range.value, length: length, method: "replaceCharactersInRange:withString:",
                            appleMethod: "deleteCharactersInRange:", cls: $0)
        }) { return }
        original(receiver, cmd, range)
    }
}
