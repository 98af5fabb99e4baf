import CrashShieldRuntime.Internal

/// `-[NSURL initFileURLWithPath:]` and `-initFileURLWithPath:isDirectory:` given a nil path (`+fileURLWithPath:` and
/// `+fileURLWithPath:isDirectory:` funnel into them). GNUstep 1.28 (NSURL.m) raises `[NSURL initFileURLWithPath:]
/// nil string parameter` (the receiver's class and the selector); Apple: `*** -[NSURL initFileURLWithPath:]: nil
/// string parameter` (unverified on a device). Recovery: nil, as `URLWithString:nil` answers, the receiver released
/// (an initializer that fails releases itself): never a URL of some other file. In the container guard with the
/// other nil arguments to Foundation's value types.
///
/// GNUstep accepts `URLByAppendingPathComponent:nil` (the URL itself), `initWithString:nil relativeToURL:` and
/// `URLWithString:nil` (nil): those are hooked under Apple's rules only (URLHooks).
enum FileURLHooks {
    typealias InitFileURLWithPath = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    typealias InitFileURLWithPathIsDirectory =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt8) -> CSRObject?

    static func install(in context: GuardContext) throws {
        guard let url = ObjCClass(named: "NSURL") else { return }
        try context.install([initFileURLWithPath, initFileURLWithPathIsDirectory] as [AnyHookPoint], on: [url])
    }

    static let initFileURLWithPath: GuardedMethod<InitFileURLWithPath> = GuardedMethod(
        "initFileURLWithPath:", .container
    ) { r, cmd, path in
        initFileURLWithPath.read(
            r, cmd, valid: path != nil, else: .nilFileURLPath(method: "initFileURLWithPath:"),
            recovery: { _ in failedInitializer(r) }
        ) { $0(r, cmd, path) }
    }

    static let initFileURLWithPathIsDirectory: GuardedMethod<InitFileURLWithPathIsDirectory> = GuardedMethod(
        "initFileURLWithPath:isDirectory:", .container
    ) { r, cmd, path, isDirectory in
        initFileURLWithPathIsDirectory.read(
            r, cmd, valid: path != nil, else: .nilFileURLPath(method: "initFileURLWithPath:isDirectory:"),
            recovery: { _ in failedInitializer(r) }
        ) { $0(r, cmd, path, isDirectory) }
    }

    /// A failed initializer's answer: nil, the receiver (owned by the initializer) released. NSURL's initializers
    /// here and in URLHooks.
    static func failedInitializer(_ receiver: CSRObject?) -> CSRObject? {
        if let receiver { csr_object_release_owned(receiver) }
        return nil
    }
}
