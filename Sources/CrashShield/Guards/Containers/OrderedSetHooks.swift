import CrashShieldRuntime.Internal

/// NSOrderedSet and NSMutableOrderedSet: index and nil checks. See `ContainerGuard` for the recovery rules.
///
/// On GNUstep an index past the end fails an internal assertion (NSInternalInconsistencyException, see
/// `Violation.orderedSetIndex`); Apple raises NSRangeException. GNUstep's storage (GSIArray) takes `unsigned`
/// indexes: an index of 2^32 or more is cut to its low 32 bits and answers (`o[2^32]` is `o[0]`), so only an index
/// whose low 32 bits are past the end raises there (`indexFits`); Apple raises for every index past the end. GNUstep
/// accepts an insertion past the end (it appends), so that is guarded under Apple's rules only. Legal calls stay
/// unguarded: `containsObject:nil`, `indexOfObject:nil`, `removeObject:nil`, `o[count] = x` (appends).
enum OrderedSetHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let orderedSets = ClassFamily("NSOrderedSet", "NSMutableOrderedSet"),
            let mutable = ClassFamily("NSMutableOrderedSet")
        else { return }
        try context.install(
            [initWithObjectsCount, objectAtIndex, objectAtIndexedSubscript, objectsAtIndexes], onOwnersIn: orderedSets)
        try context.install(
            [
                SetHooks.addObject, insertObjectAtIndex, removeObjectAtIndex, replaceObjectAtIndex,
                setObjectAtIndexedSubscript, exchangeObjects,
            ], onOwnersIn: mutable)
        // GNUstep's rules only: Apple's preconditions for it are unverified (see `moveObjectsAtIndexes`).
        if !FoundationRules.isApple { try context.install(moveObjectsAtIndexes, onOwnersIn: mutable) }
    }

    /// Whether an index reaches an element: on GNUstep, its low 32 bits (GSIArray's `unsigned` index) must. A valid
    /// call runs Apple's check alone (`index < count`); the rules are asked only when it fails, where GNUstep accepts
    /// more.
    @inline(__always)
    static func indexFits(_ index: UInt, count: UInt) -> Bool {
        index < count || gnustepIndexFits(index, count: count)
    }

    @inline(never)
    private static func gnustepIndexFits(_ index: UInt, count: UInt) -> Bool {
        !FoundationRules.isApple && UInt(UInt32(truncatingIfNeeded: index)) < count
    }

    /// GNUstep's text for a nil object added to a mutable ordered set (also when one is built with nil), the sets'
    /// own: `addObject:` is `SetHooks.addObject`.
    private static let addNil = "Tried to add nil to set"
    private static let mutableRoot = ObjCClass(named: "NSMutableOrderedSet")
    private static func isMutable(_ r: CSRObject?) -> Bool {
        mutableRoot.map { ObjCClass(of: r)?.isKind(of: $0) ?? false } ?? false
    }

    // MARK: Construction and reads

    /// Behind `orderedSetWithObjects:count:`, `orderedSetWithObject:`; GNUstep's mutable ordered set adds the objects
    /// one by one. Recovery: the ordered set of the non-nil objects.
    static let initWithObjectsCount: GuardedMethod<IMP.InitWithObjectsCount> = GuardedMethod(
        "initWithObjects:count:", .container,
        layers: [
            { initWithObjectsCount(in: initWithObjectsCount, $0, $1, $2, $3) },
            { initWithObjectsCount(in: initWithObjectsCount.layer(1), $0, $1, $2, $3) },
            { initWithObjectsCount(in: initWithObjectsCount.layer(2), $0, $1, $2, $3) },
        ])
    private static func initWithObjectsCount(
        in point: GuardedMethod<IMP.InitWithObjectsCount>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ objects: UnsafePointer<CSRObject?>?, _ count: UInt
    ) -> CSRObject? {
        ContainerFailure.initWithObjects(
            point, isMutable(r) ? addNil : "Tried to init set with nil value", r, cmd, objects, count)
    }

    static let objectAtIndex: GuardedMethod<IMP.ObjectAtIndex> = GuardedMethod(
        "objectAtIndex:", .container,
        layers: [
            { objectAtIndex(in: objectAtIndex, $0, $1, $2) }, { objectAtIndex(in: objectAtIndex.layer(1), $0, $1, $2) },
            { objectAtIndex(in: objectAtIndex.layer(2), $0, $1, $2) },
        ])
    private static func objectAtIndex(
        in point: GuardedMethod<IMP.ObjectAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt
    ) -> CSRObject? {
        read(point, r, cmd, index)
    }
    static let objectAtIndexedSubscript: GuardedMethod<IMP.ObjectAtIndex> = GuardedMethod(
        "objectAtIndexedSubscript:", .container,
        layers: [
            { objectAtIndexedSubscript(in: objectAtIndexedSubscript, $0, $1, $2) },
            { objectAtIndexedSubscript(in: objectAtIndexedSubscript.layer(1), $0, $1, $2) },
            { objectAtIndexedSubscript(in: objectAtIndexedSubscript.layer(2), $0, $1, $2) },
        ])
    private static func objectAtIndexedSubscript(
        in point: GuardedMethod<IMP.ObjectAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt
    ) -> CSRObject? {
        read(point, r, cmd, index)
    }

    /// One element by index. Recovery: nil.
    private static func read(
        _ point: GuardedMethod<IMP.ObjectAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?, _ index: UInt
    ) -> CSRObject? {
        let count = count(of: r)
        return point.read(
            r, cmd, valid: indexFits(index, count: count),
            else: .orderedSetIndex(index, count: count, method: point.selector.name)
        ) {
            $0(r, cmd, index)
        }
    }

    /// Recovery: nil. A nil index set is left alone (GNUstep loops on it rather than raising). Every index is read
    /// in turn; on GNUstep the first one whose low 32 bits are past the end raises ({0, 2^32} reads o[0] twice).
    static let objectsAtIndexes: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "objectsAtIndexes:", .container,
        layers: [
            { objectsAtIndexes(in: objectsAtIndexes, $0, $1, $2) },
            { objectsAtIndexes(in: objectsAtIndexes.layer(1), $0, $1, $2) },
            { objectsAtIndexes(in: objectsAtIndexes.layer(2), $0, $1, $2) },
        ])
    private static func objectsAtIndexes(
        in point: GuardedMethod<IMP.ObjectWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ indexes: CSRObject?
    ) -> CSRObject? {
        point.read(r, cmd, indexes.flatMap { indexSetFailure($0, count: count(of: r)) }) { $0(r, cmd, indexes) }
    }

    private static func indexSetFailure(_ indexes: CSRObject, count: UInt) -> Violation? {
        guard let last = probe(indexes, ContainerSelectors.lastIndex) else { return nil }  // not an index set
        if last == UInt(Int.max) || last < count { return nil }  // NSNotFound: empty set
        var failing = last
        if !FoundationRules.isApple {  // GNUstep reads each index in turn, cut to 32 bits (see `indexFits`)
            IndexSets.forEach(indexes) { index in
                failing = index
                return indexFits(index, count: count)
            }
            if indexFits(failing, count: count) { return nil }
        }
        return .orderedSetIndex(
            failing, count: count, method: "objectsAtIndexes:", hint: "check the index set against count")
    }

    // MARK: Mutations (an invalid one is skipped)

    /// A nil object; under Apple's rules also an index past count (GNUstep appends).
    static let insertObjectAtIndex: GuardedMethod<IMP.VoidWithObjectIndex> = GuardedMethod(
        "insertObject:atIndex:", .container,
        layers: [
            { insertObjectAtIndex(in: insertObjectAtIndex, $0, $1, $2, $3) },
            { insertObjectAtIndex(in: insertObjectAtIndex.layer(1), $0, $1, $2, $3) },
            { insertObjectAtIndex(in: insertObjectAtIndex.layer(2), $0, $1, $2, $3) },
        ])
    private static func insertObjectAtIndex(
        in point: GuardedMethod<IMP.VoidWithObjectIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ index: UInt
    ) {
        var violation: Violation? = object != nil ? nil : .nilArgument(addNil, method: "insertObject:atIndex:")
        if FoundationRules.isApple {  // GNUstep appends for an index past count
            let count = count(of: r)
            if index > count {
                violation = .orderedSetIndex(
                    index, count: count, method: "insertObject:atIndex:", hint: "insert at an index from 0 to count")
            }
        }
        point.mutation(r, cmd, violation) { $0(r, cmd, object, index) }
    }

    static let removeObjectAtIndex: GuardedMethod<IMP.VoidWithIndex> = GuardedMethod(
        "removeObjectAtIndex:", .container,
        layers: [
            { removeObjectAtIndex(in: removeObjectAtIndex, $0, $1, $2) },
            { removeObjectAtIndex(in: removeObjectAtIndex.layer(1), $0, $1, $2) },
            { removeObjectAtIndex(in: removeObjectAtIndex.layer(2), $0, $1, $2) },
        ])
    private static func removeObjectAtIndex(
        in point: GuardedMethod<IMP.VoidWithIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt
    ) {
        let count = count(of: r)
        point.mutation(
            r, cmd,
            indexFits(index, count: count)
                ? nil
                : .orderedSetIndex(index, count: count, method: "removeObjectAtIndex:")
        ) { $0(r, cmd, index) }
    }

    /// The index is checked before the object (GNUstep removes, then inserts: a nil object raises after the removal;
    /// the guard skips the whole call).
    static let replaceObjectAtIndex: GuardedMethod<IMP.VoidWithIndexObject> = GuardedMethod(
        "replaceObjectAtIndex:withObject:", .container,
        layers: [
            { replaceObjectAtIndex(in: replaceObjectAtIndex, $0, $1, $2, $3) },
            { replaceObjectAtIndex(in: replaceObjectAtIndex.layer(1), $0, $1, $2, $3) },
            { replaceObjectAtIndex(in: replaceObjectAtIndex.layer(2), $0, $1, $2, $3) },
        ])
    private static func replaceObjectAtIndex(
        in point: GuardedMethod<IMP.VoidWithIndexObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt, _ object: CSRObject?
    ) {
        point.mutation(
            r, cmd, replacementFailure(r, index, object, appends: false, method: "replaceObjectAtIndex:withObject:")
        ) {
            $0(r, cmd, index, object)
        }
    }

    /// `o[i] = x`: legal for i == count (appends); any other index replaces (GNUstep: `replaceObjectAtIndex:withObject:`,
    /// whose index is cut to 32 bits).
    static let setObjectAtIndexedSubscript: GuardedMethod<IMP.VoidWithObjectIndex> = GuardedMethod(
        "setObject:atIndexedSubscript:", .container,
        layers: [
            { setObjectAtIndexedSubscript(in: setObjectAtIndexedSubscript, $0, $1, $2, $3) },
            { setObjectAtIndexedSubscript(in: setObjectAtIndexedSubscript.layer(1), $0, $1, $2, $3) },
            { setObjectAtIndexedSubscript(in: setObjectAtIndexedSubscript.layer(2), $0, $1, $2, $3) },
        ])
    private static func setObjectAtIndexedSubscript(
        in point: GuardedMethod<IMP.VoidWithObjectIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ index: UInt
    ) {
        point.mutation(
            r, cmd, replacementFailure(r, index, object, appends: true, method: "setObject:atIndexedSubscript:")
        ) {
            $0(r, cmd, object, index)
        }
    }

    private static func replacementFailure(
        _ r: CSRObject?, _ index: UInt, _ object: CSRObject?, appends: Bool, method: String
    ) -> Violation? {
        let count = count(of: r)
        guard (appends && index == count) || indexFits(index, count: count) else {
            return .orderedSetIndex(
                index, count: count, method: method, hint: appends ? "assign at an index from 0 to count" : Hint.index)
        }
        return object != nil ? nil : .nilArgument(addNil, method: method)
    }

    /// Foundation names the first index that is out of range.
    static let exchangeObjects: GuardedMethod<IMP.VoidWithIndexIndex> = GuardedMethod(
        "exchangeObjectAtIndex:withObjectAtIndex:", .container,
        layers: [
            { exchangeObjects(in: exchangeObjects, $0, $1, $2, $3) },
            { exchangeObjects(in: exchangeObjects.layer(1), $0, $1, $2, $3) },
            { exchangeObjects(in: exchangeObjects.layer(2), $0, $1, $2, $3) },
        ])
    private static func exchangeObjects(
        in point: GuardedMethod<IMP.VoidWithIndexIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ first: UInt, _ second: UInt
    ) {
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: first < count && second < count,
            else: .orderedSetExchange(first >= count ? first : second, count: count)
        ) {
            $0(r, cmd, first, second)
        }
    }

    /// GNUstep only (Apple's preconditions are unverified: left alone there). GNUstep reads every index, then removes
    /// the objects one by one at their original indexes, in ascending order, without adjusting them for the removals
    /// before: the k-th index must be below count - k (its low 32 bits, GSIArray's), or the removal fails an
    /// assertion with the k objects before it already removed. The guard checks before the original runs and skips
    /// the whole call.
    static let moveObjectsAtIndexes: GuardedMethod<IMP.VoidWithObjectIndex> = GuardedMethod(
        "moveObjectsAtIndexes:toIndex:", .container,
        layers: [
            { moveObjectsAtIndexes(in: moveObjectsAtIndexes, $0, $1, $2, $3) },
            { moveObjectsAtIndexes(in: moveObjectsAtIndexes.layer(1), $0, $1, $2, $3) },
            { moveObjectsAtIndexes(in: moveObjectsAtIndexes.layer(2), $0, $1, $2, $3) },
        ])
    private static func moveObjectsAtIndexes(
        in point: GuardedMethod<IMP.VoidWithObjectIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ indexes: CSRObject?, _ index: UInt
    ) {
        point.mutation(r, cmd, moveFailure(r, indexes)) { $0(r, cmd, indexes, index) }
    }

    private static func moveFailure(_ r: CSRObject?, _ indexes: CSRObject?) -> Violation? {
        guard probe(indexes, ContainerSelectors.lastIndex) != nil else { return nil }  // nil, or not an index set
        let count = count(of: r)
        var failing: UInt?, removed: UInt = 0
        IndexSets.forEach(indexes) { index in
            if !indexFits(index, count: count) || !indexFits(index, count: count &- removed) { failing = index }
            removed += 1
            return failing == nil && removed <= count
        }
        return failing.map {
            .orderedSetIndex(
                $0, count: count, method: "moveObjectsAtIndexes:toIndex:", hint: "check the index set against count")
        }
    }
}
