import CrashShieldRuntime

/// Stops key-value coding failures: an undefined key (`setValue:forKey:`, `valueForKey:`, key paths through an
/// undefined key, `setValuesForKeysWithDictionary:` with unknown keys), a nil key, and a nil value for a scalar
/// property.
///
/// Where it hooks: NSObject's own fallbacks, `setValue:forUndefinedKey:`, `valueForUndefinedKey:` and
/// `setNilValueForKey:`, installed once, on NSObject only. Every KVC entry point ends in one of them when it fails,
/// so one check covers `setValue:forKey:`, key paths, `setValuesForKeysWithDictionary:`, `dictionaryWithValuesForKeys:`
/// and collection operators alike. On GNUstep a nil key also ends there (`setValue:x forKey:nil` calls
/// `setValue:forUndefinedKey:` with a nil key, `valueForKey:nil` calls `valueForUndefinedKey:`); Apple raises for a
/// nil key in `setValue:forKey:` itself, which is checked there on Apple platforms only.
///
/// A class that overrides one of the fallbacks keeps its own behaviour: the guard acts only when the receiver's class
/// reaches NSObject's implementation directly (an override that calls `super` asked for NSObject's exception).
/// NSDictionary's KVC (`valueForKey:` is `objectForKey:`, `setValue:nil forKey:` removes) never reaches these methods.
///
/// Recovery: `valueForUndefinedKey:` returns nil (never the receiver); a set is skipped, so the property keeps its
/// value (`setValuesForKeysWithDictionary:` still sets every known key, each unknown one is reported).
final class KVCGuard: CrashGuard {
    static let category = GuardCategory.kvc
    typealias M = KVCMessages

    init() {}

    func install(in context: GuardContext) throws {
        guard let root = ObjCClass(named: "NSObject") else { return }
        var points: [AnyHookPoint] = [Self.setValueForUndefinedKey, Self.valueForUndefinedKey, Self.setNilValueForKey]
        #if canImport(Darwin)
        points.append(Self.setValueForNilKey)
        #endif
        for point in points { try context.install(point, on: [root]) }
    }

    typealias ObjectWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    typealias VoidWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias VoidWithObjectObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void

    /// Whether the receiver's class answers `point`'s selector with NSObject's (hooked) implementation rather than an
    /// override of its own.
    @inline(__always)
    static func reachesNSObject(_ receiver: CSRObject?, _ point: AnyHookPoint) -> Bool {
        let imp = csr_msg_lookup(receiver, point.selector.pointer)
        return imp.map { unsafeBitCast($0, to: UInt.self) } == unsafeBitCast(point.replacement, to: UInt.self)
    }

    private static func details(_ key: CSRObject?) -> [String: String] {
        ["key": key == nil ? "nil" : String(describing: key, limit: 512)]
    }

    static let setValueForUndefinedKey: HookPoint<VoidWithObjectObject> = HookPoint("setValue:forUndefinedKey:") { receiver, cmd, value, key in
        guard let original = setValueForUndefinedKey.original(for: receiver) else { return }
        guard reachesNSObject(receiver, setValueForUndefinedKey) else { return original(receiver, cmd, value, key) }
        if GuardFailure.stop(.kvc, receiver, cmd, setValueForUndefinedKey, M.unknownKey,
                             hint: key == nil ? M.nilKeyHint : M.undefinedKeyHint, details: details(key), callSite: .firstAppFrame, reason: { _ in
            M.setUndefined(receiver: receiver, key: key)
        }) { return }
        original(receiver, cmd, value, key)
    }

    /// Recovery: nil.
    static let valueForUndefinedKey: HookPoint<ObjectWithObject> = HookPoint("valueForUndefinedKey:") { receiver, cmd, key in
        guard let original = valueForUndefinedKey.original(for: receiver) else { return nil }
        guard reachesNSObject(receiver, valueForUndefinedKey) else { return original(receiver, cmd, key) }
        if GuardFailure.stop(.kvc, receiver, cmd, valueForUndefinedKey, M.unknownKey,
                             hint: key == nil ? M.nilKeyHint : M.undefinedKeyHint, details: details(key), callSite: .firstAppFrame, reason: { _ in
            M.valueUndefined(receiver: receiver, key: key)
        }) { return nil }
        return original(receiver, cmd, key)
    }

    /// `setValue:nil forKey:` for a scalar (int, float, struct) property. Recovery: skipped (the property keeps its value).
    static let setNilValueForKey: HookPoint<VoidWithObject> = HookPoint("setNilValueForKey:") { receiver, cmd, key in
        guard let original = setNilValueForKey.original(for: receiver) else { return }
        guard reachesNSObject(receiver, setNilValueForKey), !M.overridesLegacyNilHandler(receiver) else {
            return original(receiver, cmd, key)
        }
        if GuardFailure.stop(.kvc, receiver, cmd, setNilValueForKey, M.invalidArgument,
                             hint: "give scalar properties a number (NSNumber/NSValue), or override setNilValueForKey:",
                             details: details(key), callSite: .firstAppFrame, reason: { _ in
            M.nilValue(receiver: receiver, key: key)
        }) { return }
        original(receiver, cmd, key)
    }

    #if canImport(Darwin)
    /// Apple raises for a nil key in `setValue:forKey:` itself. Recovery: skipped.
    static let setValueForNilKey: HookPoint<VoidWithObjectObject> = HookPoint("setValue:forKey:") { receiver, cmd, value, key in
        guard let original = setValueForNilKey.original(for: receiver) else { return }
        if key != nil { return original(receiver, cmd, value, key) }
        if GuardFailure.stop(.kvc, receiver, cmd, setValueForNilKey, M.invalidArgument, hint: M.nilKeyHint,
                             details: details(key), callSite: .firstAppFrame, reason: { cls in
            "*** -[\(cls) setValue:forKey:]: attempt to set a value for a nil key"
        }) { return }
        original(receiver, cmd, value, key)
    }
    #endif
}

/// What Foundation raises for a KVC failure, per platform (GNUstep's exact texts in the Linux branch; the Apple texts
/// follow iOS's formats).
enum KVCMessages {
    static let unknownKey = "NSUnknownKeyException"
    static let invalidArgument = "NSInvalidArgumentException"
    static let undefinedKeyHint = "check the key (a typo, a renamed property, or a JSON field the model lacks)"
    static let nilKeyHint = "check the key for nil before the call"

    private static let classSelector = csr_sel_register("class")

    /// `[receiver class]` (not the runtime class: a KVO subclass answers with the class it observes).
    static func className(_ receiver: CSRObject?) -> String {
        guard let cls = Messaging.sendObject(receiver, classSelector) else { return "nil" }
        return ObjCClass(cls).name
    }

    /// `%@` of an object ("(null)" for nil), as NSString's format prints it.
    static func format(_ object: CSRObject?) -> String {
        object == nil ? "(null)" : String(describing: object, limit: 4096)
    }

    static func setUndefined(receiver: CSRObject?, key: CSRObject?) -> String {
        #if canImport(Darwin)
        return "[<\(className(receiver)) \(GuardFailure.address(receiver))> setValue:forUndefinedKey:]: this class is not key value coding-compliant for the key \(format(key))."
        #else
        return "Unable to set value for undefined key"
        #endif
    }

    static func valueUndefined(receiver: CSRObject?, key: CSRObject?) -> String {
        #if canImport(Darwin)
        return "[<\(className(receiver)) \(GuardFailure.address(receiver))> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(format(key))."
        #else
        return "Unable to find value for key \"\(format(key))\" of object \(format(receiver)) (\(className(receiver)))"
        #endif
    }

    static func nilValue(receiver: CSRObject?, key: CSRObject?) -> String {
        #if canImport(Darwin)
        return "[<\(className(receiver)) \(GuardFailure.address(receiver))> setNilValueForKey]: could not set nil as the value for the key \(format(key))."
        #else
        return "setNilValueForKey: -- \(className(receiver)) \(GuardFailure.address(receiver)): Given nil value to set for key \"\(format(key))\""
        #endif
    }


    private static let legacyNilHandler = csr_sel_register("unableToSetNilForKey:")

    /// GNUstep calls a class's own `unableToSetNilForKey:` (the pre-10.3 name) from `setNilValueForKey:`; such a
    /// class handles nil itself.
    static func overridesLegacyNilHandler(_ receiver: CSRObject?) -> Bool {
        #if canImport(Darwin)
        return false
        #else
        guard let root = ObjCClass(named: "NSObject"), let cls = ObjCClass(of: receiver),
              let inherited = csr_class_methodImplementation(root.pointer, legacyNilHandler) else { return false }
        let own = csr_class_methodImplementation(cls.pointer, legacyNilHandler)
        return own.map { unsafeBitCast($0, to: UInt.self) } != unsafeBitCast(inherited, to: UInt.self)
        #endif
    }
}
