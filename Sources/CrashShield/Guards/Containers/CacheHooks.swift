import CrashShieldRuntime.Internal

/// NSCache, under Apple's rules only (`FoundationRules`): Apple raises for a nil object with a non-nil key (a nil key
/// returns first, nothing raised), GNUstep stores nothing. Both `setObject:forKey:` and `setObject:forKey:cost:` are
/// hooked: recent Foundations send the second from the first (a public decompilation of NSCache), but an iOS 8 stack
/// (soffes/SAMCache#17) shows `-[NSCache setObject:forKey:] + 42` raising without the cost method's frame, so the
/// first is stopped where the app called it. Either way the reason names `setObject:forKey:cost:` and has no `*** `,
/// as Apple's does. A valid `setObject:forKey:` passes through both hooks, an invalid one is stopped by the first and
/// never reaches the second (one report). A subclass's override that calls super reaches them too. Recovery: the
/// call is skipped (the cache keeps what it had for the key).
enum CacheHooks {
    static func install(in context: GuardContext) throws {
        guard FoundationRules.isApple, let cache = ObjCClass(named: "NSCache") else { return }
        try context.install([setObjectForKey, setObjectForKeyCost], on: [cache])
    }

    typealias SetObjectForKey = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void
    typealias SetObjectForKeyCost = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt) -> Void

    static let setObjectForKey: GuardedMethod<SetObjectForKey> = GuardedMethod("setObject:forKey:", .container) {
        r, cmd, object, key in
        setObjectForKey.mutation(r, cmd, nilObjectFailure(object, key)) { $0(r, cmd, object, key) }
    }

    static let setObjectForKeyCost: GuardedMethod<SetObjectForKeyCost> = GuardedMethod(
        "setObject:forKey:cost:", .container
    ) { r, cmd, object, key, cost in
        setObjectForKeyCost.mutation(r, cmd, nilObjectFailure(object, key)) { $0(r, cmd, object, key, cost) }
    }

    /// Apple's check: a nil key returns before the object is looked at.
    private static func nilObjectFailure(_ object: CSRObject?, _ key: CSRObject?) -> Violation? {
        guard object == nil, let key else { return nil }
        return .nilCacheValue(key: String(describing: key, limit: 4096))
    }
}
