import CrashShieldRuntime.Internal

/// NSData's Base64 initializers given nil: `-initWithBase64EncodedString:options:` and
/// `-initWithBase64EncodedData:options:` (NSData.m's, which every data class inherits; `NSMutableData` included),
/// hooked where they are implemented.
/// GNUstep 1.28 raises `[Class-initWithBase64EncodedString:options:] called with nil string` (`... nil data`),
/// naming the receiver's class, after autoreleasing the receiver. Apple: an invalid-argument exception (text
/// unverified on a device). Recovery: nil, as for Base64 that does not decode (the original given an invalid
/// character and no options, so Foundation itself releases the receiver and answers nil).
enum Base64Hooks {
    typealias InitWithObjectOptions = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt) -> CSRObject?

    static func install(in context: GuardContext) throws {
        // On the owners (GNUstep: NSData itself), not the placeholders: `[[NSDataStatic alloc] init...]` and every
        // other data class's own `+alloc` reach the same implementation.
        guard let data = ClassFamily("NSData", "NSMutableData") else { return }
        try context.install([initWithBase64String, initWithBase64Data] as [AnyHookPoint], onOwnersIn: data)
    }

    static let initWithBase64String: GuardedMethod<InitWithObjectOptions> = GuardedMethod(
        "initWithBase64EncodedString:options:", .container
    ) { r, cmd, string, options in
        initWithBase64String.read(
            r, cmd, valid: string != nil, else: .nilBase64(data: false),
            recovery: { $0(r, cmd, csr_string_create("!"), 0) }
        ) { $0(r, cmd, string, options) }
    }

    static let initWithBase64Data: GuardedMethod<InitWithObjectOptions> = GuardedMethod(
        "initWithBase64EncodedData:options:", .container
    ) { r, cmd, data, options in
        initWithBase64Data.read(
            r, cmd, valid: data != nil, else: .nilBase64(data: true),
            recovery: { $0(r, cmd, undecodable(), 0) }
        ) { $0(r, cmd, data, options) }
    }

    private typealias DataUsingEncoding = @convention(c) (CSRObject?, CSRSelector?, UInt) -> CSRObject?
    private static let dataUsingEncoding = csr_sel_register("dataUsingEncoding:")

    /// "!" as UTF-8 data (autoreleased): Base64 that does not decode.
    private static func undecodable() -> CSRObject? {
        let string = csr_string_create("!")
        return Messaging.implementation(string, dataUsingEncoding, as: DataUsingEncoding.self)(
            string, dataUsingEncoding, 4)
    }
}
