import CrashShieldRuntime.Internal

/// NSFileManager given a nil path or URL, under Apple's rules only (`FoundationRules`). Apple's NSFileManager raises
/// NSInvalidArgumentException (iPadOS 18's NSFileManager.m as decompiled in EthanArbuckle/iPad_10.2_18.0_22A3354_Restore;
/// public crash logs in Docs/AppleRuntime.md §15), checking the source before the destination:
/// - `moveItemAtPath:toPath:error:`: `*** -[NSFileManager moveItemAtPath:toPath:error:]: source path is nil` /
///   `destination path is nil`;
/// - `copyItemAtPath:toPath:error:`, which funnels into `copyItemAtPath:toPath:options:error:`: the same texts naming
///   that method;
/// - `moveItemAtURL:toURL:error:` / `copyItemAtURL:toURL:error:`, through `...AtURL:toURL:options:error:`: `source URL
///   is nil` / `destination URL is nil`;
/// - `enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:`: `URL is nil`.
/// A nil source raises only for apps linked on or after some SDK (`_CFExecutableLinkedOnOrAfter`; older ones get NO):
/// every app built with a current SDK. `removeItemAtPath:nil` / `removeItemAtURL:nil` answer YES on Apple (its
/// documentation: "You may specify nil for this parameter"): not hooked. GNUstep 1.28 (NSFileManager.m) raises for
/// none of these (NO with an NSError, or an enumerator of nothing): nothing is hooked there.
///
/// Recovery: what a failed operation answers: NO and, where the caller passed an error pointer, an NSError in
/// NSCocoaErrorDomain (NSFileNoSuchFileError for a nil source, NSFileWriteInvalidFileNameError for a nil
/// destination) whose NSDebugDescription is the reason; nil for the enumerator. Nothing on disk is touched.
enum FileManagerHooks {
    typealias Transfer =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UnsafeMutablePointer<CSRObject?>?) -> UInt8
    typealias Enumerator =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UInt, CSRObject?) ->
        CSRObject?

    static func install(in context: GuardContext) throws {
        // GNUstep answers NO or an empty enumerator for every one of these calls: only Apple's Foundation raises.
        guard FoundationRules.isApple, let manager = ObjCClass(named: "NSFileManager") else { return }
        try context.install(
            [moveItemAtPath, copyItemAtPath, moveItemAtURL, copyItemAtURL, enumeratorAtURL] as [AnyHookPoint],
            on: [manager])
    }

    static let moveItemAtPath: GuardedMethod<Transfer> = GuardedMethod("moveItemAtPath:toPath:error:", .container) {
        transfer(moveItemAtPath, $0, $1, $2, $3, $4, noun: "path", method: "moveItemAtPath:toPath:error:")
    }

    static let copyItemAtPath: GuardedMethod<Transfer> = GuardedMethod("copyItemAtPath:toPath:error:", .container) {
        transfer(copyItemAtPath, $0, $1, $2, $3, $4, noun: "path", method: "copyItemAtPath:toPath:options:error:")
    }

    static let moveItemAtURL: GuardedMethod<Transfer> = GuardedMethod("moveItemAtURL:toURL:error:", .container) {
        transfer(moveItemAtURL, $0, $1, $2, $3, $4, noun: "URL", method: "moveItemAtURL:toURL:options:error:")
    }

    static let copyItemAtURL: GuardedMethod<Transfer> = GuardedMethod("copyItemAtURL:toURL:error:", .container) {
        transfer(copyItemAtURL, $0, $1, $2, $3, $4, noun: "URL", method: "copyItemAtURL:toURL:options:error:")
    }

    static let enumeratorAtURL: GuardedMethod<Enumerator> = GuardedMethod(
        "enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:", .container
    ) { r, cmd, url, keys, options, handler in
        enumeratorAtURL.read(r, cmd, valid: url != nil, else: .nilEnumeratorURL) {
            $0(r, cmd, url, keys, options, handler)
        }
    }

    /// NSFileNoSuchFileError, NSFileWriteInvalidFileNameError.
    static let noSuchFile = 4
    static let invalidFileName = 514

    /// A copy or a move: the source checked before the destination, as Apple does. The violation is made once (no
    /// string is built for a valid call) and gives both the report and the NSError's reason, as JSONHooks does.
    @inline(__always)
    private static func transfer(
        _ point: GuardedMethod<Transfer>, _ r: CSRObject?, _ cmd: CSRSelector?, _ source: CSRObject?,
        _ destination: CSRObject?, _ error: UnsafeMutablePointer<CSRObject?>?, noun: String, method: String
    ) -> UInt8 {
        let missing = source == nil ? "source \(noun)" : destination == nil ? "destination \(noun)" : nil
        let violation = missing.map { Violation.nilFileManagerArgument($0, method: method) }
        return point.guarded(
            r, cmd, violation, unhooked: 0,
            recovery: { _ in
                if let error, let violation {
                    let reason = violation.reason(ObjCClass(of: r)?.name ?? "NSFileManager")
                    error.pointee = csr_cocoa_error_create(source == nil ? noSuchFile : invalidFileName, reason)
                }
                return 0
            }
        ) { $0(r, cmd, source, destination, error) }
    }
}
