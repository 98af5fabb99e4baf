import CrashShieldRuntime.Internal

/// NSURL given a nil string or path component, under Apple's rules only (`FoundationRules`). Apple's NSURL raises
/// NSInvalidArgumentException for `-URLByAppendingPathComponent:nil` and `-URLByAppendingPathComponent:nil
/// isDirectory:` (`*** -[NSURL URLByAppendingPathComponent:]: component, components, or pathExtension cannot be nil.`,
/// each checking before anything else) and for `-initWithString:nil relativeToURL:` (`*** -[NSURL
/// initWithString:relativeToURL:]: nil string parameter`; `-initWithString:` funnels into it). Apple's
/// `+URLWithString:` and `+URLWithString:relativeToURL:` answer nil for a nil string before any initializer runs:
/// not a failure. GNUstep 1.28 (NSURL.m) raises for none of these: `URLByAppendingPathComponent:nil` answers the URL's
/// own path again, `initWithString:nil relativeToURL:` nil; nothing is hooked there.
///
/// Recovery: nil. For an appended component nil rather than the receiver: a caller about to remove or overwrite
/// "directory + name" must not be handed the directory itself. A failed initializer releases its receiver.
enum URLHooks {
    typealias ObjectWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?
    typealias ObjectWithObjectBool = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt8) -> CSRObject?
    typealias ObjectWithObjectObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> CSRObject?

    static func install(in context: GuardContext) throws {
        // GNUstep answers every one of these calls: only Apple's Foundation raises.
        guard FoundationRules.isApple, let url = ObjCClass(named: "NSURL") else { return }
        try context.install(
            [appendingPathComponent, appendingPathComponentIsDirectory, initWithStringRelativeToURL] as [AnyHookPoint],
            on: [url])
    }

    static let appendingPathComponent: GuardedMethod<ObjectWithObject> = GuardedMethod(
        "URLByAppendingPathComponent:", .container
    ) { r, cmd, component in
        appendingPathComponent.read(
            r, cmd, valid: component != nil, else: .nilURLPathComponent(method: "URLByAppendingPathComponent:")
        ) { $0(r, cmd, component) }
    }

    static let appendingPathComponentIsDirectory: GuardedMethod<ObjectWithObjectBool> = GuardedMethod(
        "URLByAppendingPathComponent:isDirectory:", .container
    ) { r, cmd, component, isDirectory in
        appendingPathComponentIsDirectory.read(
            r, cmd, valid: component != nil,
            else: .nilURLPathComponent(method: "URLByAppendingPathComponent:isDirectory:")
        ) { $0(r, cmd, component, isDirectory) }
    }

    static let initWithStringRelativeToURL: GuardedMethod<ObjectWithObjectObject> = GuardedMethod(
        "initWithString:relativeToURL:", .container
    ) { r, cmd, string, base in
        initWithStringRelativeToURL.read(
            r, cmd, valid: string != nil, else: .nilURLString(method: initWithStringMethod),
            recovery: { _ in FileURLHooks.failedInitializer(r) }
        ) { $0(r, cmd, string, base) }
    }

    /// The method Apple's reason names: recent systems (iPadOS 18 at least) forward `initWithString:relativeToURL:` to
    /// `initWithString:relativeToURL:encodingInvalidCharacters:`, which checks (iPadOS 18's NSURL.m as decompiled in
    /// EthanArbuckle/iPad_10.2_18.0_22A3354_Restore); earlier systems raise from `initWithString:relativeToURL:`
    /// itself (the crash logs of Docs/AppleRuntime.md §15).
    static let initWithStringMethod: String = {
        let forwarded = "initWithString:relativeToURL:encodingInvalidCharacters:"
        let url = ObjCClass(named: "NSURL")
        return url?.owner(of: ObjCSelector(forwarded)) != nil ? forwarded : "initWithString:relativeToURL:"
    }()
}
