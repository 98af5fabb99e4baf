import CrashShieldRuntime.Internal

/// `-[NSKeyedUnarchiver initForReadingWithData:]` given data that is not a keyed archive, which
/// `+unarchiveObjectWithData:`, `+unarchiveObjectWithFile:` and `+unarchiveTopLevelObjectWithData:error:` send on
/// both Foundations (GNUstep 1.28's NSKeyedUnarchiver.m; Apple's, decompiled in Docs/AppleRuntime.md §15).
///
/// Which data raises is the running Foundation's own parser's answer, and no check made before the call can give it:
/// - GNUstep parses the data as any property list and sends `objectForKey:` to what it got. Text that parses as a
///   string or an array ("hello", "(1, 2)", an XML array) raises NSInvalidArgumentException (`GSCInlineString
///   (instance) does not recognize objectForKey:`); bytes that look like a binary property list raise from the
///   parser itself (NSRangeException, NSGenericException). nil, empty data, JSON and a dictionary give nil.
/// - Apple raises `*** -[NSKeyedUnarchiver initForReadingWithData:]: incomprehensible archive (0x.., ...)` (later
///   systems name `_initForReadingFromData:error:throwLegacyExceptions:`), `data is empty; did you forget to send
///   -finishEncoding to the NSKeyedArchiver?` (both NSInvalidArgumentException) or NSArchiverArchiveInconsistency,
///   but only for apps linked against an older SDK (`dyld_program_sdk_at_least`): a newer app gets nil, no raise.
///
/// So this is the one hook that calls the original under `@try` (`csr_try_object_with_object`: no Swift frame
/// between the `@try` and the original, so an exception skips no Swift release), off the hot path: what the
/// original raises is, by construction, what Foundation raises. The initializer runs no app code (decoding starts
/// later, with `decodeObjectForKey:`), so an exception it raises is the data's. On Apple only the two data
/// failures' names are stopped; anything else (`NSInvalidUnarchiveOperationException`, Apple's secure-coding
/// policy) goes on. Decoding failures (`cannot decode object of class`) are not guarded: they come from the app's
/// own `initWithCoder:`, and unwinding the app's frames is not CrashShield's to do.
///
/// Recovery: nil, as for nil data; the `+unarchive...` conveniences then answer nil. The half-initialized unarchiver
/// is left alone: the original consumed it, and on both Foundations it raised without releasing it, so releasing it
/// here would run its `-dealloc` on a state its author never meant to free (one small leak per recovered call).
/// Debug mode and a guard switched off let the original's own exception object go on unchanged. GNUstep's old
/// serialized format reads past the end of short data with `getBytes:range:` inside the initializer and relies on the
/// exception: that guard leaves Foundation's own calls alone, so this hook judges the exception, once.
enum KeyedUnarchiverHooks {
    typealias InitWithData = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRObject?

    static func install(in context: GuardContext) throws {
        guard let unarchiver = ObjCClass(named: "NSKeyedUnarchiver") else { return }
        try context.install(initForReadingWithData, on: [unarchiver])
    }

    static let initForReadingWithData: GuardedMethod<InitWithData> = GuardedMethod(
        "initForReadingWithData:", .container
    ) { r, cmd, data in
        guard let original = initForReadingWithData.original(for: r) else { return nil }
        var call = Call(receiver: r, cmd: cmd)
        var ended = false
        return withUnsafeMutablePointer(to: &call) { call in
            csr_try_object_with_object(
                original, r, cmd, data,
                { exception, call in
                    KeyedUnarchiverHooks.stops(exception, call!.assumingMemoryBound(to: Call.self).pointee)
                }, call, &ended)
        }
    }

    /// The receiver and selector of one call, for the decision taken while its exception is caught.
    private struct Call {
        let receiver: CSRObject?
        let cmd: CSRSelector?
    }

    /// Whether the exception the initializer raised ends here: a data failure the incident path recovers.
    private static func stops(_ exception: CSRObject?, _ call: Call) -> Bool {
        guard let (name, reason) = ObjCException.describe(exception), isDataFailure(name) else { return false }
        let incident = Incident(
            .container, receiver: call.receiver, selector: call.cmd, .caught(name, reason, hint: hint),
            point: initForReadingWithData)
        return IncidentPath.handle(incident) == .recover
    }

    static let hint =
        "check that the data is a keyed archive before unarchiving it (a file of another format or version?); "
        + "unarchivedObjectOfClass:fromData:error: answers nil and an error instead"

    /// Whether an exception of this name, raised by the initializer, is the data's failure under the rules in force.
    static func isDataFailure(_ name: String) -> Bool {
        // GNUstep's initializer runs only its property-list parser and `objectForKey:`: whatever it raises is the data's.
        !FoundationRules.isApple || name == ExceptionName.invalidArgument || name == "NSArchiverArchiveInconsistency"
    }
}
