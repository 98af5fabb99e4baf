import CrashShieldRuntime.Internal

/// A nil string in a replacement, which Apple's Foundation raises for and GNUstep's accepts (issue 32 §2; Apple's
/// rules only, `FoundationRules`; Docs/AppleRuntime.md §9).
///
/// Apple: CoreFoundation's `__CFStringCheckAndReplace` (CFString.c) answers `_CFStringErrNilArg` for a nil
/// replacement before it looks at the range, and `-[__NSCFString replaceCharactersInRange:withString:]` raises it
/// (`-[__NSCFString replaceCharactersInRange:withString:]: nil argument`, element-hq/element-ios#663);
/// `-[NSString stringByReplacingCharactersInRange:withString:]` raises in its own code, before any mutable copy
/// (`*** -[__NSCFString stringByReplacingCharactersInRange:withString:]: nil argument` under `-[NSString
/// stringByReplacingCharactersInRange:withString:] + 104`, haltNoShut/YFAssistantTableView#2); an attributed string's
/// replacements reach its storage, which raises `*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil
/// argument` (under `-[NSConcreteMutableAttributedString replaceCharactersInRange:withAttributedString:]`,
/// tingbot/tide-for-mac-deprecated#1).
/// GNUstep (NSString.m, GSString.m, NSAttributedString.m): a nil replacement deletes the range, a nil insert or append
/// adds nothing, `setAttributedString:nil` empties the string; nothing raises, so nothing here is installed there.
///
/// The points already hooked under both rules check the nil string themselves (`MutableStringHooks`
/// `replaceCharactersInRange` and `insertStringAtIndex`, `AttributedStringHooks.replaceWithAttributedString`, through
/// `nilStringFailure`); the methods below are hooked under Apple's rules only. Recovery: the receiver untouched;
/// `stringByReplacingCharactersInRange:withString:nil` answers a copy of the receiver (the original with {0, 0} and
/// ""): the string the call would have answered had it replaced nothing, of the class Foundation answers.
enum ReplacementNilHooks {
    typealias IMP = ContainerIMP
    typealias ObjectWithRangeObject = @convention(c) (CSRObject?, CSRSelector?, CSRRange, CSRObject?) -> CSRObject?

    static func install(in context: GuardContext) throws {
        guard FoundationRules.isApple else { return }
        if let strings = ClassFamily("NSString", "NSMutableString") {
            try context.install(stringByReplacingCharacters, onOwnersIn: strings)
        }
        if let mutable = ClassFamily("NSMutableAttributedString") {
            try context.install(
                [appendAttributedString, insertAttributedString, setAttributedString], onOwnersIn: mutable)
        }
    }

    /// The violation of a nil `string` under Apple's rules; nil otherwise (a non-nil string, or GNUstep's rules).
    /// `method`: the method the app called on `receiver`.
    /// Inlined to the one test of `string`; the rest out of line.
    @inline(__always)
    static func nilStringFailure(_ receiver: CSRObject?, _ string: CSRObject?, method: String) -> Violation? {
        string == nil ? nilStringViolation(receiver, method: method) : nil
    }
    @inline(never)
    private static func nilStringViolation(_ receiver: CSRObject?, method: String) -> Violation? {
        guard FoundationRules.isApple else { return nil }
        return csr_object_responds(receiver, attributesSelector)
            ? .nilAttributedReplacement(method: method) : .nilStringReplacement(method: method)
    }
    private static let attributesSelector = csr_sel_register("attributesAtIndex:effectiveRange:")

    static let stringByReplacingCharacters: GuardedMethod<ObjectWithRangeObject> = GuardedMethod(
        "stringByReplacingCharactersInRange:withString:", .string,
        layers: [
            { stringByReplacingCharacters(in: stringByReplacingCharacters, $0, $1, $2, $3) },
            { stringByReplacingCharacters(in: stringByReplacingCharacters.layer(1), $0, $1, $2, $3) },
            { stringByReplacingCharacters(in: stringByReplacingCharacters.layer(2), $0, $1, $2, $3) },
        ])
    private static func stringByReplacingCharacters(
        in point: GuardedMethod<ObjectWithRangeObject>, _ r: CSRObject?, _ cmd: CSRSelector?, _ range: CSRRange,
        _ string: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: string != nil, else: .nilStringByReplacing,
            recovery: { $0(r, cmd, .empty, csr_string_create("")) }
        ) { $0(r, cmd, range, string) }
    }

    static let appendAttributedString: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "appendAttributedString:", .string,
        layers: [
            { appendAttributedString(in: appendAttributedString, $0, $1, $2) },
            { appendAttributedString(in: appendAttributedString.layer(1), $0, $1, $2) },
            { appendAttributedString(in: appendAttributedString.layer(2), $0, $1, $2) },
        ])
    private static func appendAttributedString(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?, _ string: CSRObject?
    ) {
        point.mutation(r, cmd, valid: string != nil, else: .nilAttributedReplacement(method: "appendAttributedString:"))
        {
            $0(r, cmd, string)
        }
    }

    /// Only the nil string: an index past the end is stopped in `replaceCharactersInRange:withAttributedString:`,
    /// where both Foundations check it.
    static let insertAttributedString: GuardedMethod<IMP.VoidWithObjectIndex> = GuardedMethod(
        "insertAttributedString:atIndex:", .string,
        layers: [
            { insertAttributedString(in: insertAttributedString, $0, $1, $2, $3) },
            { insertAttributedString(in: insertAttributedString.layer(1), $0, $1, $2, $3) },
            { insertAttributedString(in: insertAttributedString.layer(2), $0, $1, $2, $3) },
        ])
    private static func insertAttributedString(
        in point: GuardedMethod<IMP.VoidWithObjectIndex>, _ r: CSRObject?, _ cmd: CSRSelector?, _ string: CSRObject?,
        _ index: UInt
    ) {
        point.mutation(
            r, cmd, valid: string != nil, else: .nilAttributedReplacement(method: "insertAttributedString:atIndex:")
        ) { $0(r, cmd, string, index) }
    }

    static let setAttributedString: GuardedMethod<IMP.VoidWithObject> = GuardedMethod(
        "setAttributedString:", .string,
        layers: [
            { setAttributedString(in: setAttributedString, $0, $1, $2) },
            { setAttributedString(in: setAttributedString.layer(1), $0, $1, $2) },
            { setAttributedString(in: setAttributedString.layer(2), $0, $1, $2) },
        ])
    private static func setAttributedString(
        in point: GuardedMethod<IMP.VoidWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?, _ string: CSRObject?
    ) {
        point.mutation(r, cmd, valid: string != nil, else: .nilAttributedReplacement(method: "setAttributedString:")) {
            $0(r, cmd, string)
        }
    }
}
