import CrashShieldRuntime.Internal

/// NSArray and NSMutableArray: index, range, index-set and nil checks. See `ContainerGuard` for the recovery rules.
enum ArrayGuard {
    typealias M = FoundationMessages
    private static let outOfRangeHint = "check the index against count before the call"
    private static let nilHint = "check the object for nil before adding it (a JSON null or a failed lookup?)"

    static func install(in context: GuardContext) throws {
        guard let arrays = ClassFamily("NSArray", "NSMutableArray"), let mutable = ClassFamily("NSMutableArray") else { return }
        for point in [objectAtIndex, objectAtIndexedSubscript] { try point.install(in: context, onOwnersIn: arrays) }
        for point in [subarrayWithRange, objectsAtIndexes, getObjectsRange, initWithObjectsCount,
                      arrayByAddingObject] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: arrays)
        }
        for point in [addObject, insertObjectAtIndex, removeObjectAtIndex, replaceObjectAtIndex, removeObjectsInRange,
                      exchangeObjects, setObjectAtIndexedSubscript, insertObjectsAtIndexes, removeObjectsAtIndexes,
                      replaceObjectsInRange, removeLastObject] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
    }

    // MARK: Reads

    /// The hottest read of all: C trampolines (CSRHotReads.h) call the original under `@try`, and its own range
    /// exception is reported. Recovery: nil.
    static let objectAtIndex = HotReadHookPoint<ContainerIMP.ObjectAtIndex>(
        "objectAtIndex:", hotTable: Int32(CSRHotArrayObjectAtIndex), category: .container, hint: outOfRangeHint,
        precondition: indexWithinCount)

    /// `array[i]`, caught as `objectAtIndex:`. GNUstep's implementation sends `objectAtIndex:`, whose trampoline
    /// leaves the failure to this outer one (same family), so the report names the call the app made.
    static let objectAtIndexedSubscript = HotReadHookPoint<ContainerIMP.ObjectAtIndex>(
        "objectAtIndexedSubscript:", hotTable: Int32(CSRHotArrayObjectAtIndexedSubscript), category: .container,
        hint: outOfRangeHint, precondition: indexWithinCount)

    /// The hot reads' precondition, asked only after the original raised.
    private static func indexWithinCount(_ receiver: CSRObject?, _ index: UInt) -> Bool {
        index < Messaging.sendUInt(receiver, csr_hot_selectors.count)
    }

    /// Recovery: an empty array (autoreleased, from the original with an empty range).
    static let subarrayWithRange: HookPoint<ContainerIMP.ObjectWithRange> = HookPoint("subarrayWithRange:") { receiver, cmd, range in
        guard let original = subarrayWithRange.original(for: receiver) else { return nil }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if range.fits(in: count) { return original(receiver, cmd, range) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, subarrayWithRange, M.range, hint: "clamp the range to count", reason: {
            M.range(range.value, count: count, method: "subarrayWithRange:", cls: $0)
        }) { return original(receiver, cmd, CSRRange(location: 0, length: 0)) }
        return original(receiver, cmd, range)
    }

    /// Recovery: nil (an index set past the end, or nil).
    static let objectsAtIndexes: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("objectsAtIndexes:") { receiver, cmd, indexes in
        guard let original = objectsAtIndexes.original(for: receiver) else { return nil }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        let last = indexes.map { Messaging.sendUInt($0, ContainerSelectors.lastIndex) }
        if let last, last == UInt(Int.max) || last < count { return original(receiver, cmd, indexes) }  // NSNotFound: empty set
        if GuardFailure.stopOrRaise(.container, receiver, cmd, objectsAtIndexes, indexes == nil ? M.invalidArgument : M.range,
                                    hint: "check the index set against count (and for nil)", reason: { cls in
            guard let last else { return M.plain("index set cannot be nil", cls: cls, method: "objectsAtIndexes:", apple: "index set cannot be nil") }
            #if canImport(Darwin)
            return "*** -[\(cls) objectsAtIndexes:]: index \(last) in index set beyond bounds" + (count == 0 ? " for empty array" : " [0 .. \(count - 1)]")
            #else
            return M.index(last, count: count, method: "objectAtIndex:", cls: cls)
            #endif
        }) { return nil }
        return original(receiver, cmd, indexes)
    }

    /// Recovery: the buffer is left untouched.
    static let getObjectsRange: HookPoint<ContainerIMP.VoidWithBufferRange> = HookPoint("getObjects:range:") { receiver, cmd, buffer, range in
        guard let original = getObjectsRange.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if range.fits(in: count) { return original(receiver, cmd, buffer, range) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, getObjectsRange, M.range, hint: "clamp the range to count", reason: {
            M.range(range.value, count: count, method: "getObjects:range:", cls: $0)
        }) { return }
        original(receiver, cmd, buffer, range)
    }

    // MARK: Construction

    /// Behind `arrayWithObjects:count:`, `arrayWithObject:`, `@[...]` literals. Recovery: the array of the non-nil
    /// objects.
    static let initWithObjectsCount: HookPoint<ContainerIMP.InitWithObjectsCount> = HookPoint("initWithObjects:count:") { receiver, cmd, objects, count in
        guard let original = initWithObjectsCount.original(for: receiver) else { return nil }
        guard let slot = ContainerFailure.firstNil(objects, count: count) else { return original(receiver, cmd, objects, count) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, initWithObjectsCount, M.invalidArgument, hint: nilHint, reason: {
            M.nilInInit("Tried to init array with nil object", cls: $0, method: "initWithObjects:count:", slot: slot)
        }) {
            return ContainerFailure.withoutNils(objects, nil, count: count) { kept, _, keptCount in
                original(receiver, cmd, kept, keptCount)
            }
        }
        return original(receiver, cmd, objects, count)
    }

    /// Recovery: an unchanged copy (the original with no object added is not available, so the receiver's copy).
    static let arrayByAddingObject: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("arrayByAddingObject:") { receiver, cmd, object in
        guard let original = arrayByAddingObject.original(for: receiver) else { return nil }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, arrayByAddingObject, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument("Attempt to add nil to an array", cls: $0, method: "arrayByAddingObject:")
        }) { return Messaging.sendObject(receiver, ArraySelectors.copyAutoreleased) }
        return original(receiver, cmd, object)
    }

    // MARK: Mutations (an invalid one is skipped)

    static let addObject: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("addObject:") { receiver, cmd, object in
        guard let original = addObject.original(for: receiver) else { return }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, addObject, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument("Tried to add nil to array", cls: $0, method: "insertObject:atIndex:")
        }) { return }
        original(receiver, cmd, object)
    }

    static let insertObjectAtIndex: HookPoint<ContainerIMP.VoidWithObjectIndex> = HookPoint("insertObject:atIndex:") { receiver, cmd, object, index in
        guard let original = insertObjectAtIndex.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if object != nil && index <= count { return original(receiver, cmd, object, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, insertObjectAtIndex, object == nil ? M.invalidArgument : M.range,
                                    hint: object == nil ? nilHint : "insert at an index from 0 to count", reason: {
            object == nil ? M.nilArgument("Tried to insert nil to array", cls: $0, method: "insertObject:atIndex:")
                : M.index(index, count: count, method: "insertObject:atIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, object, index)
    }

    static let removeObjectAtIndex: HookPoint<ContainerIMP.VoidWithIndex> = HookPoint("removeObjectAtIndex:") { receiver, cmd, index in
        guard let original = removeObjectAtIndex.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if index < count { return original(receiver, cmd, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObjectAtIndex, M.range, hint: outOfRangeHint, reason: {
            M.index(index, count: count, method: "removeObjectAtIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, index)
    }

    static let replaceObjectAtIndex: HookPoint<ContainerIMP.VoidWithIndexObject> = HookPoint("replaceObjectAtIndex:withObject:") { receiver, cmd, index, object in
        guard let original = replaceObjectAtIndex.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if object != nil && index < count { return original(receiver, cmd, index, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, replaceObjectAtIndex, index >= count ? M.range : M.invalidArgument,
                                    hint: index >= count ? outOfRangeHint : nilHint, reason: {
            index >= count ? M.index(index, count: count, method: "replaceObjectAtIndex:withObject:", cls: $0)
                : M.nilArgument("Tried to replace object in array with nil", cls: $0, method: "replaceObjectAtIndex:withObject:")
        }) { return }
        original(receiver, cmd, index, object)
    }

    static let removeObjectsInRange: HookPoint<ContainerIMP.VoidWithRange> = HookPoint("removeObjectsInRange:") { receiver, cmd, range in
        guard let original = removeObjectsInRange.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if range.fits(in: count) { return original(receiver, cmd, range) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObjectsInRange, M.range, hint: "clamp the range to count", reason: {
            M.range(range.value, count: count, method: "removeObjectsInRange:", cls: $0)
        }) { return }
        original(receiver, cmd, range)
    }

    static let exchangeObjects: HookPoint<ContainerIMP.VoidWithIndexIndex> = HookPoint("exchangeObjectAtIndex:withObjectAtIndex:") { receiver, cmd, first, second in
        guard let original = exchangeObjects.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if first < count && second < count { return original(receiver, cmd, first, second) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, exchangeObjects, M.range, hint: outOfRangeHint, reason: {
            M.index(second >= count ? second : first, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, first, second)
    }

    /// `array[i] = x`: legal for i == count (appends).
    static let setObjectAtIndexedSubscript: HookPoint<ContainerIMP.VoidWithObjectIndex> = HookPoint("setObject:atIndexedSubscript:") { receiver, cmd, object, index in
        guard let original = setObjectAtIndexedSubscript.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if object != nil && index <= count { return original(receiver, cmd, object, index) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectAtIndexedSubscript, index > count ? M.range : M.invalidArgument,
                                    hint: index > count ? "assign at an index from 0 to count" : nilHint, reason: { cls in
            #if canImport(Darwin)
            return index > count ? M.index(index, count: count, method: "setObject:atIndexedSubscript:", cls: cls)
                : M.nilArgument("", cls: cls, method: "setObject:atIndexedSubscript:")
            #else
            if index > count { return M.index(index, count: count, method: "replaceObjectAtIndex:withObject:", cls: cls) }
            return index == count ? "Tried to add nil to array" : "Tried to replace object in array with nil"
            #endif
        }) { return }
        original(receiver, cmd, object, index)
    }

    /// GNUstep inserts `objects[k]` at the k-th index, for k below the smaller of the two counts: a nil index set
    /// inserts every object at 0 (`[nil firstIndex]` is 0), nil objects insert nothing, and the first index past the
    /// array as it has grown raises (after the objects before it were inserted; the guard skips the whole call).
    static let insertObjectsAtIndexes: HookPoint<ContainerIMP.VoidWithObjectObject> = HookPoint("insertObjects:atIndexes:") { receiver, cmd, objects, indexes in
        guard let original = insertObjectsAtIndexes.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        guard let failure = insertionFailure(objects, indexes, count: count) else { return original(receiver, cmd, objects, indexes) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, insertObjectsAtIndexes, failure.exception,
                                    hint: "insert at indexes within the array's new bounds", reason: {
            M.index(failure.index, count: failure.count, method: "insertObject:atIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, objects, indexes)
    }

    /// Why `insertObjects:atIndexes:` raises, if it does: the exception, the index and the count it names.
    private static func insertionFailure(_ objects: CSRObject?, _ indexes: CSRObject?,
                                         count: UInt) -> (exception: String, index: UInt, count: UInt)? {
        #if canImport(Darwin)
        // Apple: the highest index must fit the final array (nil objects or index set: invalid argument).
        let adding = objects.map { Messaging.sendUInt($0, Selectors.count) } ?? 0
        let last = indexes.map { Messaging.sendUInt($0, ContainerSelectors.lastIndex) }
        if objects != nil, let last, last == UInt(Int.max) || last < count + adding { return nil }
        return (last == nil || objects == nil ? M.invalidArgument : M.range, last ?? 0, count)
        #else
        guard let objects, let indexes else { return nil }
        let inserted = Messaging.sendUInt(objects, Selectors.count)
        let used = Messaging.sendUInt(indexes, Selectors.count)
        let last = Messaging.sendUInt(indexes, ContainerSelectors.lastIndex)
        // Index k may be at most count + k; indexes rise by at least one each, so the last one used decides.
        if used <= inserted && (used == 0 || last <= count + used - 1) { return nil }
        var failure: (exception: String, index: UInt, count: UInt)?
        var position: UInt = 0
        IndexSets.forEach(indexes) { index in
            guard position < inserted else { return false }
            if index > count + position {
                failure = (M.range, index, count + position)
                return false
            }
            position += 1
            return true
        }
        return failure
        #endif
    }

    /// GNUstep removes from the highest index down: the highest one past the end raises before anything changed. A
    /// nil index set removes nothing there; Apple raises for it.
    static let removeObjectsAtIndexes: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("removeObjectsAtIndexes:") { receiver, cmd, indexes in
        guard let original = removeObjectsAtIndexes.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        let last = indexes.map { Messaging.sendUInt($0, ContainerSelectors.lastIndex) }
        #if canImport(Darwin)
        let nilIsLegal = false
        #else
        let nilIsLegal = true
        #endif
        if let last, last == UInt(Int.max) || last < count { return original(receiver, cmd, indexes) }
        if last == nil && nilIsLegal { return original(receiver, cmd, indexes) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObjectsAtIndexes, last == nil ? M.invalidArgument : M.range,
                                    hint: "check the index set against count", reason: {
            M.index(last ?? 0, count: count, method: "removeObjectAtIndex:", cls: $0)
        }) { return }
        original(receiver, cmd, indexes)
    }

    static let replaceObjectsInRange: HookPoint<ContainerIMP.VoidWithRangeObject> = HookPoint("replaceObjectsInRange:withObjectsFromArray:") { receiver, cmd, range, objects in
        guard let original = replaceObjectsInRange.original(for: receiver) else { return }
        let count = Messaging.sendUInt(receiver, Selectors.count)
        if range.fits(in: count) { return original(receiver, cmd, range, objects) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, replaceObjectsInRange, M.range, hint: "clamp the range to count", reason: {
            M.plain("Replacing objects beyond end of array.", cls: $0, method: "replaceObjectsInRange:withObjectsFromArray:",
                    apple: "range {\(range.location), \(range.length)} extends beyond bounds [0 .. \(count == 0 ? 0 : count - 1)]")
        }) { return }
        original(receiver, cmd, range, objects)
    }

    static let removeLastObject: HookPoint<ContainerIMP.Void0> = HookPoint("removeLastObject") { receiver, cmd in
        guard let original = removeLastObject.original(for: receiver) else { return }
        if Messaging.sendUInt(receiver, Selectors.count) > 0 { return original(receiver, cmd) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeLastObject, M.range, hint: "check that the array is not empty", reason: {
            M.plain("Trying to remove from an empty array.", cls: $0, method: "removeLastObject",
                    apple: "index 0 beyond bounds for empty array")
        }) { return }
        original(receiver, cmd)
    }
}

enum ArraySelectors {
    /// An autoreleased immutable copy.
    static let copyAutoreleased = csr_sel_register("copy")
}
