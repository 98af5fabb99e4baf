import CrashShieldRuntime.Internal

/// The range-taking NSArray and NSOrderedSet methods left unguarded until issue 32: a range past the end raises
/// NSRangeException on both Foundations, also a range whose end wraps past 2^64.
/// - `-[NSArray indexOfObject:inRange:]`, `indexOfObjectIdenticalTo:inRange:`: GNUstep's generic implementations
///   (NSArray.m; GSArray does not override them) check with GS_RANGE_CHECK, which does not wrap (`fits(in:)`); Apple's
///   generic ones raise in NSArray's own code (`Violation.arraySearchRange`). Recovery: NSNotFound, as for an object
///   not in the range.
/// - `-[NSOrderedSet getObjects:range:]`: GNUstep's generic and GSOrderedSet's both check with GS_RANGE_CHECK;
///   Apple's `__NSOrderedSetI` checks before it copies (a location or length of 2^63 or more, or a wrapping end, raise
///   too; `Violation.orderedSetRange`). Recovery: the buffer untouched.
/// Left alone: `indexOfObject:inSortedRange:options:usingComparator:` (GNUstep 1.28 does not check the range: for a
/// length above 1 it copies `count` objects and reads the range from that buffer, past its end, without a raise),
/// `enumerateObjectsAtIndexes:options:usingBlock:`, `indexOfObjectAtIndexes:...`, `indexesOfObjectsAtIndexes:...`
/// (GNUstep sends `objectsAtIndexes:`, guarded).
enum RangeSearchHooks {
    typealias IndexOfObjectInRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRRange) -> UInt

    static func install(in context: GuardContext) throws {
        if let arrays = ClassFamily("NSArray", "NSMutableArray") {
            try context.install([indexOfObjectInRange, indexOfObjectIdenticalToInRange], onOwnersIn: arrays)
        }
        if let orderedSets = ClassFamily("NSOrderedSet", "NSMutableOrderedSet") {
            try context.install(orderedSetGetObjectsRange, onOwnersIn: orderedSets)
        }
    }

    static let indexOfObjectInRange: GuardedMethod<IndexOfObjectInRange> = GuardedMethod(
        "indexOfObject:inRange:", .container,
        layers: [
            { indexOf(in: indexOfObjectInRange, "indexOfObject:inRange:", $0, $1, $2, $3) },
            { indexOf(in: indexOfObjectInRange.layer(1), "indexOfObject:inRange:", $0, $1, $2, $3) },
            { indexOf(in: indexOfObjectInRange.layer(2), "indexOfObject:inRange:", $0, $1, $2, $3) },
        ])
    static let indexOfObjectIdenticalToInRange: GuardedMethod<IndexOfObjectInRange> = GuardedMethod(
        "indexOfObjectIdenticalTo:inRange:", .container,
        layers: [
            { indexOf(in: indexOfObjectIdenticalToInRange, "indexOfObjectIdenticalTo:inRange:", $0, $1, $2, $3) },
            {
                indexOf(
                    in: indexOfObjectIdenticalToInRange.layer(1), "indexOfObjectIdenticalTo:inRange:", $0, $1, $2, $3)
            },
            {
                indexOf(
                    in: indexOfObjectIdenticalToInRange.layer(2), "indexOfObjectIdenticalTo:inRange:", $0, $1, $2, $3)
            },
        ])
    private static func indexOf(
        in point: GuardedMethod<IndexOfObjectInRange>, _ method: String, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ range: CSRRange
    ) -> UInt {
        let count = count(of: r)
        return point.guarded(
            r, cmd, valid: range.fits(in: count), else: .arraySearchRange(range, count: count, method: method),
            unhooked: UInt(Int.max), recovery: { _ in UInt(Int.max) }
        ) { $0(r, cmd, object, range) }
    }

    static let orderedSetGetObjectsRange: GuardedMethod<ContainerIMP.VoidWithBufferRange> = GuardedMethod(
        "getObjects:range:", .container,
        layers: [
            { getObjects(in: orderedSetGetObjectsRange, $0, $1, $2, $3) },
            { getObjects(in: orderedSetGetObjectsRange.layer(1), $0, $1, $2, $3) },
            { getObjects(in: orderedSetGetObjectsRange.layer(2), $0, $1, $2, $3) },
        ])
    private static func getObjects(
        in point: GuardedMethod<ContainerIMP.VoidWithBufferRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ buffer: UnsafeMutablePointer<CSRObject?>?, _ range: CSRRange
    ) {
        let count = count(of: r)
        point.mutation(r, cmd, valid: range.fits(in: count), else: .orderedSetRange(range, count: count)) {
            $0(r, cmd, buffer, range)
        }
    }
}
