import CrashShieldRuntime.Internal

/// `+dictionaryWithObjectsAndKeys:` and `-initWithObjectsAndKeys:` with a nil key. Both Foundations read the list up
/// to its first nil and raise when that nil falls on a key (an odd count: a nil key in a pair, or a list that ends
/// after an object): GNUstep from `initWithObjects:forKeys:count:` ("Tried to init dictionary with nil key"), Apple
/// from the method itself ("second object of each pair must be non-nil"). A nil object ends the list on both, which
/// is legal (the pairs before it make the dictionary) and left alone.
///
/// Recovery: the dictionary of the complete pairs before the nil (the object without a key is dropped); the
/// arguments after a nil are never read (it may be the list's end). A valid call builds the dictionary with
/// `initWithObjects:forKeys:count:` from the same pairs, as both Foundations do (see CSRVariadic.h).
enum ObjectsAndKeysHooks {

    static func install(in context: GuardContext) throws {
        guard let dictionary = ObjCClass(named: "NSDictionary"),
            let dictionaries = ClassFamily("NSDictionary", "NSMutableDictionary")
        else { return }
        try context.install(dictionaryWithObjectsAndKeys, on: [dictionary])
        try context.install(initWithObjectsAndKeys, onOwnersIn: dictionaries)
    }

    static let dictionaryWithObjectsAndKeys = VariadicHookPoint(
        "dictionaryWithObjectsAndKeys:", kind: .class, trampoline: Int32(CSRVariadicDictionaryWithObjectsAndKeys),
        category: .container
    ) { _ in .nilKeyInList("dictionaryWithObjectsAndKeys:", isClassMethod: true) }

    static let initWithObjectsAndKeys = VariadicHookPoint(
        "initWithObjectsAndKeys:", trampoline: Int32(CSRVariadicInitWithObjectsAndKeys), category: .container
    ) { _ in .nilKeyInList("initWithObjectsAndKeys:", isClassMethod: false) }
}
