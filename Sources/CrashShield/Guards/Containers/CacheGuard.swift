import CrashShieldRuntime.Internal

/// NSCache, under Apple's rules only (`FoundationRules`): Apple raises for a nil object, GNUstep stores nothing.
/// `setObject:forKey:` reaches `setObject:forKey:cost:` on both Foundations (Apple's reason names the latter), so one
/// hook covers both. A subclass's override that calls super reaches it too. Recovery: the call is skipped (the cache
/// keeps what it had for the key). Apple's text unverified on a device.
enum CacheGuard {
    static func install(in context: GuardContext) throws {
        guard FoundationRules.isApple, let cache = ObjCClass(named: "NSCache") else { return }
        try context.install(setObjectForKeyCost, on: [cache])
    }

    typealias SetObjectForKeyCost = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt) -> Void

    static let setObjectForKeyCost: HookPoint<SetObjectForKeyCost> = HookPoint("setObject:forKey:cost:") { receiver, cmd, object, key, cost in
        guard let original = setObjectForKeyCost.original(for: receiver) else { return }
        if object != nil { return original(receiver, cmd, object, key, cost) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectForKeyCost, FoundationMessages.invalidArgument,
                                    hint: "check the object for nil before caching it (removeObjectForKey: removes)", reason: {
            FoundationMessages.apple($0, "setObject:forKey:cost:",
                                     "attempt to insert nil value (key: \(String(describing: key, limit: 4096)))")
        }) { return }
        original(receiver, cmd, object, key, cost)
    }
}
