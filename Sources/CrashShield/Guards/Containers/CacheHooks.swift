import CrashShieldRuntime.Internal

/// NSCache, under Apple's rules only (`FoundationRules`): Apple raises for a nil object, GNUstep stores nothing.
/// `setObject:forKey:` reaches `setObject:forKey:cost:` on both Foundations (Apple's reason names the latter), so one
/// hook covers both. A subclass's override that calls super reaches it too. Recovery: the call is skipped (the cache
/// keeps what it had for the key).
enum CacheHooks {
    static func install(in context: GuardContext) throws {
        guard FoundationRules.isApple, let cache = ObjCClass(named: "NSCache") else { return }
        try context.install(setObjectForKeyCost, on: [cache])
    }

    typealias SetObjectForKeyCost = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt) -> Void

    static let setObjectForKeyCost: GuardedMethod<SetObjectForKeyCost> = GuardedMethod("setObject:forKey:cost:", .container) { r, cmd, object, key, cost in
        let violation: Violation? = object != nil ? nil : .nilCacheValue(key: String(describing: key, limit: 4096))
        setObjectForKeyCost.mutation(r, cmd, violation) { $0(r, cmd, object, key, cost) }
    }
}
