import CrashShieldRuntime.Internal

/// Stops out-of-range and nil arguments to NSString, NSMutableString, NSAttributedString and
/// NSMutableAttributedString.
///
/// Recovery semantics (the container rules, applied to text):
/// - a read that would raise returns an empty value of the declared kind: an empty string for a substring (the
///   original answers a legal empty range, so the class is the one Foundation would return), an empty attributed
///   string, an empty attribute dictionary; nil for an attribute value; 0 for `characterAtIndex:`; NO for
///   `hasPrefix:`/`hasSuffix:`; {NSNotFound, 0} for `rangeOfString:`; an effective-range out-parameter is set to
///   {NSNotFound, 0};
/// - an invalid mutation is skipped entirely: the string is left exactly as it was;
/// - a constructor given a nil string or a NULL C string builds an empty string (of the class asked for).
/// Preconditions are checked before the original runs, except for `characterAtIndex:` (the hottest read: the
/// original runs under `@try` in a C trampoline and its own exception is caught, see `HotReadHookPoint`), and are
/// never stricter than Foundation's: a range {length, 0} at the end, an insert at index length, and whatever else
/// the platform's Foundation accepts (on GNUstep: `appendString:nil`, `insertString:nil atIndex:0`, `replaceCharactersInRange:r
/// withString:nil`, `attributesAtIndex:length`, attribute indexes of 2^32 and above (cut to 32 bits),
/// `setAttributes:range:` with any empty range, `addAttribute:value:nil` with an empty range at a run's start) reach
/// Foundation unchanged. The string guard's differential test tries every index and range edge against the real
/// Foundation (`StringGuardTests`).
final class StringGuard: CrashGuard {
    static let category = GuardCategory.string

    init() {}

    func install(in context: GuardContext) throws {
        try StringReads.install(in: context)
        try MutableStringGuard.install(in: context)
        try AttributedStringGuard.install(in: context)
        try FormatGuard.install(in: context)
    }
}

extension GuardContext {
    /// Installs one selector on every class that owns the implementation a member of `family` uses, also where the
    /// owners are nested (GNUstep: NSString's generic `substringWithRange:` under GSCString's own): `layers[0]` on the
    /// outermost owners, `layers[1]` on owners below one of those, and so on. Each layer is a separate hook point
    /// (its own table of originals), so an override calling `super` reaches the next layer's hook, never its own.
    func install(layers: [AnyHookPoint], onOwnersIn family: ClassFamily) throws {
        guard let selector = layers.first?.selector else { return }
        var owners: [ObjCClass] = []
        for member in family.members {
            guard let owner = member.owner(of: selector),
                  family.roots.contains(where: { owner.isKind(of: $0) }) || family.members.contains(owner),
                  !owners.contains(owner) else { continue }
            owners.append(owner)
        }
        for owner in owners {
            let depth = owners.filter { $0 != owner && owner.isKind(of: $0) }.count
            guard depth < layers.count else {
                throw HookError.nestedInstallation(class: owner.name, selector: selector.name,
                                                   existing: owners.filter { owner.isKind(of: $0) && $0 != owner }.map(\.name).joined(separator: ","))
            }
            try install(layers[depth], on: [owner])
        }
    }
}

/// `@convention(c)` signatures of the hooked string methods.
enum StringIMP {
    typealias CharacterAtIndex = @convention(c) (CSRObject?, CSRSelector?, UInt) -> UInt16
    typealias RangeWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> CSRRange
    typealias BoolWithObject = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> UInt8
    typealias ObjectWithCString = @convention(c) (CSRObject?, CSRSelector?, UnsafePointer<CChar>?) -> CSRObject?
    typealias AttributesAtIndex = @convention(c) (CSRObject?, CSRSelector?, UInt, UnsafeMutablePointer<CSRRange>?) -> CSRObject?
    typealias AttributeAtIndex = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, UnsafeMutablePointer<CSRRange>?) -> CSRObject?
    typealias AttributesAtIndexInRange = @convention(c) (CSRObject?, CSRSelector?, UInt, UnsafeMutablePointer<CSRRange>?, CSRRange) -> CSRObject?
    typealias AttributeAtIndexInRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, UInt, UnsafeMutablePointer<CSRRange>?, CSRRange) -> CSRObject?
    typealias VoidWithObjectRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRRange) -> Void
    typealias VoidWithObjectObjectRange = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, CSRRange) -> Void
    /// The `va_list` is passed through untouched, as the one word it is in a call on every supported ABI (arm64
    /// Darwin: a `char *`; x86_64: an array that decays to a pointer; AAPCS64's struct goes by reference).
    typealias InitWithFormat = @convention(c) (CSRObject?, CSRSelector?, CSRObject?, CSRObject?, UnsafeMutableRawPointer?) -> CSRObject?
}

/// NSString reads and constructors (every concrete string class, mutable ones included).
enum StringReads {
    typealias M = StringMessages
    private static let rangeHint = "check the index or range against length before the call"
    private static let nilHint = "check the string for nil before the call (a JSON null or a failed lookup?)"

    static func install(in context: GuardContext) throws {
        guard let strings = ClassFamily("NSString", "NSMutableString"), let root = ObjCClass(named: "NSString") else { return }
        for point in [substringFromIndex, substringToIndex, rangeOfString, hasPrefix, hasSuffix] as [AnyHookPoint] {
            try context.install(point, onOwnersIn: strings)
        }
        try context.install(layers: [substringWithRangeBase, substringWithRange], onOwnersIn: strings)
        try context.install(layers: [characterAtIndexBase, characterAtIndex], onOwnersIn: strings)
        // Class constructors: on NSString only (NSMutableString inherits them; both levels would nest).
        try context.install(stringWithString, on: [root])
        try context.install(stringWithUTF8String, on: [root])
        // Initializers run on what +alloc hands out: a placeholder, or (NSMutableString here) the concrete class.
        var placeholders: [ObjCClass] = []
        for family in ["NSString", "NSMutableString"] {
            if let cls = csr_cluster_placeholder_class(family).map(ObjCClass.init), !placeholders.contains(cls) {
                placeholders.append(cls)
            }
        }
        let unrelated = placeholders.filter { cls in !placeholders.contains { $0 != cls && (cls.isKind(of: $0) || $0.isKind(of: cls)) } }
        try context.install(initWithString, on: unrelated)
        try context.install(initWithUTF8String, on: unrelated)
        try context.install(initWithFormatLocaleArguments, on: unrelated)
        if FoundationRules.isApple { try context.install(stringByAppendingString, onOwnersIn: strings) }
    }

    // MARK: Reads

    /// Recovery: an empty string (the original with index == length).
    static let substringFromIndex: HookPoint<ContainerIMP.ObjectAtIndex> = HookPoint("substringFromIndex:") { receiver, cmd, index in
        guard let original = substringFromIndex.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if index <= length { return original(receiver, cmd, index) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, substringFromIndex, M.range, hint: rangeHint, reason: {
            M.substringIndex(index, length: length, from: true, cls: $0)
        }) { return original(receiver, cmd, length) }
        return original(receiver, cmd, index)
    }

    /// Recovery: an empty string.
    static let substringToIndex: HookPoint<ContainerIMP.ObjectAtIndex> = HookPoint("substringToIndex:") { receiver, cmd, index in
        guard let original = substringToIndex.original(for: receiver) else { return nil }
        let length = Messaging.sendUInt(receiver, Selectors.length)
        if index <= length { return original(receiver, cmd, index) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, substringToIndex, M.range, hint: rangeHint, reason: {
            M.substringIndex(index, length: length, from: false, cls: $0)
        }) { return original(receiver, cmd, 0) }
        return original(receiver, cmd, index)
    }

    /// Two layers: GNUstep's NSString has a generic implementation (constant strings use it) under the concrete
    /// classes' own ones.
    static let substringWithRange: HookPoint<ContainerIMP.ObjectWithRange> = HookPoint(
        "substringWithRange:", hotTable: csr_hot_table(Int32(CSRHotStringSubstringWithRange))
    ) { receiver, cmd, range in
        substringWithRange(csr_hot_table(Int32(CSRHotStringSubstringWithRange)), substringWithRange, receiver, cmd, range)
    }
    static let substringWithRangeBase: HookPoint<ContainerIMP.ObjectWithRange> = HookPoint(
        "substringWithRange:", hotTable: csr_hot_table(Int32(CSRHotStringSubstringWithRangeBase))
    ) { receiver, cmd, range in
        substringWithRange(csr_hot_table(Int32(CSRHotStringSubstringWithRangeBase)), substringWithRangeBase, receiver, cmd, range)
    }

    /// Recovery: an empty string (the original with {0, 0}).
    @inline(__always)
    static func substringWithRange(_ table: UnsafeMutablePointer<CSRHookTable>,
                                   _ point: @autoclosure () -> HookPoint<ContainerIMP.ObjectWithRange>,
                                   _ receiver: CSRObject?, _ cmd: CSRSelector?, _ range: CSRRange) -> CSRObject? {
        guard let original = HookPoint.original(in: table, for: receiver, point: point()) else { return nil }
        let length = Messaging.sendUInt(receiver, csr_hot_selectors.length)
        if range.fits(in: length) { return original(receiver, cmd, range) }
        return substringWithRangeFailed(point(), receiver, cmd, range, length: length, original: original)
    }

    @inline(never)
    static func substringWithRangeFailed(_ point: HookPoint<ContainerIMP.ObjectWithRange>, _ receiver: CSRObject?,
                                         _ cmd: CSRSelector?, _ range: CSRRange, length: UInt,
                                         original: ContainerIMP.ObjectWithRange) -> CSRObject? {
        if GuardFailure.stopOrRaise(.string, receiver, cmd, point, M.range, hint: rangeHint, reason: {
            M.range(range.value, length: length, method: "substringWithRange:", cls: $0)
        }) { return original(receiver, cmd, CSRRange(location: 0, length: 0)) }
        return original(receiver, cmd, range)
    }

    /// Two layers, as `substringWithRange:`. C trampolines (CSRHotReads.h): the original runs under `@try` and its
    /// own exception is reported (GNUstep's constant strings raise an invalid-argument one, the others a range one).
    /// Recovery: 0.
    static let characterAtIndex = HotReadHookPoint<StringIMP.CharacterAtIndex>(
        "characterAtIndex:", hotTable: Int32(CSRHotStringCharacterAtIndex), category: .string, hint: rangeHint,
        precondition: indexWithinLength)
    static let characterAtIndexBase = HotReadHookPoint<StringIMP.CharacterAtIndex>(
        "characterAtIndex:", hotTable: Int32(CSRHotStringCharacterAtIndexBase), category: .string, hint: rangeHint,
        precondition: indexWithinLength)
    private static func indexWithinLength(_ receiver: CSRObject?, _ index: UInt) -> Bool {
        index < Messaging.sendUInt(receiver, csr_hot_selectors.length)
    }

    /// Recovery: {NSNotFound, 0}.
    static let rangeOfString: HookPoint<StringIMP.RangeWithObject> = HookPoint("rangeOfString:") { receiver, cmd, search in
        guard let original = rangeOfString.original(for: receiver) else { return CSRRange(location: UInt(Int.max), length: 0) }
        if search != nil { return original(receiver, cmd, search) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, rangeOfString, M.invalidArgument, hint: nilHint, reason: {
            M.nilSearch(method: "rangeOfString:", cls: $0)
        }) { return CSRRange(location: UInt(Int.max), length: 0) }
        return original(receiver, cmd, search)
    }

    /// Recovery: NO.
    static let hasPrefix: HookPoint<StringIMP.BoolWithObject> = HookPoint("hasPrefix:") { receiver, cmd, prefix in
        guard let original = hasPrefix.original(for: receiver) else { return 0 }
        if prefix != nil { return original(receiver, cmd, prefix) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, hasPrefix, M.invalidArgument, hint: nilHint, reason: {
            M.nilSearch(method: "hasPrefix:", cls: $0)
        }) { return 0 }
        return original(receiver, cmd, prefix)
    }

    /// Recovery: NO.
    static let hasSuffix: HookPoint<StringIMP.BoolWithObject> = HookPoint("hasSuffix:") { receiver, cmd, suffix in
        guard let original = hasSuffix.original(for: receiver) else { return 0 }
        if suffix != nil { return original(receiver, cmd, suffix) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, hasSuffix, M.invalidArgument, hint: nilHint, reason: {
            M.nilSearch(method: "hasSuffix:", cls: $0)
        }) { return 0 }
        return original(receiver, cmd, suffix)
    }

    /// Apple's rules only (GNUstep answers a copy of the receiver). Recovery: the same copy (the receiver
    /// appended with ""). Apple's text unverified on a device.
    static let stringByAppendingString: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("stringByAppendingString:") { receiver, cmd, string in
        guard let original = stringByAppendingString.original(for: receiver) else { return nil }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, stringByAppendingString, M.invalidArgument, hint: nilHint, reason: {
            FoundationMessages.apple($0, "stringByAppendingString:", "nil argument")
        }) { return original(receiver, cmd, csr_string_create("")) }
        return original(receiver, cmd, string)
    }

    // MARK: Constructors (recovery: an empty string of the class asked for)

    /// A nil format raises on both Foundations (the variadic `initWithFormat:`, `stringWithFormat:` and, on GNUstep,
    /// `stringByAppendingFormat:` end here; GNUstep's `+[NSString stringWithFormat:]` raises before, unguarded).
    /// Recovery: the original with an empty format (no argument is read).
    static let initWithFormatLocaleArguments: HookPoint<StringIMP.InitWithFormat> = HookPoint("initWithFormat:locale:arguments:") { receiver, cmd, format, locale, arguments in
        guard let original = initWithFormatLocaleArguments.original(for: receiver) else { return nil }
        if format != nil { return original(receiver, cmd, format, locale, arguments) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, initWithFormatLocaleArguments, M.invalidArgument,
                                    hint: "check the format for nil before the call", reason: { M.nilFormat(cls: $0) }) {
            return original(receiver, cmd, csr_string_create(""), locale, arguments)
        }
        return original(receiver, cmd, format, locale, arguments)
    }

    static let stringWithString: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("stringWithString:", kind: .class) { receiver, cmd, string in
        guard let original = stringWithString.original(for: receiver) else { return nil }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, stringWithString, M.invalidArgument, hint: nilHint, reason: {
            M.nilInit("[NSString+stringWithString:]: NULL string", cls: $0, method: "stringWithString:", isClassMethod: true)
        }) { return original(receiver, cmd, csr_string_create("")) }
        return original(receiver, cmd, string)
    }

    static let stringWithUTF8String: HookPoint<StringIMP.ObjectWithCString> = HookPoint("stringWithUTF8String:", kind: .class) { receiver, cmd, bytes in
        guard let original = stringWithUTF8String.original(for: receiver) else { return nil }
        if bytes != nil { return original(receiver, cmd, bytes) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, stringWithUTF8String, M.invalidArgument, hint: "check the C string for NULL before the call", reason: {
            M.nilInit("[NSString+stringWithUTF8String:]: NULL cString", cls: $0, method: "stringWithUTF8String:", isClassMethod: true)
        }) { return "".withCString { original(receiver, cmd, $0) } }
        return original(receiver, cmd, bytes)
    }

    private static let mutableStringClass = ObjCClass(named: "NSMutableString")

    /// GNUstep: the immutable placeholder names itself, NSMutableString runs NSString's initializer.
    private static func initializerOwner(_ receiver: CSRObject?, _ cls: String) -> String? {
        guard let mutable = mutableStringClass, let receiverClass = ObjCClass(of: receiver) else { return cls }
        return receiverClass.isKind(of: mutable) ? nil : cls
    }

    static let initWithString: HookPoint<ContainerIMP.ObjectWithObject> = HookPoint("initWithString:") { receiver, cmd, string in
        guard let original = initWithString.original(for: receiver) else { return nil }
        if string != nil { return original(receiver, cmd, string) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, initWithString, M.invalidArgument, hint: nilHint, reason: { cls in
            let gnustep = initializerOwner(receiver, cls).map { "\($0)-initWithString: given nil string" }
                ?? "[NSString-initWithString:]: NULL string"
            return M.nilInit(gnustep, cls: cls, method: "initWithString:")
        }) { return original(receiver, cmd, csr_string_create("")) }
        return original(receiver, cmd, string)
    }

    static let initWithUTF8String: HookPoint<StringIMP.ObjectWithCString> = HookPoint("initWithUTF8String:") { receiver, cmd, bytes in
        guard let original = initWithUTF8String.original(for: receiver) else { return nil }
        if bytes != nil { return original(receiver, cmd, bytes) }
        if GuardFailure.stopOrRaise(.string, receiver, cmd, initWithUTF8String, M.invalidArgument, hint: "check the C string for NULL before the call", reason: { cls in
            M.nilInit("[\(initializerOwner(receiver, cls) ?? "NSString")-initWithUTF8String:]: NULL cString", cls: cls, method: "initWithUTF8String:")
        }) { return "".withCString { original(receiver, cmd, $0) } }
        return original(receiver, cmd, bytes)
    }
}
