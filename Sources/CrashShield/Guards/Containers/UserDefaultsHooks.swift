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
enum UserDefaultsHooks {
    static func install(in context: GuardContext) throws {
        guard let defaults = ObjCClass(named: "NSUserDefaults") else { return }
        try context.install(setObjectForKey, on: [defaults])
    }

    static let setObjectForKey: GuardedMethod<ContainerIMP.VoidWithObjectObject> = GuardedMethod("setObject:forKey:", .container) { r, cmd, value, key in
        setObjectForKey.mutation(r, cmd, valid: key != nil || value == nil, else: .fixed(ExceptionName.invalidArgument,
            "attempt to set object with bad key ((null))", method: "setObject:forKey:", apple: "attempt to insert nil key",
            hint: "check the key for nil before storing a default")) { $0(r, cmd, value, key) }
    }
}
