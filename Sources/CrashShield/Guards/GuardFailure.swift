import CrashShieldRuntime

/// The failure path every hook-based guard takes when its precondition check failed.
enum GuardFailure {
    /// Reports a stopped call. true: recover (return a safe value, skip the mutation); false: call the original
    /// (guard off, class excluded, hook reverted in place, or debug mode for a call from the app's own code).
    @inline(never)
    static func stop(_ category: GuardCategory, _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint,
                     _ exception: String, hint: String, details: [String: String] = [:],
                     throughForwarding: Bool = false, reason: (String) -> String) -> Bool {
        guard point.isActive(for: receiver) else { return false }
        return Interception.shouldRecover(category, receiver: receiver, selector: cmd, exception: exception,
                                          reason: { reason(className(receiver)) }, hint: hint, details: details,
                                          implementation: point.replacementAddress,
                                          throughForwarding: throughForwarding)
    }

    /// Class name of a receiver (the class itself for a class object).
    static func className(_ receiver: CSRObject?) -> String {
        guard let cls = ObjCClass(of: receiver) else { return "nil" }
        return cls.isMetaclass ? ObjCClass(receiver!).name : cls.name
    }
}
