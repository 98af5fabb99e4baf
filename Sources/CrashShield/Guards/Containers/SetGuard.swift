import CrashShieldRuntime.Internal

/// NSSet and NSMutableSet: nil objects. See `ContainerGuard` for the recovery rules.
///
/// Legal calls stay unguarded: `containsObject:nil`, `member:nil`, and on GNUstep `removeObject:nil` (logs) and a
/// mutable set built with nil objects (`[NSMutableSet setWithObjects:count:]` drops them and logs). Under Apple's
/// rules (`FoundationRules`) `removeObject:nil` raises and is guarded.
enum SetGuard {
    typealias M = FoundationMessages
    private static let nilHint = "check the object for nil before adding it (a JSON null or a failed lookup?)"

    static func install(in context: GuardContext) throws {
        guard let sets = ClassFamily("NSSet", "NSMutableSet"), let immutable = ClassFamily("NSSet"),
              let mutable = ClassFamily("NSMutableSet") else { return }
        #if canImport(Darwin)
        try context.install(initWithObjectsCount, onOwnersIn: sets)
        #else
        try context.install(initWithObjectsCount, onOwnersIn: immutable)   // GNUstep's mutable sets drop nils
        #endif
        try context.install(setByAddingObject, onOwnersIn: sets)
        try context.install(addObject, onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(removeObject, onOwnersIn: mutable) }
    }

    /// Behind `setWithObjects:count:`, `setWithObject:`. Recovery: the set of the non-nil objects.
    static let initWithObjectsCount: HookPoint<ContainerIMP.InitWithObjectsCount> = HookPoint("initWithObjects:count:") { receiver, cmd, objects, count in
        guard let original = initWithObjectsCount.original(for: receiver) else { return nil }
        guard let slot = ContainerFailure.firstNil(objects, count: count) else { return original(receiver, cmd, objects, count) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, initWithObjectsCount, M.invalidArgument, hint: nilHint, reason: {
            M.nilInInit("Tried to init set with nil value", cls: $0, method: "initWithObjects:count:", slot: slot)
        }) {
            return ContainerFailure.withoutNils(objects, nil, count: count) { kept, _, keptCount in
                original(receiver, cmd, kept, keptCount)
            }
        }
        return original(receiver, cmd, objects, count)
    }

    /// Recovery: a set with the receiver's objects (autoreleased, `setByAddingObjectsFromSet:` of itself).
    static let setByAddingObject: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("setByAddingObject:") { receiver, cmd, object in
        guard let original = setByAddingObject.original(for: receiver) else { return nil }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setByAddingObject, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument("Tried to add nil to set", cls: $0, method: "setByAddingObject:")
        }) {
            let sel = SetSelectors.setByAddingObjectsFromSet
            return Messaging.implementation(receiver, sel, as: ContainerIMP.ObjectWithObject.self)(receiver, sel, receiver)
        }
        return original(receiver, cmd, object)
    }

    static let addObject: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("addObject:") { receiver, cmd, object in
        guard let original = addObject.original(for: receiver) else { return }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, addObject, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument("Tried to add nil to set", cls: $0, method: "addObject:")
        }) { return }
        original(receiver, cmd, object)
    }

    /// Apple's rules only (GNUstep logs and removes nothing). Apple's text unverified on a device.
    static let removeObject: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("removeObject:") { receiver, cmd, object in
        guard let original = removeObject.original(for: receiver) else { return }
        if object != nil { return original(receiver, cmd, object) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObject, M.invalidArgument,
                                    hint: "check the object for nil before removing it", reason: {
            M.apple($0, "removeObject:", "object cannot be nil")
        }) { return }
        original(receiver, cmd, object)
    }
}

enum SetSelectors {
    static let setByAddingObjectsFromSet = csr_sel_register("setByAddingObjectsFromSet:")
}
