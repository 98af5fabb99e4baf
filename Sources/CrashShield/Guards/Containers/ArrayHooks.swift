import CrashShieldRuntime.Internal

/// NSArray and NSMutableArray: index, range, index-set and nil checks. See `ContainerGuard` for the recovery rules.
enum ArrayHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let arrays = ClassFamily("NSArray", "NSMutableArray"), let mutable = ClassFamily("NSMutableArray") else {
            return
        }
        try context.install(
            [
                objectAtIndex, objectAtIndexedSubscript, subarrayWithRange, objectsAtIndexes, initWithObjectsCount,
                arrayByAddingObject,
            ], onOwnersIn: arrays)
        // NSArray's generic implementation (app subclasses use it) under the concrete classes' own.
        try context.install(layers: [getObjectsRangeBase, getObjectsRange], onOwnersIn: arrays)
        try context.install(
            [
                addObject, insertObjectAtIndex, removeObjectAtIndex, replaceObjectAtIndex, removeObjectsInRange,
                exchangeObjects, setObjectAtIndexedSubscript, insertObjectsAtIndexes, removeObjectsAtIndexes,
            ],
            onOwnersIn: mutable)
        // GNUstep's rules only: Apple's `removeLastObject` does nothing on an empty array (Docs/AppleRuntime.md §9).
        if !FoundationRules.isApple { try context.install([removeLastObject], onOwnersIn: mutable) }
        try context.install(layers: [replaceObjectsInRangeBase, replaceObjectsInRange], onOwnersIn: mutable)
    }

    // MARK: Reads

    /// The hottest read of all: C trampolines (CSRHotReads.h) call the original under `@try`, and its own range
    /// exception is reported. Recovery: nil.
    static let objectAtIndex = HotReadHookPoint<IMP.ObjectAtIndex>(
        "objectAtIndex:", hotTable: Int32(CSRHotArrayObjectAtIndex), category: .container, hint: Hint.index,
        precondition: indexWithinCount)

    /// `array[i]`, caught as `objectAtIndex:`. GNUstep's implementation sends `objectAtIndex:`, whose trampoline
    /// leaves the failure to this outer one (same family), so the report names the call the app made.
    static let objectAtIndexedSubscript = HotReadHookPoint<IMP.ObjectAtIndex>(
        "objectAtIndexedSubscript:", hotTable: Int32(CSRHotArrayObjectAtIndexedSubscript), category: .container,
        hint: Hint.index, precondition: indexWithinCount)

    /// The hot reads' precondition, asked only after the original raised.
    private static func indexWithinCount(_ receiver: CSRObject?, _ index: UInt) -> Bool {
        index < Messaging.sendUInt(receiver, csr_hot_selectors.count)
    }

    /// Recovery: an empty array (autoreleased, from the original with an empty range).
    static let subarrayWithRange: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "subarrayWithRange:", .container,
        layers: [
            { subarrayWithRange(in: subarrayWithRange, $0, $1, $2) },
            { subarrayWithRange(in: subarrayWithRange.layer(1), $0, $1, $2) },
            { subarrayWithRange(in: subarrayWithRange.layer(2), $0, $1, $2) },
        ])
    private static func subarrayWithRange(
        in point: GuardedMethod<IMP.ObjectWithRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange
    ) -> CSRObject? {
        let count = count(of: r)
        return point.read(
            r, cmd, valid: range.fits(in: count), else: .range(range, count: count, method: "subarrayWithRange:"),
            recovery: { $0(r, cmd, .empty) }
        ) { $0(r, cmd, range) }
    }

    /// Recovery: nil (an index set past the end, or nil).
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
        let count = count(of: r)
        let last = probe(indexes, ContainerSelectors.lastIndex)  // nil: nil, or not an index set (Foundation's failure)
        var violation: Violation?
        if let last {  // NSNotFound: an empty set
            violation = last == UInt(Int.max) || last < count ? nil : .indexSetIndex(last, count: count)
        } else if indexes == nil {
            violation = .fixed(
                ExceptionName.invalidArgument, "index set cannot be nil", method: "objectsAtIndexes:",
                apple: "index set cannot be nil", hint: "check the index set for nil")
        }
        return point.read(r, cmd, violation) { $0(r, cmd, indexes) }
    }

    /// Two layers (NSArray's generic implementation, the concrete classes' own); the same check. Recovery: the
    /// buffer is left untouched.
    static let getObjectsRange: GuardedMethod<IMP.VoidWithBufferRange> = GuardedMethod("getObjects:range:", .container)
    { r, cmd, buffer, range in
        getObjects(getObjectsRange, r, cmd, buffer, range)
    }
    static let getObjectsRangeBase: GuardedMethod<IMP.VoidWithBufferRange> = GuardedMethod(
        "getObjects:range:", .container
    ) { r, cmd, buffer, range in
        getObjects(getObjectsRangeBase, r, cmd, buffer, range)
    }
    private static func getObjects(
        _ point: GuardedMethod<IMP.VoidWithBufferRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ buffer: UnsafeMutablePointer<CSRObject?>?, _ range: CSRRange
    ) {
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: range.fits(in: count), else: .range(range, count: count, method: "getObjects:range:")
        ) { $0(r, cmd, buffer, range) }
    }

    // MARK: Construction

    /// Behind `arrayWithObjects:count:`, `arrayWithObject:`, `@[...]` literals. Recovery: the array of the non-nil
    /// objects.
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
        ContainerFailure.initWithObjects(point, "Tried to init array with nil object", r, cmd, objects, count)
    }

    /// Recovery: an unchanged copy (the receiver's copy, +0 and autoreleased as the method's own answer is).
    static let arrayByAddingObject: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "arrayByAddingObject:", .container,
        layers: [
            { arrayByAddingObject(in: arrayByAddingObject, $0, $1, $2) },
            { arrayByAddingObject(in: arrayByAddingObject.layer(1), $0, $1, $2) },
            { arrayByAddingObject(in: arrayByAddingObject.layer(2), $0, $1, $2) },
        ])
    private static func arrayByAddingObject(
        in point: GuardedMethod<IMP.ObjectWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: object != nil,
            else: .nilArgument("Attempt to add nil to an array", method: "arrayByAddingObject:"),
            recovery: { _ in csr_object_copy_autoreleased(r) }
        ) { $0(r, cmd, object) }
    }

    // MARK: Mutations (an invalid one is skipped)

    /// Valid calls skip the replacement (CSRCheckFirst.h): its check must stay exactly "object not nil".
    static let addObject: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "addObject:", .container, checkFirst: Int32(CSRHotArrayAddObject),
        layers: [
            { addObject(in: addObject, $0, $1, $2) }, { addObject(in: addObject.layer(1), $0, $1, $2) },
            { addObject(in: addObject.layer(2), $0, $1, $2) },
        ])
    private static func addObject(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: object != nil,
            else: .nilArgument("Tried to add nil to array", method: "insertObject:atIndex:")
        ) { $0(r, cmd, object) }
    }

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
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: object != nil && index <= count,
            else: object == nil
                ? .nilArgument("Tried to insert nil to array", method: "insertObject:atIndex:")
                : .index(
                    index, count: count, method: "insertObject:atIndex:", hint: "insert at an index from 0 to count")
        ) {
            $0(r, cmd, object, index)
        }
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
        point.mutation(r, cmd, valid: index < count, else: .index(index, count: count, method: "removeObjectAtIndex:"))
        { $0(r, cmd, index) }
    }

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
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: index < count && object != nil,
            else: index >= count
                ? .index(index, count: count, method: "replaceObjectAtIndex:withObject:")
                : .nilArgument("Tried to replace object in array with nil", method: "replaceObjectAtIndex:withObject:")
        ) {
            $0(r, cmd, index, object)
        }
    }

    static let removeObjectsInRange: GuardedMethod<IMP.VoidWithRange> = GuardedMethod(
        "removeObjectsInRange:", .container,
        layers: [
            { removeObjectsInRange(in: removeObjectsInRange, $0, $1, $2) },
            { removeObjectsInRange(in: removeObjectsInRange.layer(1), $0, $1, $2) },
            { removeObjectsInRange(in: removeObjectsInRange.layer(2), $0, $1, $2) },
        ])
    private static func removeObjectsInRange(
        in point: GuardedMethod<IMP.VoidWithRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ range: CSRRange
    ) {
        let count = count(of: r)
        point.mutation(
            r, cmd, valid: range.fits(in: count), else: .range(range, count: count, method: "removeObjectsInRange:")
        ) { $0(r, cmd, range) }
    }

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
        let violation: Violation? =
            first < count && second < count
            ? nil
            : .index(second >= count ? second : first, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:")
        point.mutation(r, cmd, violation) { $0(r, cmd, first, second) }
    }

    /// `array[i] = x`: legal for i == count (appends).
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
        let count = count(of: r)
        var violation: Violation?
        if index > count {
            violation = .subscriptAssignment(index, count: count)
        } else if object == nil {
            violation = .nilArgument(
                index == count ? "Tried to add nil to array" : "Tried to replace object in array with nil",
                method: "setObject:atIndexedSubscript:")
        }
        point.mutation(r, cmd, violation) { $0(r, cmd, object, index) }
    }

    /// GNUstep inserts `objects[k]` at the k-th index, for k below the smaller of the two counts: a nil index set
    /// inserts every object at 0 (`[nil firstIndex]` is 0), nil objects insert nothing, and the first index past the
    /// array as it has grown raises (after the objects before it were inserted; the guard skips the whole call).
    static let insertObjectsAtIndexes: GuardedMethod<IMP.VoidWithObjectObject> = GuardedMethod(
        "insertObjects:atIndexes:", .container,
        layers: [
            { insertObjectsAtIndexes(in: insertObjectsAtIndexes, $0, $1, $2, $3) },
            { insertObjectsAtIndexes(in: insertObjectsAtIndexes.layer(1), $0, $1, $2, $3) },
            { insertObjectsAtIndexes(in: insertObjectsAtIndexes.layer(2), $0, $1, $2, $3) },
        ])
    private static func insertObjectsAtIndexes(
        in point: GuardedMethod<IMP.VoidWithObjectObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ objects: CSRObject?, _ indexes: CSRObject?
    ) {
        point.mutation(r, cmd, insertionFailure(objects, indexes, count: count(of: r))) { $0(r, cmd, objects, indexes) }
    }

    /// Why `insertObjects:atIndexes:` raises, if it does.
    private static func insertionFailure(_ objects: CSRObject?, _ indexes: CSRObject?, count: UInt) -> Violation? {
        let adding = probe(objects, Selectors.count)
        let last = probe(indexes, ContainerSelectors.lastIndex)
        if (objects != nil && adding == nil) || (indexes != nil && last == nil) { return nil }  // not an array, an index set
        if FoundationRules.isApple {
            // Apple: the highest index must fit the final array (nil objects or index set: invalid argument).
            if objects != nil, let last, last == UInt(Int.max) || last < count + (adding ?? 0) { return nil }
            return last == nil || objects == nil
                ? .nilInsertion(last: last, count: count) : .insertionIndex(last ?? 0, count: count)
        }
        guard let inserted = adding, let indexes, let last else { return nil }
        let used = Messaging.sendUInt(indexes, Selectors.count)
        // Index k may be at most count + k; indexes rise by at least one each, so the last one used decides.
        if used <= inserted && (used == 0 || last <= count + used - 1) { return nil }
        var failure: Violation?
        var position: UInt = 0
        IndexSets.forEach(indexes) { index in
            guard position < inserted else { return false }
            if index > count + position {
                failure = .insertionIndex(index, count: count + position)
                return false
            }
            position += 1
            return true
        }
        return failure
    }

    /// GNUstep removes from the highest index down: the highest one past the end raises before anything changed. A
    /// nil index set removes nothing there; Apple raises for it.
    static let removeObjectsAtIndexes: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "removeObjectsAtIndexes:", .container,
        layers: [
            { removeObjectsAtIndexes(in: removeObjectsAtIndexes, $0, $1, $2) },
            { removeObjectsAtIndexes(in: removeObjectsAtIndexes.layer(1), $0, $1, $2) },
            { removeObjectsAtIndexes(in: removeObjectsAtIndexes.layer(2), $0, $1, $2) },
        ])
    private static func removeObjectsAtIndexes(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ indexes: CSRObject?
    ) {
        let count = count(of: r)
        let last = probe(indexes, ContainerSelectors.lastIndex)  // nil: nil, or not an index set (Foundation's failure)
        var violation: Violation?
        if let last, last != UInt(Int.max), last >= count {
            violation = .index(
                last, count: count, method: "removeObjectAtIndex:", hint: "check the index set against count")
        } else if indexes == nil && FoundationRules.platform == .apple {
            violation = .fixed(
                ExceptionName.invalidArgument, "", method: "removeObjectsAtIndexes:", apple: "index set cannot be nil",
                hint: "check the index set for nil")
        }
        point.mutation(r, cmd, violation) { $0(r, cmd, indexes) }
    }

    /// Two layers: GNUstep's generic NSMutableArray implementation (every class uses it there) checks
    /// `count < NSMaxRange(range)` in wrapping arithmetic, so a range whose end wraps past 2^64 passes; it then sends
    /// `removeObjectsInRange:`, which raises for it where that method checks (the classes its hook is on) and
    /// removes what the range covers elsewhere (app subclasses). Concrete overrides (Apple) check without wrapping.
    static let replaceObjectsInRange: GuardedMethod<IMP.VoidWithRangeObject> = GuardedMethod(
        "replaceObjectsInRange:withObjectsFromArray:", .container
    ) { r, cmd, range, objects in
        replaceObjectsInRange.mutation(r, cmd, replacementFailure(r, range, wraps: false)) {
            $0(r, cmd, range, objects)
        }
    }
    static let replaceObjectsInRangeBase: GuardedMethod<IMP.VoidWithRangeObject> = GuardedMethod(
        "replaceObjectsInRange:withObjectsFromArray:", .container
    ) { r, cmd, range, objects in
        replaceObjectsInRangeBase.mutation(
            r, cmd, replacementFailure(r, range, wraps: FoundationRules.platform == .gnustep)
        ) { $0(r, cmd, range, objects) }
    }
    private static func replacementFailure(_ r: CSRObject?, _ range: CSRRange, wraps: Bool) -> Violation? {
        let count = count(of: r)
        if range.fits(in: count) { return nil }
        if wraps && range.endFits(in: count) {
            return removeObjectsInRange.original(for: r) == nil
                ? nil : .range(range, count: count, method: "removeObjectsInRange:")
        }
        return .fixed(
            ExceptionName.range, "Replacing objects beyond end of array.",
            method: "replaceObjectsInRange:withObjectsFromArray:",
            apple:
                "range {\(range.location), \(range.length)} extends beyond bounds [0 .. \(count == 0 ? 0 : count - 1)]",
            hint: Hint.range)
    }

    /// GNUstep 1.28 raises for an empty array; Apple's Foundation returns without a change, so under Apple's rules
    /// this is not installed (a report, or debug mode's exception, would be for a call Apple accepts).
    static let removeLastObject: GuardedMethod<IMP.Void0> = GuardedMethod(
        "removeLastObject", .container,
        layers: [
            { removeLastObject(in: removeLastObject, $0, $1) },
            { removeLastObject(in: removeLastObject.layer(1), $0, $1) },
            { removeLastObject(in: removeLastObject.layer(2), $0, $1) },
        ])
    private static func removeLastObject(in point: GuardedMethod<IMP.Void0>, _ r: CSRObject?, _ cmd: CSRSelector?) {
        point.mutation(r, cmd, valid: count(of: r) > 0, else: .removeLastOfEmpty) { $0(r, cmd) }
    }
}
