import CrashShieldRuntime.Internal

/// NSOrderedSet and NSMutableOrderedSet: index and nil checks. See `ContainerGuard` for the recovery rules.
///
/// On GNUstep an index past the end fails an internal assertion (NSInternalInconsistencyException, see
/// `FoundationMessages.orderedSetRange`); Apple raises NSRangeException. GNUstep's storage (GSIArray) takes
/// `unsigned` indexes: an index of 2^32 or more is cut to its low 32 bits and answers (`o[2^32]` is `o[0]`), so only
/// an index whose low 32 bits are past the end raises there (`indexFits`); Apple raises for every index past the
/// end. GNUstep accepts an insertion past the end (it appends), so that is guarded on Apple platforms only. Legal
/// calls stay unguarded: `containsObject:nil`, `indexOfObject:nil`, `removeObject:nil`, `o[count] = x` (appends).
enum OrderedSetGuard {
    typealias M = FoundationMessages
    private static let outOfRangeHint = "check the index against count before the call"
    private static let nilHint = "check the object for nil before adding it (a JSON null or a failed lookup?)"
    private static let mutableRoot = ObjCClass(named: "NSMutableOrderedSet")

    static func install(in context: GuardContext) throws {
        guard let orderedSets = ClassFamily("NSOrderedSet", "NSMutableOrderedSet"),
              let mutable = ClassFamily("NSMutableOrderedSet") else { return }
        for point in [initWithObjectsCount, objectAtIndex, objectAtIndexedSubscript, objectsAtIndexes] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: orderedSets)
        }
        for point in [addObject, insertObjectAtIndex, removeObjectAtIndex, replaceObjectAtIndex, setObjectAtIndexedSubscript,
                      exchangeObjects] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
    }

    /// Whether an index reaches an element: on GNUstep, its low 32 bits (GSIArray's `unsigned` index) must.
    @inline(__always)
    static func indexFits(_ index: UInt, count: UInt) -> Bool {
        #if canImport(Darwin)
        return index < count
        #else
        return UInt(UInt32(truncatingIfNeeded: index)) < count
        #endif
    }

    /// GNUstep's text for a nil object added to a mutable ordered set (also when one is built with nil).
    private static let addNil = "Tried to add nil to set"

    // MARK: Construction and reads

    /// Behind `orderedSetWithObjects:count:`, `orderedSetWithObject:`. Recovery: the ordered set of the non-nil
    /// objects.
    static let initWithObjectsCount: HookPoint<ContainerIMP.InitWithObjectsCount> = HookPoint("initWithObjects:count:") { receiver, cmd, objects, count in
        guard let original = initWithObjectsCount.original(for: receiver) else { return nil }
        guard let slot = ContainerFailure.firstNil(objects, count: count) else { return original(receiver, cmd, objects, count) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, initWithObjectsCount, M.invalidArgument, hint: nilHint, reason: { cls in
            // GNUstep's mutable ordered set adds the objects one by one.
            let isMutable = mutableRoot.map { ObjCClass(of: receiver)?.isKind(of: $0) ?? false } ?? false
            return M.nilInInit(isMutable ? addNil : "Tried to init set with nil value", cls: cls, method: "initWithObjects:count:", slot: slot)
        }) {
            return ContainerFailure.withoutNils(objects, nil, count: count) { kept, _, keptCount in
                original(receiver, cmd, kept, keptCount)
            }
        }
        return original(receiver, cmd, objects, count)
    }

    static let objectAtIndex: HookPoint<ContainerIMP.ObjectAtIndex> = HookPoint("objectAtIndex:") { receiver, cmd, index in
        read(objectAtIndex, receiver, cmd, index)
    }

    static let objectAtIndexedSubscript: HookPoint<ContainerIMP.ObjectAtIndex> = HookPoint("objectAtIndexedSubscript:") { receiver, cmd, index in
        read(objectAtIndexedSubscript, receiver, cmd, index)
    }

    /// One element by index. Recovery: nil.
    private static func read(_ point: HookPoint<ContainerIMP.ObjectAtIndex>, _ receiver: CSRObject?, _ cmd: CSRSelector?,
                             _ index: UInt) -> CSRObject? {
        guard let original = point.original(for: receiver) else { return nil }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if indexFits(index, count: count) { return original(receiver, cmd, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, point, M.orderedSetRange, hint: outOfRangeHint, reason: {
            M.orderedSetIndex(index, count: count, method: point.selector.name, cls: $0)
        }) { return nil }
        return original(receiver, cmd, index)
    }

    /// Recovery: nil. A nil index set is left alone (GNUstep loops on it rather than raising). Every index is read
    /// in turn; on GNUstep the first one whose low 32 bits are past the end raises ({0, 2^32} reads o[0] twice).
    static let objectsAtIndexes: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("objectsAtIndexes:") { receiver, cmd, indexes in
        guard let original = objectsAtIndexes.original(for: receiver) else { return nil }
        guard let indexes else { return original(receiver, cmd, indexes) }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        let last = Messaging.sendUInt(indexes, ContainerSelectors.lastIndex)
        if last == UInt(Int.max) || last < count { return original(receiver, cmd, indexes) }  // NSNotFound: empty set
        var failing = last
        #if !canImport(Darwin)
        IndexSets.forEach(indexes) { index in
            failing = index
            return indexFits(index, count: count)
        }
        if indexFits(failing, count: count) { return original(receiver, cmd, indexes) }
        #endif
        if GuardFailure.stopOrRaise(.container, receiver, cmd, objectsAtIndexes, M.orderedSetRange, hint: "check the index set against count", reason: {
            M.orderedSetIndex(failing, count: count, method: "objectsAtIndexes:", cls: $0)
        }) { return nil }
        return original(receiver, cmd, indexes)
    }

    // MARK: Mutations (an invalid one is skipped)

    static let addObject: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("addObject:") { receiver, cmd, object in
        guard let original = addObject.original(for: receiver) else { return }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, addObject, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument(addNil, cls: $0, method: "addObject:")
        }) { return }
        original(receiver, cmd, object)
    }

    /// A nil object; on Apple platforms also an index past count (GNUstep appends).
    static let insertObjectAtIndex: HookPoint<ContainerIMP.VoidWithObjectIndex> = HookPoint("insertObject:atIndex:") { receiver, cmd, object, index in
        guard let original = insertObjectAtIndex.original(for: receiver) else { return }
        #if canImport(Darwin)
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if object != nil && index <= count { return original(receiver, cmd, object, index) }
        let pastEnd = index > count
        if GuardFailure.stopOrRaise(.container, receiver, cmd, insertObjectAtIndex, pastEnd ? M.range : M.invalidArgument,
                                    hint: pastEnd ? "insert at an index from 0 to count" : nilHint, reason: {
            pastEnd ? M.orderedSetIndex(index, count: count, method: "insertObject:atIndex:", cls: $0)
                : M.nilArgument(addNil, cls: $0, method: "insertObject:atIndex:")
        }) { return }
        #else
        if object != nil { return original(receiver, cmd, object, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, insertObjectAtIndex, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument(addNil, cls: $0, method: "insertObject:atIndex:")
        }) { return }
        #endif
        original(receiver, cmd, object, index)
    }

    static let removeObjectAtIndex: HookPoint<ContainerIMP.VoidWithIndex> = HookPoint("removeObjectAtIndex:") { receiver, cmd, index in
        guard let original = removeObjectAtIndex.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if indexFits(index, count: count) { return original(receiver, cmd, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObjectAtIndex, M.orderedSetRange, hint: outOfRangeHint, reason: {
            M.orderedSetIndex(index, count: count, method: "removeObjectAtIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, index)
    }

    /// The index is checked before the object (GNUstep removes, then inserts: a nil object raises after the removal;
    /// the guard skips the whole call).
    static let replaceObjectAtIndex: HookPoint<ContainerIMP.VoidWithIndexObject> = HookPoint("replaceObjectAtIndex:withObject:") { receiver, cmd, index, object in
        guard let original = replaceObjectAtIndex.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        let fits = indexFits(index, count: count)
        if object != nil && fits { return original(receiver, cmd, index, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, replaceObjectAtIndex, fits ? M.invalidArgument : M.orderedSetRange,
                                    hint: fits ? nilHint : outOfRangeHint, reason: {
            fits ? M.nilArgument(addNil, cls: $0, method: "replaceObjectAtIndex:withObject:")
                : M.orderedSetIndex(index, count: count, method: "replaceObjectAtIndex:withObject:", cls: $0)
        }) { return }
        original(receiver, cmd, index, object)
    }

    /// `o[i] = x`: legal for i == count (appends); any other index replaces (GNUstep: `replaceObjectAtIndex:withObject:`,
    /// whose index is cut to 32 bits).
    static let setObjectAtIndexedSubscript: HookPoint<ContainerIMP.VoidWithObjectIndex> = HookPoint("setObject:atIndexedSubscript:") { receiver, cmd, object, index in
        guard let original = setObjectAtIndexedSubscript.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        let fits = index == count || indexFits(index, count: count)
        if object != nil && fits { return original(receiver, cmd, object, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectAtIndexedSubscript, fits ? M.invalidArgument : M.orderedSetRange,
                                    hint: fits ? nilHint : "assign at an index from 0 to count", reason: {
            fits ? M.nilArgument(addNil, cls: $0, method: "setObject:atIndexedSubscript:")
                : M.orderedSetIndex(index, count: count, method: "setObject:atIndexedSubscript:", cls: $0)
        }) { return }
        original(receiver, cmd, object, index)
    }

    /// Foundation names the first index that is out of range.
    static let exchangeObjects: HookPoint<ContainerIMP.VoidWithIndexIndex> = HookPoint("exchangeObjectAtIndex:withObjectAtIndex:") { receiver, cmd, first, second in
        guard let original = exchangeObjects.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if first < count && second < count { return original(receiver, cmd, first, second) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, exchangeObjects, M.range, hint: outOfRangeHint, reason: {
            #if canImport(Darwin)
            M.orderedSetIndex(first >= count ? first : second, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:", cls: $0)
            #else
            M.index(first >= count ? first : second, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:", cls: $0)
            #endif
        }) { return }
        original(receiver, cmd, first, second)
    }
}
