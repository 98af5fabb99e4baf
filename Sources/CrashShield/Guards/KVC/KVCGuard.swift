#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CrashShieldRuntime.Internal

/// Stops key-value coding failures: an undefined key (`setValue:forKey:`, `valueForKey:`, key paths through an
/// undefined key, `setValuesForKeysWithDictionary:` with unknown keys), a nil key, and a nil value for a scalar
/// property.
///
/// Where it hooks: NSObject's own fallbacks, `setValue:forUndefinedKey:`, `valueForUndefinedKey:` and
/// `setNilValueForKey:`, installed once, on NSObject only. Every KVC entry point ends in one of them when it fails,
/// so one check covers `setValue:forKey:`, key paths, `setValuesForKeysWithDictionary:`, `dictionaryWithValuesForKeys:`
/// and collection operators alike. On GNUstep a nil key also ends there (`setValue:x forKey:nil` calls
/// `setValue:forUndefinedKey:` with a nil key, `valueForKey:nil` calls `valueForUndefinedKey:`); Apple raises for a
/// nil key in `setValue:forKey:` itself, which is checked there under Apple's rules only (`FoundationRules`).
///
/// The guard acts only where NSObject's fallback really raises: when the receiver's class reaches NSObject's
/// implementation directly (an override that calls `super` asked for NSObject's exception), and, on GNUstep, does not
/// answer through the older handler NSObject's fallback calls instead of raising (`handleQueryWithUnboundKey:`,
/// `handleTakeValue:forUnboundKey:`, `unableToSetNilForKey:`). NSDictionary's KVC (`valueForKey:` is `objectForKey:`,
/// `setValue:nil forKey:` removes) never reaches these methods.
///
/// One bad call, one report: a collection's KVC call (`valueForKey:`, `valueForKeyPath:`, `setValue:forKey:` of
/// NSArray, NSSet, NSOrderedSet, collection operators included) sends the key to every element; Foundation's
/// exception ends it at the first element that fails. The guard does the same (`KVCScope`): the first failure is
/// reported, Foundation raises it, and the outermost collection call on the thread ends there and returns nil. No
/// element after it is asked, so nothing downstream sees a recovered nil (`@unionOfObjects` would add it to an array),
/// and GNUstep's `valueForKeyPath:nil`, which recurses through `[[self valueForKey:nil] valueForKeyPath:nil]` until an
/// element raises, stops at that element instead of recursing for ever.
///
/// Recovery: `valueForUndefinedKey:` returns nil (never the receiver); a set is skipped, so the property keeps its
/// value (`setValuesForKeysWithDictionary:` still sets every known key, each unknown one is reported); a collection's
/// call returns nil, or stops at the failing element (a `setValue:forKey:` has set the elements before it, as
/// Foundation has).
enum KVCGuard {
    typealias M = KVCLegacyHandlers

    static func install(in context: GuardContext) throws {
        guard let root = ObjCClass(named: "NSObject") else { return }
        var points: [AnyHookPoint] = [Self.setValueForUndefinedKey, Self.valueForUndefinedKey, Self.setNilValueForKey]
        if FoundationRules.isApple { points.append(Self.setValueForNilKey) }
        for point in points { try context.install(point, on: [root]) }
        for names in [
            ("NSArray", "NSMutableArray"), ("NSSet", "NSMutableSet"), ("NSOrderedSet", "NSMutableOrderedSet"),
        ] {
            guard let family = ClassFamily(names.0, names.1) else { continue }
            for point in [Self.collectionValueForKey, Self.collectionValueForKeyPath, Self.collectionSetValueForKey]
                as [AnyHookPoint]
            {
                try context.install(point, onOwnersIn: family)
            }
        }
    }

    typealias ObjectWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    typealias VoidWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias VoidWithObjectObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> Void

    /// Whether NSObject's fallback `point` raises for this receiver: its class reaches NSObject's (hooked)
    /// implementation rather than an override of its own, and does not handle the key through `legacyHandler`.
    @inline(__always)
    static func fallbackRaises(_ receiver: CSRObject?, _ point: AnyHookPoint, legacyHandler: CSRSelector?) -> Bool {
        let imp = csr_msg_lookup(receiver, point.selector.pointer)
        guard imp.map({ unsafeBitCast($0, to: UInt.self) }) == unsafeBitCast(point.replacement, to: UInt.self) else {
            return false
        }
        return !M.overridesLegacyHandler(receiver, legacyHandler)
    }

    private static func details(_ key: CSRObject?) -> [String: String] {
        ["key": key == nil ? "nil" : String(describing: key, limit: 512)]
    }

    /// The failure path of the fallbacks. true: skip the original (return nil, or leave the property as it is);
    /// false: run it (it raises: debug mode, guard off, or a failure inside a collection's call, which ends there).
    private static func stops(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint, key: CSRObject?, _ violation: Violation
    ) -> Bool {
        let verdict = IncidentPath.handle(
            Incident(
                .kvc, receiver: receiver, selector: cmd, violation, details: details(key),
                point: point, callSite: .firstAppFrame))
        return verdict == .recover && !KVCScope.endsCallInProgress()
    }

    static let setValueForUndefinedKey: HookPoint<VoidWithObjectObject> = HookPoint("setValue:forUndefinedKey:") {
        receiver, cmd, value, key in
        guard let original = setValueForUndefinedKey.original(for: receiver) else { return }
        if fallbackRaises(receiver, setValueForUndefinedKey, legacyHandler: M.legacyTakeValue),
            stops(receiver, cmd, setValueForUndefinedKey, key: key, .undefinedKeySet(receiver: receiver, key: key))
        {
            return
        }
        original(receiver, cmd, value, key)
    }

    /// Recovery: nil.
    static let valueForUndefinedKey: HookPoint<ObjectWithObject> = HookPoint("valueForUndefinedKey:") {
        receiver, cmd, key in
        guard let original = valueForUndefinedKey.original(for: receiver) else { return nil }
        if fallbackRaises(receiver, valueForUndefinedKey, legacyHandler: M.legacyQuery),
            stops(receiver, cmd, valueForUndefinedKey, key: key, .undefinedKeyValue(receiver: receiver, key: key))
        {
            return nil
        }
        return original(receiver, cmd, key)
    }

    /// `setValue:nil forKey:` for a scalar (int, float, struct) property. Recovery: skipped (the property keeps its value).
    static let setNilValueForKey: HookPoint<VoidWithObject> = HookPoint("setNilValueForKey:") { receiver, cmd, key in
        guard let original = setNilValueForKey.original(for: receiver) else { return }
        if fallbackRaises(receiver, setNilValueForKey, legacyHandler: M.legacyNilHandler),
            stops(receiver, cmd, setNilValueForKey, key: key, .nilValueForKey(receiver: receiver, key: key))
        {
            return
        }
        original(receiver, cmd, key)
    }

    // MARK: Collections' KVC: one call, however many elements fail (see `KVCScope`)

    static let collectionValueForKey: HookPoint<ObjectWithObject> = HookPoint("valueForKey:") { receiver, cmd, key in
        guard let original = collectionValueForKey.original(for: receiver) else { return nil }
        return KVCScope.call(original, receiver, cmd, key)
    }

    static let collectionValueForKeyPath: HookPoint<ObjectWithObject> = HookPoint("valueForKeyPath:") {
        receiver, cmd, path in
        guard let original = collectionValueForKeyPath.original(for: receiver) else { return nil }
        return KVCScope.call(original, receiver, cmd, path)
    }

    static let collectionSetValueForKey: HookPoint<VoidWithObjectObject> = HookPoint("setValue:forKey:") {
        receiver, cmd, value, key in
        guard let original = collectionSetValueForKey.original(for: receiver) else { return }
        KVCScope.call(original, receiver, cmd, value, key)
    }

    /// Apple raises for a nil key in `setValue:forKey:` itself (installed under Apple's rules only; GNUstep's goes on to
    /// `setValue:forUndefinedKey:`). Recovery: skipped.
    static let setValueForNilKey: HookPoint<VoidWithObjectObject> = HookPoint("setValue:forKey:") {
        receiver, cmd, value, key in
        guard let original = setValueForNilKey.original(for: receiver) else { return }
        if key != nil { return original(receiver, cmd, value, key) }
        if IncidentPath.handle(
            Incident(
                .kvc, receiver: receiver, selector: cmd, .nilKeyForSetValue, details: details(key),
                point: setValueForNilKey, callSite: .firstAppFrame)) == .recover
        {
            return
        }
        original(receiver, cmd, value, key)
    }
}

extension GuardDeclaration {
    /// No state: a collection call's scope is per thread and per call (`KVCScope`).
    static let kvc = GuardDeclaration(.kvc, install: KVCGuard.install)
}

/// The KVC call a collection makes for its elements, treated as the one call the app made. The outermost collection
/// call on a thread opens the scope and runs under `@try`; a failure the guard stops inside it runs NSObject's
/// fallback anyway, whose exception (Foundation's own, userInfo included) ends the call exactly where Foundation's
/// does, and is caught there: the collection call returns nil. Any other exception (debug mode, a guard switched
/// off, the app's own) goes on unchanged. Nested collection calls run inside the outer scope. The state is one word
/// per thread (a pthread key's value: no allocation).
enum KVCScope {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    private static let open: UInt = 1
    private static let ending: UInt = 2

    private static var state: UInt {
        get { UInt(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    /// Inside a scope, marks the exception about to be raised as the end of the collection's call (true).
    static func endsCallInProgress() -> Bool {
        let current = state
        guard current & open != 0 else { return false }
        state = current | ending
        return true
    }

    /// One collection call: its original, its arguments, what it returned.
    private struct Call {
        let original: UnsafeRawPointer
        let receiver: CSRObject?
        let cmd: CSRSelector?
        let first: CSRObject?
        let second: CSRObject?
        var result: CSRObject?
    }

    static func call(
        _ original: KVCGuard.ObjectWithObject, _ receiver: CSRObject?, _ cmd: CSRSelector?,
        _ argument: CSRObject?
    ) -> CSRObject? {
        if state & open != 0 { return original(receiver, cmd, argument) }
        var call = Call(
            original: unsafeBitCast(original, to: UnsafeRawPointer.self), receiver: receiver, cmd: cmd,
            first: argument, second: nil, result: nil)
        run(&call) { raw in
            let call = raw!.assumingMemoryBound(to: Call.self)
            let original = unsafeBitCast(call.pointee.original, to: KVCGuard.ObjectWithObject.self)
            call.pointee.result = original(call.pointee.receiver, call.pointee.cmd, call.pointee.first)
        }
        return call.result
    }

    static func call(
        _ original: KVCGuard.VoidWithObjectObject, _ receiver: CSRObject?, _ cmd: CSRSelector?,
        _ first: CSRObject?, _ second: CSRObject?
    ) {
        if state & open != 0 { return original(receiver, cmd, first, second) }
        var call = Call(
            original: unsafeBitCast(original, to: UnsafeRawPointer.self), receiver: receiver, cmd: cmd,
            first: first, second: second, result: nil)
        run(&call) { raw in
            let call = raw!.assumingMemoryBound(to: Call.self)
            let original = unsafeBitCast(call.pointee.original, to: KVCGuard.VoidWithObjectObject.self)
            original(call.pointee.receiver, call.pointee.cmd, call.pointee.first, call.pointee.second)
        }
    }

    /// Opens the scope, runs `body` under `@try`, closes the scope. An ended call returns nil.
    private static func run(_ call: inout Call, _ body: CSRBody) {
        state = open
        let ended = withUnsafeMutablePointer(to: &call) { pointer in
            csr_try_filtered(
                body,
                { _, _ in
                    let ended = KVCScope.state & KVCScope.ending != 0
                    KVCScope.state = 0
                    return ended
                }, pointer)
        }
        state = 0
        if ended { call.result = nil }
    }
}

/// The older (pre-10.3) handlers GNUstep's NSObject fallbacks call instead of raising. (What KVC raises is worded in
/// FoundationFailures.swift.)
enum KVCLegacyHandlers {
    /// The older (pre-10.3) handlers GNUstep's NSObject fallbacks call, instead of raising, when a class overrides
    /// them: `valueForUndefinedKey:` answers `handleQueryWithUnboundKey:`, `setValue:forUndefinedKey:` calls
    /// `handleTakeValue:forUnboundKey:`, `setNilValueForKey:` calls `unableToSetNilForKey:`.
    static let legacyQuery = csr_sel_register("handleQueryWithUnboundKey:")
    static let legacyTakeValue = csr_sel_register("handleTakeValue:forUnboundKey:")
    static let legacyNilHandler = csr_sel_register("unableToSetNilForKey:")

    /// Whether the receiver's class overrides NSObject's `handler` (GNUstep then calls it and raises nothing; Apple
    /// has no such handlers).
    static func overridesLegacyHandler(_ receiver: CSRObject?, _ handler: CSRSelector?) -> Bool {
        guard !FoundationRules.isApple, let root = ObjCClass(named: "NSObject"), let cls = ObjCClass(of: receiver),
            let inherited = csr_class_methodImplementation(root.pointer, handler)
        else { return false }
        let own = csr_class_methodImplementation(cls.pointer, handler)
        return own.map { unsafeBitCast($0, to: UInt.self) } != unsafeBitCast(inherited, to: UInt.self)
    }
}
