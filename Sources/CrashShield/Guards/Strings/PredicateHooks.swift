import CrashShieldRuntime.Internal

/// `+[NSPredicate predicateWithFormat:arguments:]` and `+predicateWithFormat:argumentArray:` given a format their
/// parser cannot read: user input pasted into the format (`name = 'JR's Pad'`, the apostrophe closing the quote),
/// a missing operand or parenthesis. Both Foundations raise NSInvalidArgumentException from the parser: Apple's
/// `Unable to parse the format string "name = 'JR's Pad'"` (`_qfqp2_performParsing`, called by
/// `+predicateWithFormat:arguments:`, which the variadic `+predicateWithFormat:` and Swift's
/// `NSPredicate(format:_:)` call: public crash logs in Docs/AppleRuntime.md §17); GNUstep 1.28's NSPredicate.m
/// `Format string contains extra characters: "..."`, `Missing ) in compound predicate`, `Unterminated single quoted
/// literal at 7`... (GSPredicateScanner's `-parse`; `+predicateWithFormat:` sends `predicateWithFormat:arguments:`,
/// `+predicateWithFormat:argumentArray:` parses on its own).
///
/// Whether a format parses is the parser's answer alone, so each hook runs the original under `@try` (the C shapes of
/// CSRException.h, no Swift frame between the `@try` and it, as `KeyedUnarchiverHooks`) and judges what it raised:
/// only NSInvalidArgumentException ends here; anything else goes on unchanged. The parser runs no app code (the
/// arguments are stored as constants, evaluated only by `evaluateWithObject:`), so its exception is the format's.
///
/// Recovery: `[NSPredicate predicateWithValue:NO]`, a predicate that matches nothing (never nil: Swift's
/// `NSPredicate(format:)` is not optional, and a nil predicate given to a filter or a fetch request matches
/// everything). The scanner the parser made is left to the original (GNUstep releases it only on success).
enum PredicateHooks {
    /// The `va_list` as one word, passed through untouched (`StringIMP.InitWithFormat`).
    typealias WithArguments =
        @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UnsafeMutableRawPointer?) -> CSRObject?
    typealias WithArgumentArray = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> CSRObject?
    typealias WithValue = @convention(c) (CSRObject?, CSRSelector?, UInt8) -> CSRObject?

    static func install(in context: GuardContext) throws {
        guard let predicate = ObjCClass(named: "NSPredicate") else { return }
        try context.install([withArguments, withArgumentArray] as [AnyHookPoint], on: [predicate])
    }

    static let withArguments: GuardedMethod<WithArguments> = GuardedMethod(
        "predicateWithFormat:arguments:", .string, kind: .class
    ) { r, cmd, format, arguments in
        guard let original = withArguments.original(for: r) else { return nil }
        guard isString(format) else { return original(r, cmd, format, arguments) }
        var call = Call(receiver: r, cmd: cmd, arguments: true)
        var ended = false
        let predicate = withUnsafeMutablePointer(to: &call) {
            csr_try_object_with_object_va_list(original, r, cmd, format, arguments, judge, $0, &ended)
        }
        return ended ? matchingNothing() : predicate
    }

    static let withArgumentArray: GuardedMethod<WithArgumentArray> = GuardedMethod(
        "predicateWithFormat:argumentArray:", .string, kind: .class
    ) { r, cmd, format, arguments in
        guard let original = withArgumentArray.original(for: r) else { return nil }
        guard isString(format) else { return original(r, cmd, format, arguments) }
        var call = Call(receiver: r, cmd: cmd, arguments: false)
        var ended = false
        let predicate = withUnsafeMutablePointer(to: &call) {
            csr_try_object_with_object_object(original, r, cmd, format, arguments, judge, $0, &ended)
        }
        return ended ? matchingNothing() : predicate
    }

    /// A nil or wrong-typed format is Foundation's own failure, left to it (GNUstep reads a nil format's NULL bytes:
    /// SIGSEGV; a number does not recognize `UTF8String`): only a string's parse is judged.
    private static func isString(_ format: CSRObject?) -> Bool {
        format != nil && csr_object_responds(format, Selectors.length)
    }

    /// One call, for the decision taken while its exception is caught: plain words only.
    private struct Call {
        let receiver: CSRObject?
        let cmd: CSRSelector?
        /// `predicateWithFormat:arguments:` (true) or `...argumentArray:`.
        let arguments: Bool
    }

    /// Whether the exception the parser raised ends here: its NSInvalidArgumentException, recovered by the incident
    /// path.
    private static let judge: CSRCaught = { exception, context in
        let call = context!.assumingMemoryBound(to: Call.self).pointee
        guard let (name, reason) = ObjCException.describe(exception), name == ExceptionName.invalidArgument else {
            return false
        }
        let incident = Incident(
            .string, receiver: call.receiver, selector: call.cmd, .caught(name, reason, hint: hint),
            point: call.arguments ? withArguments : withArgumentArray)
        return IncidentPath.handle(incident) == .recover
    }

    static let hint =
        "pass values as arguments (%@, %K) instead of pasting them into the format: an apostrophe in user input "
        + "ends a quoted string"

    private static let predicateClass = ObjCClass(named: "NSPredicate")
    private static let withValue = ObjCSelector("predicateWithValue:")

    /// `[NSPredicate predicateWithValue:NO]` (autoreleased, as the original's answer).
    private static func matchingNothing() -> CSRObject? {
        let cls = predicateClass?.pointer
        return Messaging.implementation(cls, withValue.pointer, as: WithValue.self)(cls, withValue.pointer, 0)
    }
}
