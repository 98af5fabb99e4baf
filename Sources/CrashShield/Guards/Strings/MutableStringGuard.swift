import CrashShieldRuntime.Internal

/// NSMutableString mutations at an index or range past the end. An invalid mutation is skipped (see `StringGuard`).
/// Legal on GNUstep and left alone: `appendString:nil`, `appendFormat:nil`, `setString:nil`, `insertString:nil
/// atIndex:i` for i <= length, `replaceCharactersInRange:r withString:nil` (deletes r). Under Apple's rules
/// (`FoundationRules`) `appendString:nil` raises and is guarded.
enum MutableStringGuard {
    typealias M = StringMessages
    private static let rangeHint = "check the index or range against length before the call"

    static func install(in context: GuardContext) throws {
        guard let mutable = ClassFamily("NSMutableString") else { return }
        try context.install(insertStringAtIndex, onOwnersIn: mutable)
        try context.install(replaceCharactersInRange, onOwnersIn: mutable)
        try context.install(layers: [deleteCharactersInRangeBase, deleteCharactersInRange], onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(appendString, onOwnersIn: mutable) }
    }

    /// Legal for index == length (appends). GNUstep checks in `replaceCharactersInRange:withString:`.
    static let insertStringAtIndex: HookPoint<ContainerIMP.VoidWithObjectIndex> = HookPoint("insertString:atIndex:") { receiver, cmd, string, index in
        guard let original = insertStringAtIndex.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if index <= length { return original(receiver, cmd, string, index) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, insertStringAtIndex, M.range, hint: rangeHint, reason: {
            M.mutationRange((index, 0), length: length, method: "replaceCharactersInRange:withString:",
                            appleMethod: "insertString:atIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, string, index)
    }

    /// Apple's rules only (GNUstep appends nothing). Apple's text unverified on a device.
    static let appendString: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("appendString:") { receiver, cmd, string in
        guard let original = appendString.original(for: receiver) else { return }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, appendString, M.invalidArgument,
                                    hint: "check the string for nil before appending it", reason: {
            FoundationMessages.apple($0, "appendString:", "nil argument")
        }) { return }
        original(receiver, cmd, string)
    }

    static let replaceCharactersInRange: HookPoint<ContainerIMP.VoidWithRangeObject> = HookPoint("replaceCharactersInRange:withString:") { receiver, cmd, range, string in
        guard let original = replaceCharactersInRange.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, range, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, replaceCharactersInRange, M.range, hint: rangeHint, reason: {
            M.mutationRange(range.value, length: length, method: "replaceCharactersInRange:withString:",
                            appleMethod: "replaceCharactersInRange:withString:", cls: $0)
        }) { return }
        original(receiver, cmd, range, string)
    }

    /// Two layers: NSMutableString's generic implementation (GNUstep: it checks in
    /// `replaceCharactersInRange:withString:`) under the concrete classes' own ones (which check in
    /// `deleteCharactersInRange:`).
    static let deleteCharactersInRange: HookPoint<ContainerIMP.VoidWithRange> = HookPoint("deleteCharactersInRange:") { receiver, cmd, range in
        deleteCharacters(deleteCharactersInRange, innerMethod: "deleteCharactersInRange:", receiver, cmd, range)
    }
    static let deleteCharactersInRangeBase: HookPoint<ContainerIMP.VoidWithRange> = HookPoint("deleteCharactersInRange:") { receiver, cmd, range in
        deleteCharacters(deleteCharactersInRangeBase, innerMethod: "replaceCharactersInRange:withString:", receiver, cmd, range)
    }

    static func deleteCharacters(_ point: HookPoint<ContainerIMP.VoidWithRange>, innerMethod: String,
                                 _ receiver: CSRObject?, _ cmd: CSRSelector?, _ range: CSRRange) {
        guard let original = point.original(for: receiver) else { return }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, range) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, point, M.range, hint: rangeHint, reason: {
            M.mutationRange(range.value, length: length, method: innerMethod, appleMethod: "deleteCharactersInRange:", cls: $0)
        }) { return }
        original(receiver, cmd, range)
    }
}
