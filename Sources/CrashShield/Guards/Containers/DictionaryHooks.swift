import CrashShieldRuntime.Internal

/// NSDictionary and NSMutableDictionary: nil keys and values, mismatched key and object arrays. See `ContainerGuard`
/// for the recovery rules.
///
/// Legal calls stay unguarded: `objectForKey:nil` (nil), `d[k] = nil` (removes k), and on GNUstep
/// `removeObjectForKey:nil` (logs), `d[nil] = nil`, `setValue:nil forKey:`, `addEntriesFromDictionary:nil`,
/// `removeObjectsForKeys:nil`. Under Apple's rules (`FoundationRules`) `removeObjectForKey:nil` and `d[nil] = nil`
/// raise and are guarded.
enum DictionaryHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let dictionaries = ClassFamily("NSDictionary", "NSMutableDictionary"),
            let mutable = ClassFamily("NSMutableDictionary")
        else { return }
        try context.install([initWithObjectsForKeysCount, initWithObjectsForKeys], onOwnersIn: dictionaries)
        try context.install([setObjectForKey, setObjectForKeyedSubscript], onOwnersIn: mutable)
        if FoundationRules.isApple { try context.install(removeObjectForKey, onOwnersIn: mutable) }
    }

    /// The first pair with a nil side, in Foundation's order (slot by slot, the key before the value).
    static func firstNilPair(
        _ objects: UnsafePointer<CSRObject?>?, _ keys: UnsafePointer<CSRObject?>?,
        count: UInt
    ) -> (slot: Int, isKey: Bool)? {
        guard count > 0 else { return nil }
        guard let objects, let keys else { return (0, keys == nil) }
        for index in 0..<Int(count) {
            if keys[index] == nil { return (index, true) }
            if objects[index] == nil { return (index, false) }
        }
        return nil
    }

    private static func nilPair(_ bad: (slot: Int, isKey: Bool)) -> Violation {
        .nilInInit(
            bad.isKey ? "Tried to init dictionary with nil key" : "Tried to init dictionary with nil value",
            method: "initWithObjects:forKeys:count:", slot: bad.slot, what: bad.isKey ? "key" : "object",
            hint: Hint.nilPair)
    }

    /// Behind `dictionaryWithObjects:forKeys:count:`, `dictionaryWithObject:forKey:`, `@{...}` literals. Recovery: the
    /// dictionary of the pairs whose key and value are both non-nil.
    static let initWithObjectsForKeysCount: GuardedMethod<IMP.InitWithObjectsKeysCount> = GuardedMethod(
        "initWithObjects:forKeys:count:", .container,
        layers: [
            { initWithObjectsForKeysCount(in: initWithObjectsForKeysCount, $0, $1, $2, $3, $4) },
            { initWithObjectsForKeysCount(in: initWithObjectsForKeysCount.layer(1), $0, $1, $2, $3, $4) },
            { initWithObjectsForKeysCount(in: initWithObjectsForKeysCount.layer(2), $0, $1, $2, $3, $4) },
        ])
    private static func initWithObjectsForKeysCount(
        in point: GuardedMethod<IMP.InitWithObjectsKeysCount>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ objects: UnsafePointer<CSRObject?>?, _ keys: UnsafePointer<CSRObject?>?, _ count: UInt
    ) -> CSRObject? {
        let bad = firstNilPair(objects, keys, count: count)
        return point.read(
            r, cmd, valid: bad == nil, else: bad.map(nilPair),
            recovery: { original in
                if objects == nil || keys == nil { return original(r, cmd, nil, nil, 0) }
                return ContainerFailure.withoutNils(objects, keys, count: count) { original(r, cmd, $0, $1, $2) }
            }
        ) { $0(r, cmd, objects, keys, count) }
    }

    /// Behind `dictionaryWithObjects:forKeys:`. Arrays of different sizes (a nil array counts as empty; two nil
    /// arrays are legal). Recovery: the dictionary of the first min(objects, keys) pairs, i.e. the pairs that line up.
    static let initWithObjectsForKeys: GuardedMethod<IMP.ObjectWithObjectObject> = GuardedMethod(
        "initWithObjects:forKeys:", .container,
        layers: [
            { initWithObjectsForKeys(in: initWithObjectsForKeys, $0, $1, $2, $3) },
            { initWithObjectsForKeys(in: initWithObjectsForKeys.layer(1), $0, $1, $2, $3) },
            { initWithObjectsForKeys(in: initWithObjectsForKeys.layer(2), $0, $1, $2, $3) },
        ])
    private static func initWithObjectsForKeys(
        in point: GuardedMethod<IMP.ObjectWithObjectObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ objects: CSRObject?, _ keys: CSRObject?
    ) -> CSRObject? {
        let objectCount = probe(objects, Selectors.count), keyCount = probe(keys, Selectors.count)
        let answered = (objects == nil || objectCount != nil) && (keys == nil || keyCount != nil)  // arrays, or nil
        let violation: Violation? =
            !answered || objectCount ?? 0 == keyCount ?? 0
            ? nil
            : .fixed(
                ExceptionName.invalidArgument, "init with obj and key arrays of different sizes",
                method: "initWithObjects:forKeys:",
                apple: "count of objects (\(objectCount ?? 0)) differs from count of keys (\(keyCount ?? 0))",
                hint: "pass as many keys as objects")
        return point.read(
            r, cmd, violation,
            recovery: { original in
                let common = CSRRange(location: 0, length: min(objectCount ?? 0, keyCount ?? 0))
                return original(r, cmd, subarray(objects, common), subarray(keys, common))
            }
        ) { $0(r, cmd, objects, keys) }
    }

    /// `[array subarrayWithRange: range]` (autoreleased); nil for a nil array.
    private static func subarray(_ array: CSRObject?, _ range: CSRRange) -> CSRObject? {
        guard let array else { return nil }
        let sel = ContainerSelectors.subarrayWithRange
        return Messaging.implementation(array, sel, as: IMP.ObjectWithRange.self)(array, sel, range)
    }

    // MARK: Mutations (an invalid one is skipped)

    /// Nil key or nil value (also behind `setValue:forKey:` with a nil key).
    /// Valid calls skip the replacement (CSRCheckFirst.h): its check must stay exactly "object and key not nil".
    static let setObjectForKey: GuardedMethod<IMP.VoidWithObjectObject> = GuardedMethod(
        "setObject:forKey:", .container, checkFirst: Int32(CSRHotDictionarySetObjectForKey),
        layers: [
            { setObjectForKey(in: setObjectForKey, $0, $1, $2, $3) },
            { setObjectForKey(in: setObjectForKey.layer(1), $0, $1, $2, $3) },
            { setObjectForKey(in: setObjectForKey.layer(2), $0, $1, $2, $3) },
        ])
    private static func setObjectForKey(
        in point: GuardedMethod<IMP.VoidWithObjectObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ key: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: object != nil && key != nil, else: nilKeyOrValue(key, method: "setObject:forKey:")
        ) { $0(r, cmd, object, key) }
    }

    /// A nil key (`key` is nil), or else a nil value for `key`, given to `method`.
    private static func nilKeyOrValue(_ key: CSRObject?, method: String) -> Violation {
        guard key != nil else {
            return .nilArgument(
                "Tried to add nil key to dictionary", method: method, apple: "key cannot be nil", hint: Hint.nilPair)
        }
        let key = String(describing: key, limit: 4096)
        return .nilArgument(
            "Tried to add nil value for key '\(key)' to dictionary", method: method,
            apple: "object cannot be nil (key: \(key))", hint: Hint.nilPair)
    }

    /// `d[key] = object`. A nil object is a legal removal; only a nil key raises (on GNUstep only with a non-nil
    /// object: `d[nil] = nil` removes nothing).
    static let setObjectForKeyedSubscript: GuardedMethod<IMP.VoidWithObjectObject> = GuardedMethod(
        "setObject:forKeyedSubscript:", .container,
        layers: [
            { setObjectForKeyedSubscript(in: setObjectForKeyedSubscript, $0, $1, $2, $3) },
            { setObjectForKeyedSubscript(in: setObjectForKeyedSubscript.layer(1), $0, $1, $2, $3) },
            { setObjectForKeyedSubscript(in: setObjectForKeyedSubscript.layer(2), $0, $1, $2, $3) },
        ])
    private static func setObjectForKeyedSubscript(
        in point: GuardedMethod<IMP.VoidWithObjectObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ object: CSRObject?, _ key: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: key != nil || (object == nil && !FoundationRules.isApple),
            else: nilKeyOrValue(key, method: "setObject:forKeyedSubscript:")
        ) { $0(r, cmd, object, key) }
    }

    /// Apple's rules only: a nil key raises (GNUstep logs and removes nothing).
    static let removeObjectForKey: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "removeObjectForKey:", .container,
        layers: [
            { removeObjectForKey(in: removeObjectForKey, $0, $1, $2) },
            { removeObjectForKey(in: removeObjectForKey.layer(1), $0, $1, $2) },
            { removeObjectForKey(in: removeObjectForKey.layer(2), $0, $1, $2) },
        ])
    private static func removeObjectForKey(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ key: CSRObject?
    ) {
        point.mutation(
            r, cmd, valid: key != nil,
            else: .appleOnly(
                "removeObjectForKey:", "key cannot be nil",
                hint: "check the key for nil before removing it")
        ) { $0(r, cmd, key) }
    }
}
