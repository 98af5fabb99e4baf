import CrashShieldRuntime.Internal

/// `-[NSUserDefaults setObject:forKey:]` with a nil key and a value, or with a value that is not a property list.
///
/// A nil key: both Foundations raise: GNUstep "attempt to set object with bad key ((null))", Apple (text unverified
/// on a device) "attempt to insert nil key". The typed setters (`setInteger:forKey:`, `setBool:forKey:`,
/// `setDouble:forKey:`, `setFloat:forKey:`, and `setValue:forKey:`) send `setObject:forKey:` on GNUstep, so the one
/// hook covers them. `setObject:nil forKey:` removes the key (legal), and with a nil key too GNUstep removes nothing:
/// left alone. GNUstep also rejects an empty or non-string key; only a nil one is guarded (Apple's precondition for
/// those is not known).
///
/// A value that is not a property list (an NSNull in a dictionary, a custom object): GNUstep 1.28 (NSUserDefaults.m,
/// `isPlistObject`, after the key check) raises `attempt to set non property list object (%@) for key (%@)`; Apple
/// `Attempt to insert non-property list object %@ for key %@` (public crash logs). The check is the running
/// Foundation's (`PropertyListCheck`): GNUstep accepts any property-list key in a dictionary (an NSDate key passes),
/// Apple only string keys. Under GNUstep's rules a value whose key GNUstep rejects first (empty, not a string) is
/// left to Foundation, which raises its own bad-key reason.
///
/// The container guard: the defaults are a keyed store with NSMutableDictionary's contract for `setObject:forKey:`.
/// Recovery: the call is skipped (the defaults are unchanged).
enum UserDefaultsHooks {
    static func install(in context: GuardContext) throws {
        guard let defaults = ObjCClass(named: "NSUserDefaults") else { return }
        try context.install(setObjectForKey, on: [defaults])
    }

    static let setObjectForKey: GuardedMethod<ContainerIMP.VoidWithObjectObject> = GuardedMethod(
        "setObject:forKey:", .container
    ) { r, cmd, value, key in
        setObjectForKey.mutation(
            r, cmd, valid: value == nil || (key != nil && PropertyListCheck.isPropertyList(value)),
            else: failure(value, key)
        ) { $0(r, cmd, value, key) }
    }

    /// What the running Foundation raises for a call the fast check refused, or nil where it raises something else.
    private static func failure(_ value: CSRObject?, _ key: CSRObject?) -> Violation? {
        guard let key else {
            return .fixed(
                ExceptionName.invalidArgument, "attempt to set object with bad key ((null))",
                method: "setObject:forKey:",
                apple: "attempt to insert nil key", hint: "check the key for nil before storing a default")
        }
        // GNUstep checks the key (a non-empty string) before the value: a bad key is its own failure, not guarded.
        if !FoundationRules.isApple,
            !PropertyListCheck.isKind(key, PropertyListCheck.classes.string) || length(of: key) == 0
        {
            return nil
        }
        return .nonPropertyListDefault(
            value: String(describing: value, limit: 4096), key: String(describing: key, limit: 4096))
    }
}

/// Whether an object is a property list as the running Foundation's NSUserDefaults decides it, with the messages
/// GNUstep's `isPlistObject` (NSUserDefaults.m) sends: `isKindOfClass:` NSString, NSData, NSDate, NSNumber (yes);
/// NSArray (every element, `objectEnumerator`); NSDictionary (every key and value, `keyEnumerator`, `objectForKey:`);
/// anything else (NSNull, a custom object) no. Apple's rules (Apple's documentation of `setObject:forKey:` and of
/// property lists): the same types, and a dictionary's keys are strings.
/// A string or a number, the common values, cost one class walk and no message.
enum PropertyListCheck {
    struct Classes: @unchecked Sendable {
        let string, data, date, number, array, dictionary: ObjCClass?
    }
    static let classes = Classes(
        string: ObjCClass(named: "NSString"), data: ObjCClass(named: "NSData"),
        date: ObjCClass(named: "NSDate"), number: ObjCClass(named: "NSNumber"),
        array: ObjCClass(named: "NSArray"), dictionary: ObjCClass(named: "NSDictionary"))

    private typealias IsKindIMP = @convention(c) (CSRObject?, CSRSelector?, CSRClass?) -> UInt8
    private typealias ObjectWithObjectIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    private static let isKindOfClass = ObjCSelector("isKindOfClass:")
    private static let objectEnumerator = ObjCSelector("objectEnumerator")
    private static let keyEnumerator = ObjCSelector("keyEnumerator")
    private static let nextObject = ObjCSelector("nextObject")
    private static let objectForKey = ObjCSelector("objectForKey:")

    /// `[object isKindOfClass: cls]`, as Foundation asks it (a proxy answers for its target).
    static func isKind(_ object: CSRObject?, _ cls: ObjCClass?) -> Bool {
        guard let object, let cls else { return false }
        let selector = isKindOfClass.pointer
        return Messaging.implementation(object, selector, as: IsKindIMP.self)(object, selector, cls.pointer) != 0
    }

    static func isPropertyList(_ object: CSRObject?) -> Bool {
        let c = classes
        // The common values: a class walk answers as isKindOfClass: does for every NSObject.
        if let cls = ObjCClass(of: object), let string = c.string, let number = c.number,
            cls.isKind(of: string) || cls.isKind(of: number)
        {
            return true
        }
        return isPlist(object, stringKeys: FoundationRules.isApple)
    }

    private static func isPlist(_ object: CSRObject?, stringKeys: Bool) -> Bool {
        let c = classes
        if isKind(object, c.string) || isKind(object, c.data) || isKind(object, c.date) || isKind(object, c.number) {
            return true
        }
        if isKind(object, c.array) {
            return forEach(in: object, keys: false) { element, _ in isPlist(element, stringKeys: stringKeys) }
        }
        if isKind(object, c.dictionary) {
            return forEach(in: object, keys: true) { key, value in
                (stringKeys ? isKind(key, c.string) : isPlist(key, stringKeys: stringKeys))
                    && isPlist(value, stringKeys: stringKeys)
            }
        }
        return false
    }

    /// Each element of an array (`objectEnumerator`), or each key and its value of a dictionary (`keyEnumerator`,
    /// `objectForKey:`), while `body` answers true; false when it answered false.
    @discardableResult
    static func forEach(in collection: CSRObject?, keys: Bool, _ body: (CSRObject?, CSRObject?) -> Bool) -> Bool {
        guard keys else {
            return all(Messaging.sendObject(collection, objectEnumerator.pointer)) { body($0, nil) }
        }
        let lookup = objectForKey.pointer
        let valueFor = Messaging.implementation(collection, lookup, as: ObjectWithObjectIMP.self)
        return all(Messaging.sendObject(collection, keyEnumerator.pointer)) { key in
            body(key, valueFor(collection, lookup, key))
        }
    }

    /// Whether `test` holds for every object `enumerator` gives (`nextObject` until nil), stopping at the first failure.
    private static func all(_ enumerator: CSRObject?, _ test: (CSRObject?) -> Bool) -> Bool {
        let next = nextObject.pointer
        guard let enumerator else { return true }
        let step = Messaging.implementation(enumerator, next, as: Messaging.ObjectIMP.self)
        while let element = step(enumerator, next) {
            if !test(element) { return false }
        }
        return true
    }
}
