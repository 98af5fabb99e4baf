import CrashShieldRuntime.Internal

/// NSAttributedString's designated initializer, `-initWithString:attributes:`, given a nil string: GNUstep's
/// GSAttributedString and GSMutableAttributedString raise (`aString object passed to -[GSAttributedString
/// initWithString:attributes:] is nil`), and NSAttributedString's `initWithAttributedString:` (NSAttributedString.m)
/// reaches it with its argument, so `initWithAttributedString:nil` is stopped here too. Recovery: an empty
/// attributed string with the attributes asked for (the original with "").
///
/// Left to GNUstep, which accepts them (Apple raises: `ReplacementNilHooks`, Apple's rules only) (NSAttributedString.m): `appendAttributedString:nil`,
/// `insertAttributedString:nil atIndex:i` (i <= length) and `setAttributedString:nil` reach
/// `replaceCharactersInRange:withAttributedString:`, which replaces the range with a nil string, and
/// GSMutableAttributedString's `replaceCharactersInRange:withString:` takes nil as "" (it deletes the range, nothing
/// for an empty one). An insert past the end is stopped where it funnels, in
/// `replaceCharactersInRange:withAttributedString:` (`AttributedStringHooks`). GNUstep 1.28 has no
/// `enumerateAttribute:inRange:options:usingBlock:` nor `enumerateAttributesInRange:options:usingBlock:`.
enum AttributedInitHooks {
    typealias InitWithStringAttributes = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?) -> CSRObject?

    static func install(in context: GuardContext, attributed: ClassFamily) throws {
        try context.install(initWithStringAttributes, onOwnersIn: attributed)
    }

    static let initWithStringAttributes: GuardedMethod<InitWithStringAttributes> = GuardedMethod(
        "initWithString:attributes:", .string,
        layers: [
            { initWithStringAttributes(in: initWithStringAttributes, $0, $1, $2, $3) },
            { initWithStringAttributes(in: initWithStringAttributes.layer(1), $0, $1, $2, $3) },
            { initWithStringAttributes(in: initWithStringAttributes.layer(2), $0, $1, $2, $3) },
        ])
    private static func initWithStringAttributes(
        in point: GuardedMethod<InitWithStringAttributes>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ string: CSRObject?, _ attributes: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: string != nil, else: .nilAttributedStringAttributesInit,
            recovery: { $0(r, cmd, csr_string_create(""), attributes) }
        ) { $0(r, cmd, string, attributes) }
    }
}
