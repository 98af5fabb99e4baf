import CrashShieldRuntime.Internal

/// NSDictionary and NSMutableDictionary: nil keys and values, mismatched key and object arrays. See `ContainerGuard`
/// for the recovery rules.
///
/// Legal calls stay unguarded: `objectForKey:nil` (nil), `d[k] = nil` (removes k), and on GNUstep
/// `removeObjectForKey:nil` (logs), `d[nil] = nil`, `setValue:nil forKey:`, `addEntriesFromDictionary:nil`,
/// `removeObjectsForKeys:nil`. Under Apple's rules (`FoundationRules`) `removeObjectForKey:nil` and `d[nil] = nil`
/// raise and are guarded.
enum DictionaryGuard {
    typealias M = FoundationMessages
    private static let nilHint = "check keys and values for nil before storing them (a JSON null or a failed lookup?)"

    static func install(in context: GuardContext) throws {
        guard let dictionaries = ClassFamily("NSDictionary", "NSMutableDictionary"),
              let mutable = ClassFamily("NSMutableDictionary") else { return }
        for point in [initWithObjectsForKeysCount, initWithObjectsForKeys] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: dictionaries)
        }
        for point in [setObjectForKey, setObjectForKeyedSubscript] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: mutable)
        }
        if FoundationRules.isApple { try context.install(removeObjectForKey, onOwnersIn: mutable) }
    }

    // MARK: Construction

    /// The first pair with a nil side, in Foundation's order (slot by slot, the key before the value).
    static func firstNilPair(_ objects: UnsafePointer<CSRObject?>?, _ keys: UnsafePointer<CSRObject?>?,
                             count: UInt) -> (slot: Int, isKey: Bool)? {
        guard count > 0 else { return nil }
        guard let objects, let keys else { return (0, keys == nil) }
        for index in 0..<Int(count) {
            if keys[index] == nil { return (index, true) }
            if objects[index] == nil { return (index, false) }
        }
        return nil
    }

    /// Behind `dictionaryWithObjects:forKeys:count:`, `dictionaryWithObject:forKey:`, `@{...}` literals. Recovery: the
    /// dictionary of the pairs whose key and value are both non-nil.
    static let initWithObjectsForKeysCount: HookPoint<ContainerIMP.InitWithObjectsKeysCount> = HookPoint("initWithObjects:forKeys:count:") { receiver, cmd, objects, keys, count in
        guard let original = initWithObjectsForKeysCount.original(for: receiver) else { return nil }
        guard let bad = firstNilPair(objects, keys, count: count) else { return original(receiver, cmd, objects, keys, count) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, initWithObjectsForKeysCount, M.invalidArgument, hint: nilHint, reason: {
            bad.isKey
                ? M.nilInInit("Tried to init dictionary with nil key", cls: $0, method: "initWithObjects:forKeys:count:", slot: bad.slot, what: "key")
                : M.nilInInit("Tried to init dictionary with nil value", cls: $0, method: "initWithObjects:forKeys:count:", slot: bad.slot)
        }) {
            if objects == nil || keys == nil { return original(receiver, cmd, nil, nil, 0) }
            return ContainerFailure.withoutNils(objects, keys, count: count) { keptObjects, keptKeys, keptCount in
                original(receiver, cmd, keptObjects, keptKeys, keptCount)
            }
        }
        return original(receiver, cmd, objects, keys, count)
    }

    /// Behind `dictionaryWithObjects:forKeys:`. Arrays of different sizes (a nil array counts as empty; two nil
    /// arrays are legal). Recovery: the dictionary of the first min(objects, keys) pairs, i.e. the pairs that line up.
    static let initWithObjectsForKeys: HookPoint<ContainerIMP.ObjectWithObjectObject> = HookPoint("initWithObjects:forKeys:") { receiver, cmd, objects, keys in
        guard let original = initWithObjectsForKeys.original(for: receiver) else { return nil }
        let objectCount = objects.map { Messaging.sendUInt($0, Selectors.count) } ?? 0
        let keyCount = keys.map { Messaging.sendUInt($0, Selectors.count) } ?? 0
        if objectCount == keyCount { return original(receiver, cmd, objects, keys) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, initWithObjectsForKeys, M.invalidArgument,
                                    hint: "pass as many keys as objects", reason: {
            M.plain("init with obj and key arrays of different sizes", cls: $0, method: "initWithObjects:forKeys:",
                    apple: "count of objects (\(objectCount)) differs from count of keys (\(keyCount))")
        }) {
            let common = CSRRange(location: 0, length: min(objectCount, keyCount))
            return original(receiver, cmd, DictionarySelectors.subarray(objects, common), DictionarySelectors.subarray(keys, common))
        }
        return original(receiver, cmd, objects, keys)
    }

    // MARK: Mutations (an invalid one is skipped)

    /// Nil key or nil value (also behind `setValue:forKey:` with a nil key).
    static let setObjectForKey: HookPoint<ContainerIMP.VoidWithObjectObject> = HookPoint("setObject:forKey:") { receiver, cmd, object, key in
        guard let original = setObjectForKey.original(for: receiver) else { return }
        if object != nil && key != nil { return original(receiver, cmd, object, key) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectForKey, M.invalidArgument, hint: nilHint, reason: {
            key == nil
                ? M.nilArgument("Tried to add nil key to dictionary", cls: $0, method: "setObject:forKey:", apple: "key cannot be nil")
                : M.nilArgument("Tried to add nil value for key '\(String(describing: key, limit: 4096))' to dictionary", cls: $0,
                                method: "setObject:forKey:", apple: "object cannot be nil (key: \(String(describing: key, limit: 4096)))")
        }) { return }
        original(receiver, cmd, object, key)
    }

    /// `d[key] = object`. A nil object is a legal removal; only a nil key raises (on GNUstep only with a non-nil
    /// object: `d[nil] = nil` removes nothing).
    static let setObjectForKeyedSubscript: HookPoint<ContainerIMP.VoidWithObjectObject> = HookPoint("setObject:forKeyedSubscript:") { receiver, cmd, object, key in
        guard let original = setObjectForKeyedSubscript.original(for: receiver) else { return }
        if key != nil || (object == nil && !FoundationRules.isApple) { return original(receiver, cmd, object, key) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectForKeyedSubscript, M.invalidArgument, hint: nilHint, reason: {
            M.nilArgument("Tried to add nil key to dictionary", cls: $0, method: "setObject:forKeyedSubscript:", apple: "key cannot be nil")
        }) { return }
        original(receiver, cmd, object, key)
    }

    /// Apple's rules only: a nil key raises (GNUstep logs and removes nothing). Apple's text unverified on a device.
    static let removeObjectForKey: HookPoint<ContainerIMP.VoidWithObject> = HookPoint("removeObjectForKey:") { receiver, cmd, key in
        guard let original = removeObjectForKey.original(for: receiver) else { return }
        if key != nil { return original(receiver, cmd, key) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, removeObjectForKey, M.invalidArgument,
                                    hint: "check the key for nil before removing it", reason: {
            M.apple($0, "removeObjectForKey:", "key cannot be nil")
        }) { return }
        original(receiver, cmd, key)
    }
}

enum DictionarySelectors {
    static let subarrayWithRange = csr_sel_register("subarrayWithRange:")

    /// `[array subarrayWithRange: range]` (autoreleased); nil for a nil array.
    static func subarray(_ array: CSRObject?, _ range: CSRRange) -> CSRObject? {
        guard let array else { return nil }
        return Messaging.implementation(array, subarrayWithRange, as: ContainerIMP.ObjectWithRange.self)(array, subarrayWithRange, range)
    }
}
