import CrashShieldRuntime.Internal

/// `-getCharacters:range:` with a range past the end (an end past 2^64 included). Recovery: the buffer untouched.
///
/// GNUstep 1.28 checks with GS_RANGE_CHECK (overflow-safe, `in getCharacters:range:, range { a, b } extends beyond
/// size (n)`) in GSString.m's classes, GSMutableString's and NSString's generic one, except in NXConstantString's
/// (GSString.m, the old-ABI form this runtime uses): it raises for a location of NSNotFound, then walks the characters
/// up to the location and on to NSMaxRange (wrapping) and raises (`... extends beyond string`) unless the walk ends
/// exactly at that end. So a constant string also accepts, and leaves the buffer alone, a location past the end whose
/// wrapped end is the length (`{2^63 + 5, 2^63}` on 5 characters). Constant strings' class is asked of GNUstep's
/// public `+[NSString constantStringClass]`. Apple: CFString's range check (text unverified on a device).
///
/// Check-first (CSRCheckFirst.h): the most-derived implementations get a C trampoline that jumps straight to the
/// original when the range lies within `length`; every other call reaches the replacement.
enum CharacterBufferHooks {
    typealias GetCharactersRange = @convention(c) (CSRObject?, CSRSelector?, UnsafeMutableRawPointer?, CSRRange) -> Void

    static func install(in context: GuardContext, strings: ClassFamily) throws {
        try context.install(getCharactersRange, onOwnersIn: strings)
    }

    static let getCharactersRange: GuardedMethod<GetCharactersRange> = GuardedMethod(
        "getCharacters:range:", .string, checkFirst: Int32(CSRHotStringGetCharactersRange),
        layers: [
            { getCharactersRange(in: getCharactersRange, $0, $1, $2, $3) },
            { getCharactersRange(in: getCharactersRange.layer(1), $0, $1, $2, $3) },
            { getCharactersRange(in: getCharactersRange.layer(2), $0, $1, $2, $3) },
        ])
    private static func getCharactersRange(
        in point: GuardedMethod<GetCharactersRange>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ buffer: UnsafeMutableRawPointer?, _ range: CSRRange
    ) {
        let length = length(of: r)
        point.mutation(r, cmd, valid: range.fits(in: length), else: failure(r, range, length)) {
            $0(r, cmd, buffer, range)
        }
    }

    /// What the receiver's implementation raises for a range that does not fit, or nil where it accepts it.
    private static func failure(_ r: CSRObject?, _ range: CSRRange, _ length: UInt) -> Violation? {
        if !FoundationRules.isApple, let constant = constantStringClass, let cls = ObjCClass(of: r),
            cls.isKind(of: constant)
        {
            if range.location != UInt(Int.max) && range.location > length && range.location &+ range.length == length {
                return nil
            }
            return .constantTextRange(range, method: "getCharacters:range:")
        }
        return .textRange(range, length: length, method: "getCharacters:range:")
    }

    /// The class of constant strings, as GNUstep's `+[NSString constantStringClass]` answers it (NSConstantString:
    /// NXConstantString's implementation under the name the compiler's constant strings use). Asked under GNUstep's
    /// rules only; nil where NSString does not answer it.
    private static let constantStringClass: ObjCClass? = {
        guard let root = ObjCClass(named: "NSString") else { return nil }
        let selector = csr_sel_register("constantStringClass")
        guard csr_object_responds(root.pointer, selector) else { return nil }
        return Messaging.sendObject(root.pointer, selector).map { ObjCClass($0) }
    }()
}
