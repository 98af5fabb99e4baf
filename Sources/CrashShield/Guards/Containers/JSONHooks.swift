import CrashShieldRuntime.Internal

/// NSJSONSerialization, under Apple's rules only (`FoundationRules`). Apple raises NSInvalidArgumentException for
/// `+JSONObjectWithData:options:error:` with nil data (`data parameter is nil`) and for `+dataWithJSONObject:options:
/// error:` with an object `+isValidJSONObject:` refuses (Apple's documentation of `isValidJSONObject:`: the top level
/// is an NSArray or NSDictionary unless NSJSONWritingFragmentsAllowed is set; every object is an NSString, NSNumber,
/// NSArray, NSDictionary or NSNull; every dictionary key is an NSString; no number is NaN or infinity). GNUstep 1.28
/// (NSJSONSerialization.m) raises for none of these: it answers nil and an NSError, so nothing is hooked there.
///
/// Recovery: nil, and where the caller passed an error pointer, an NSError in NSCocoaErrorDomain with code 3840 (the
/// code of Apple's own JSON failures) whose NSDebugDescription is the reason: what a valid failure gives.
enum JSONHooks {
    typealias JSONMethod =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, UnsafeMutablePointer<CSRObject?>?) -> CSRObject?

    static func install(in context: GuardContext) throws {
        // GNUstep answers nil and an NSError for every one of these calls: only Apple's Foundation raises.
        guard FoundationRules.isApple, let json = ObjCClass(named: "NSJSONSerialization") else { return }
        try context.install([jsonObjectWithData, dataWithJSONObject] as [AnyHookPoint], on: [json])
    }

    static let jsonObjectWithData: GuardedMethod<JSONMethod> = GuardedMethod(
        "JSONObjectWithData:options:error:", .container, kind: .class
    ) { r, cmd, data, options, error in
        jsonObjectWithData.read(
            r, cmd, valid: data != nil, else: .nilJSONData,
            recovery: { _ in failed(error, .nilJSONData) }
        ) { $0(r, cmd, data, options, error) }
    }

    static let dataWithJSONObject: GuardedMethod<JSONMethod> = GuardedMethod(
        "dataWithJSONObject:options:error:", .container, kind: .class
    ) { r, cmd, object, options, error in
        let violation = JSONCheck.writeFailure(object, fragmentsAllowed: options & fragmentsAllowed != 0)
        return dataWithJSONObject.read(r, cmd, violation, recovery: { _ in failed(error, violation) }) {
            $0(r, cmd, object, options, error)
        }
    }

    /// NSJSONWritingFragmentsAllowed.
    static let fragmentsAllowed: UInt = 1 << 2
    /// The code of Apple's JSON failures (NSPropertyListReadCorruptError's value, which JSON errors reuse).
    static let errorCode = 3840

    /// nil, and the NSError the caller asked for.
    private static func failed(_ error: UnsafeMutablePointer<CSRObject?>?, _ violation: Violation?) -> CSRObject? {
        if let error, let violation {
            error.pointee = csr_cocoa_error_create(errorCode, violation.reason("NSJSONSerialization"))
        }
        return nil
    }
}

/// Apple's `+isValidJSONObject:` rules, walked in the order Apple's writer meets the objects (depth first, a
/// dictionary's key before its value): the first object it refuses decides the reason.
enum JSONCheck {
    private typealias DoubleIMP = @convention(c) (CSRObject?, CSRSelector?) -> Double
    private static let doubleValue = ObjCSelector("doubleValue")
    private static let null = ObjCClass(named: "NSNull")

    static func writeFailure(_ object: CSRObject?, fragmentsAllowed: Bool) -> Violation? {
        let c = PropertyListCheck.classes
        let container = PropertyListCheck.isKind(object, c.array) || PropertyListCheck.isKind(object, c.dictionary)
        guard object != nil, container || fragmentsAllowed else { return .invalidJSONTopLevel }
        return failure(object)
    }

    private static func failure(_ object: CSRObject?) -> Violation? {
        let c = PropertyListCheck.classes
        if PropertyListCheck.isKind(object, c.string) || PropertyListCheck.isKind(object, null) { return nil }
        if PropertyListCheck.isKind(object, c.number) {
            let value = Messaging.implementation(object, doubleValue.pointer, as: DoubleIMP.self)(
                object, doubleValue.pointer)
            if value.isNaN { return .invalidJSONNumber("NaN") }
            return value.isInfinite ? .invalidJSONNumber("infinite") : nil
        }
        if PropertyListCheck.isKind(object, c.array) {
            var found: Violation?
            PropertyListCheck.forEach(in: object, keys: false) { element, _ in
                found = failure(element)
                return found == nil
            }
            return found
        }
        if PropertyListCheck.isKind(object, c.dictionary) {
            var found: Violation?
            PropertyListCheck.forEach(in: object, keys: true) { key, value in
                found = PropertyListCheck.isKind(key, c.string) ? failure(value) : .invalidJSONKey
                return found == nil
            }
            return found
        }
        return .invalidJSONType(ObjCClass(of: object)?.name ?? "(null)")
    }
}
