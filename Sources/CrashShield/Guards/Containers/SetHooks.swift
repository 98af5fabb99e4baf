import CrashShieldRuntime.Internal

/// NSSet, NSMutableSet and NSCountedSet: nil objects. See `ContainerGuard` for the recovery rules.
///
/// Legal calls stay unguarded: `containsObject:nil`, `member:nil`, and on GNUstep `removeObject:nil` (logs) and a
/// mutable set built with nil objects (`[NSMutableSet setWithObjects:count:]` drops them and logs; a counted set
/// raises). Under Apple's rules (`FoundationRules`) `removeObject:nil` raises and is guarded. Apple's NSCountedSet
/// is a class of its own whose nil handling is unverified: left alone there.
enum SetHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let sets = ClassFamily("NSSet", "NSMutableSet"), let immutable = ClassFamily("NSSet"),
            let mutable = ClassFamily("NSMutableSet")
        else { return }
        if FoundationRules.isApple {
            try context.install(initWithObjectsCount, onOwnersIn: sets)
        } else {
            try context.install(initWithObjectsCount, onOwnersIn: immutable)  // GNUstep's mutable sets drop nils
            if let counted = ClassFamily("NSCountedSet") { try context.install(countedSetInit, onOwnersIn: counted) }
        }
        try context.install(setByAddingObject, onOwnersIn: sets)
        try context.install(addObject, onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(removeObject, onOwnersIn: mutable) }
    }

    /// Behind `setWithObjects:count:`, `setWithObject:`. Recovery: the set of the non-nil objects.
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
        ContainerFailure.initWithObjects(point, "Tried to init set with nil value", r, cmd, objects, count)
    }
    static let countedSetInit: GuardedMethod<IMP.InitWithObjectsCount> = GuardedMethod(
        "initWithObjects:count:", .container,
        layers: [
            { countedSetInit(in: countedSetInit, $0, $1, $2, $3) },
            { countedSetInit(in: countedSetInit.layer(1), $0, $1, $2, $3) },
            { countedSetInit(in: countedSetInit.layer(2), $0, $1, $2, $3) },
        ])
    private static func countedSetInit(
        in point: GuardedMethod<IMP.InitWithObjectsCount>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ objects: UnsafePointer<CSRObject?>?, _ count: UInt
    ) -> CSRObject? {
        ContainerFailure.initWithObjects(point, "Tried to init counted set with nil value", r, cmd, objects, count)
    }

    /// Recovery: a set with the receiver's objects (autoreleased, `setByAddingObjectsFromSet:` of itself).
    static let setByAddingObject: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "setByAddingObject:", .container,
        layers: [
            { setByAddingObject(in: setByAddingObject, $0, $1, $2) },
            { setByAddingObject(in: setByAddingObject.layer(1), $0, $1, $2) },
            { setByAddingObject(in: setByAddingObject.layer(2), $0, $1, $2) },
        ])
    private static func setByAddingObject(
        in point: GuardedMethod<IMP.ObjectWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: object != nil, else: .nilArgument("Tried to add nil to set", method: "setByAddingObject:"),
            recovery: { _ in
                let sel = ContainerSelectors.setByAddingObjectsFromSet
                return Messaging.implementation(r, sel, as: IMP.ObjectWithObject.self)(r, sel, r)
            }
        ) { $0(r, cmd, object) }
    }

    /// Also installed on mutable ordered sets (an unrelated class hierarchy: no nesting), whose text is the same.
    /// Valid calls skip the replacement (CSRCheckFirst.h): its check must stay exactly "the object is not nil".
    static let addObject: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "addObject:", .container, checkFirst: Int32(CSRHotSetAddObject),
        layers: [
            { addObject(in: addObject, $0, $1, $2) }, { addObject(in: addObject.layer(1), $0, $1, $2) },
            { addObject(in: addObject.layer(2), $0, $1, $2) },
        ])
    private static func addObject(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: object != nil, else: .nilArgument("Tried to add nil to set", method: "addObject:")
        ) { $0(r, cmd, object) }
    }

    /// Apple's rules only (GNUstep logs and removes nothing).
    static let removeObject: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "removeObject:", .container,
        layers: [
            { removeObject(in: removeObject, $0, $1, $2) }, { removeObject(in: removeObject.layer(1), $0, $1, $2) },
            { removeObject(in: removeObject.layer(2), $0, $1, $2) },
        ])
    private static func removeObject(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: object != nil,
            else: .appleOnly(
                "removeObject:", "object cannot be nil",
                hint: "check the object for nil before removing it")
        ) { $0(r, cmd, object) }
    }
}
