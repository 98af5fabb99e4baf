import CrashShieldRuntime.Internal

/// NSString's C-string and byte constructors beyond UTF-8 (`StringHooks` has the UTF-8 ones), given NULL. Recovery: an
/// empty string of the class asked for (the original with "" or a length of 0).
///
/// GNUstep 1.28: `+stringWithCString:encoding:` and `-initWithCString:encoding:` (NSString.m, run by every
/// placeholder) raise for NULL, naming NSString whatever the class. `-initWithBytes:length:encoding:` with NULL raises
/// only for a length above 0 (a length of 0 answers an empty string): GSPlaceholderString's checks at once
/// ("-initWithBytes:lenth:encoding given nul bytes", GNUstep's spelling), GSMutableString's first looks for a byte
/// order mark (`fixBOM`), which reads the NULL bytes for NSUnicodeStringEncoding and a length of 2 or more and for
/// NSUTF8StringEncoding and a length of 3 or more (SIGSEGV), and raises the same exception otherwise.
/// Apple: CoreFoundation raises `NULL cString` for the C-string forms (unverified text); CFStringCreateWithBytes
/// reads NULL bytes of a nonzero length (a crash, not an exception: reported as SIGSEGV, unverified on a device).
///
/// All three are check-first (CSRCheckFirst.h): a valid call jumps from a C trampoline straight to the original.
enum CStringConstructorHooks {
    typealias InitWithCStringEncoding =
        @convention(c) (CSRObject?, CSRSelector?, UnsafePointer<CChar>?, UInt) -> CSRObject?
    typealias InitWithBytes = @convention(c) (CSRObject?, CSRSelector?, UnsafeRawPointer?, UInt, UInt) -> CSRObject?

    static func install(in context: GuardContext, placeholders: [ObjCClass], root: ObjCClass) throws {
        // Class constructor: on NSString only (NSMutableString inherits it).
        try context.install(stringWithCStringEncoding, on: [root])
        try context.install([initWithCStringEncoding, initWithBytes] as [AnyHookPoint], on: placeholders)
    }

    static let stringWithCStringEncoding: GuardedMethod<InitWithCStringEncoding> = GuardedMethod(
        "stringWithCString:encoding:", .string, kind: .class, checkFirst: Int32(CSRHotStringWithCStringEncoding)
    ) { r, cmd, bytes, encoding in
        stringWithCStringEncoding.read(
            r, cmd, valid: bytes != nil,
            else: .nullCString(
                { _ in "[NSString+stringWithCString:encoding:]: NULL cString" },
                method: "stringWithCString:encoding:", isClassMethod: true),
            recovery: { original in "".withCString { original(r, cmd, $0, encoding) } }
        ) { $0(r, cmd, bytes, encoding) }
    }

    static let initWithCStringEncoding: GuardedMethod<InitWithCStringEncoding> = GuardedMethod(
        "initWithCString:encoding:", .string, checkFirst: Int32(CSRHotStringInitWithCStringEncoding)
    ) { r, cmd, bytes, encoding in
        initWithCStringEncoding.read(
            r, cmd, valid: bytes != nil,
            else: .nullCString(
                { _ in "[NSString-initWithCString:encoding:]: NULL cString" },
                method: "initWithCString:encoding:"),
            recovery: { original in "".withCString { original(r, cmd, $0, encoding) } }
        ) { $0(r, cmd, bytes, encoding) }
    }

    /// Recovery: the original with a length of 0 (an empty string; GNUstep's placeholder answers its constant "").
    static let initWithBytes: GuardedMethod<InitWithBytes> = GuardedMethod(
        "initWithBytes:length:encoding:", .string, checkFirst: Int32(CSRHotStringInitWithBytes)
    ) { r, cmd, bytes, length, encoding in
        initWithBytes.read(
            r, cmd, valid: bytes != nil || length == 0,
            else: .nullBytes(length: length, encoding: encoding, mutable: isMutable(r)),
            recovery: { $0(r, cmd, nil, 0, encoding) }
        ) { $0(r, cmd, bytes, length, encoding) }
    }

    private static let mutableStringClass = ObjCClass(named: "NSMutableString")

    private static func isMutable(_ receiver: CSRObject?) -> Bool {
        guard let mutable = mutableStringClass, let cls = ObjCClass(of: receiver) else { return false }
        return cls.isKind(of: mutable)
    }
}
