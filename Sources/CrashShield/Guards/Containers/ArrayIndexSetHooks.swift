import CrashShieldRuntime.Internal

/// NSMutableArray's `replaceObjectsAtIndexes:withObjects:` and `removeObject:inRange:`.
///
/// `replaceObjectsAtIndexes:withObjects:` (GNUstep 1.28, NSArray.m, NSMutableArray's generic implementation, which
/// every mutable array inherits) pairs the index set's indexes, in ascending order, with the objects and replaces
/// one at a time through `replaceObjectAtIndex:withObject:`, stopping at the shorter of the two: a count mismatch
/// is accepted, and the first index used that is past the end raises there (`Index i is out of range n (in
/// 'replaceObjectAtIndex:withObject:')`) after the replacements before it were made. A nil index set is walked as
/// index 0 over and over (`[nil firstIndex]` is 0: every object replaces index 0 in turn), a nil object array
/// replaces nothing. The guard checks the whole call first, so a stopped call changes nothing (the inner guard
/// alone would skip only the failing replacement). Apple raises for a count mismatch and a nil index set too
/// (texts unverified on a device), guarded under Apple's rules only.
///
/// `removeObject:inRange:` (NSArray.m): GNUstep clamps the range's end to `count` (a range past the end, or one
/// whose end wraps past 2^64, removes what it covers or nothing) and warns for nil: it raises for nothing, and is
/// hooked under Apple's rules only, where a range past the end raises (`range(_:count:method:)`, unverified text).
enum ArrayIndexSetHooks {
    typealias IMP = ContainerIMP
    typealias RemoveObjectInRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRRange) -> Void

    static func install(in context: GuardContext) throws {
        guard let mutable = ClassFamily("NSMutableArray") else { return }
        try context.install(replaceObjectsAtIndexes, onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(removeObjectInRange, onOwnersIn: mutable) }
    }

    static let replaceObjectsAtIndexes: GuardedMethod<IMP.VoidWithObjectObject> = GuardedMethod(
        "replaceObjectsAtIndexes:withObjects:", .container,
        layers: [
            { replaceObjectsAtIndexes(in: replaceObjectsAtIndexes, $0, $1, $2, $3) },
            { replaceObjectsAtIndexes(in: replaceObjectsAtIndexes.layer(1), $0, $1, $2, $3) },
            { replaceObjectsAtIndexes(in: replaceObjectsAtIndexes.layer(2), $0, $1, $2, $3) },
        ])
    private static func replaceObjectsAtIndexes(
        in point: GuardedMethod<IMP.VoidWithObjectObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ indexes: CSRObject?, _ objects: CSRObject?
    ) {
        point.mutation(r, cmd, replacementFailure(indexes, objects, count: count(of: r))) {
            $0(r, cmd, indexes, objects)
        }
    }

    /// Why the call raises, if it does (nil where an argument is not an index set or an array: Foundation's own).
    private static func replacementFailure(_ indexes: CSRObject?, _ objects: CSRObject?, count: UInt) -> Violation? {
        let hint = "check the index set against count, and that it has one index per object"
        let replacing = probe(objects, Selectors.count)
        let last = probe(indexes, ContainerSelectors.lastIndex)  // an index set answers it, an array does not
        if (objects != nil && replacing == nil) || (indexes != nil && last == nil) { return nil }
        let used = indexes.map { Messaging.sendUInt($0, Selectors.count) }
        if FoundationRules.isApple {
            if indexes == nil || objects == nil {
                return .fixed(
                    ExceptionName.invalidArgument, "", method: "replaceObjectsAtIndexes:withObjects:",
                    apple: indexes == nil ? "index set cannot be nil" : "objects array cannot be nil", hint: hint)
            }
            if used != replacing {
                return .fixed(
                    ExceptionName.invalidArgument, "", method: "replaceObjectsAtIndexes:withObjects:",
                    apple: "count of array (\(replacing ?? 0)) differs from count of index set (\(used ?? 0))",
                    hint: hint)
            }
            guard let last, last != UInt(Int.max), last >= count else { return nil }
            return .index(last, count: count, method: "replaceObjectsAtIndexes:withObjects:", hint: hint)
        }
        guard let replacing, replacing > 0 else { return nil }
        guard let indexes else {
            return count == 0 ? .index(0, count: 0, method: "replaceObjectAtIndex:withObject:", hint: hint) : nil
        }
        var failure: Violation?
        var position: UInt = 0
        IndexSets.forEach(indexes) { index in
            guard position < replacing else { return false }
            if index >= count {
                failure = .index(index, count: count, method: "replaceObjectAtIndex:withObject:", hint: hint)
                return false
            }
            position += 1
            return true
        }
        return failure
    }

    /// Apple's rules only (GNUstep accepts every range).
    static let removeObjectInRange: GuardedMethod<RemoveObjectInRange> = GuardedMethod(
        "removeObject:inRange:", .container,
        layers: [
            { removeObjectInRange(in: removeObjectInRange, $0, $1, $2, $3) },
            { removeObjectInRange(in: removeObjectInRange.layer(1), $0, $1, $2, $3) },
            { removeObjectInRange(in: removeObjectInRange.layer(2), $0, $1, $2, $3) },
        ])
    private static func removeObjectInRange(
        in point: GuardedMethod<RemoveObjectInRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ range: CSRRange
    ) {
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: range.fits(in: count), else: .range(range, count: count, method: "removeObject:inRange:")
        ) {
            $0(r, cmd, object, range)
        }
    }
}
