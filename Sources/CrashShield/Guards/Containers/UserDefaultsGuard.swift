import CrashShieldRuntime.Internal

/// `-[NSUserDefaults setObject:forKey:]` with a nil key and a value. Both Foundations raise: GNUstep "attempt to set
/// object with bad key ((null))", Apple (text unverified on a device) "attempt to insert nil key". The typed setters
/// (`setInteger:forKey:`, `setBool:forKey:`, `setDouble:forKey:`, `setFloat:forKey:`, and `setValue:forKey:`) send
/// `setObject:forKey:` on GNUstep, so the one hook covers them. `setObject:nil forKey:` removes the key (legal), and
/// with a nil key too GNUstep removes nothing: left alone. GNUstep also rejects an empty or non-string key; only a
/// nil one is guarded (Apple's precondition for those is not known).
///
/// The container guard: the defaults are a keyed store with NSMutableDictionary's contract for `setObject:forKey:`
/// (a nil key raises NSInvalidArgumentException), the failure the container guard stops everywhere else.
/// Recovery: the call is skipped (the defaults are unchanged).
enum UserDefaultsGuard {
    static func install(in context: GuardContext) throws {
        guard let defaults = ObjCClass(named: "NSUserDefaults") else { return }
        try context.install(setObjectForKey, on: [defaults])
    }

    static let setObjectForKey: HookPoint<ContainerIMP.VoidWithObjectObject> = HookPoint("setObject:forKey:") { receiver, cmd, value, key in
        guard let original = setObjectForKey.original(for: receiver) else { return }
        if key != nil || value == nil { return original(receiver, cmd, value, key) }
        if GuardFailure.stopOrRaise(.container, receiver, cmd, setObjectForKey, FoundationMessages.invalidArgument,
                                    hint: "check the key for nil before storing a default", reason: {
            FoundationRules.isApple
                ? FoundationMessages.apple($0, "setObject:forKey:", "attempt to insert nil key")
                : "attempt to set object with bad key ((null))"
        }) { return }
        original(receiver, cmd, value, key)
    }
}
