import CrashShieldRuntime.Internal

/// NSString reads and constructors (every concrete string class, mutable ones included). See `StringGuard` for the
/// recovery rules.
enum StringHooks {
    typealias IMP = ContainerIMP

    static func install(in context: GuardContext) throws {
        guard let strings = ClassFamily("NSString", "NSMutableString"), let root = ObjCClass(named: "NSString") else {
            return
        }
        try context.install([substringFromIndex, substringToIndex, hasPrefix, hasSuffix], onOwnersIn: strings)
        try context.install(
            layers: [substringWithRangeBase, substringWithRange, substringWithRangeInner], onOwnersIn: strings)
        try context.install(layers: [characterAtIndexBase, characterAtIndex], onOwnersIn: strings)
        try CharacterBufferHooks.install(in: context, strings: strings)
        // Class constructors: on NSString only (NSMutableString inherits them; both levels would nest).
        try context.install([stringWithString, stringWithUTF8String], on: [root])
        // Initializers run on what +alloc hands out: a placeholder, or (NSMutableString here) the concrete class.
        var placeholders: [ObjCClass] = []
        for family in ["NSString", "NSMutableString"] {
            if let cls = csr_cluster_placeholder_class(family).map(ObjCClass.init), !placeholders.contains(cls) {
                placeholders.append(cls)
            }
        }
        let unrelated = placeholders.filter { cls in
            !placeholders.contains { $0 != cls && (cls.isKind(of: $0) || $0.isKind(of: cls)) }
        }
        try context.install([initWithString, initWithUTF8String, initWithFormatLocaleArguments], on: unrelated)
        try CStringConstructorHooks.install(in: context, placeholders: unrelated, root: root)
        if FoundationRules.isApple { try context.install(stringByAppendingString, onOwnersIn: strings) }
    }

    // MARK: Reads

    /// Recovery: an empty string (the original with index == length).
    static let substringFromIndex: GuardedMethod<IMP.ObjectAtIndex> = GuardedMethod(
        "substringFromIndex:", .string,
        layers: [
            { substringFromIndex(in: substringFromIndex, $0, $1, $2) },
            { substringFromIndex(in: substringFromIndex.layer(1), $0, $1, $2) },
            { substringFromIndex(in: substringFromIndex.layer(2), $0, $1, $2) },
        ])
    private static func substringFromIndex(
        in point: GuardedMethod<IMP.ObjectAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt
    ) -> CSRObject? {
        let length = length(of: r)
        return point.read(
            r, cmd, valid: index <= length, else: .substringIndex(index, length: length, from: true),
            recovery: { $0(r, cmd, length) }
        ) { $0(r, cmd, index) }
    }

    /// Recovery: an empty string.
    static let substringToIndex: GuardedMethod<IMP.ObjectAtIndex> = GuardedMethod(
        "substringToIndex:", .string,
        layers: [
            { substringToIndex(in: substringToIndex, $0, $1, $2) },
            { substringToIndex(in: substringToIndex.layer(1), $0, $1, $2) },
            { substringToIndex(in: substringToIndex.layer(2), $0, $1, $2) },
        ])
    private static func substringToIndex(
        in point: GuardedMethod<IMP.ObjectAtIndex>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ index: UInt
    ) -> CSRObject? {
        let length = length(of: r)
        return point.read(
            r, cmd, valid: index <= length, else: .substringIndex(index, length: length, from: false),
            recovery: { $0(r, cmd, 0) }
        ) { $0(r, cmd, index) }
    }

    /// Three layers: GNUstep's NSString has a generic implementation (constant strings use it) under the concrete
    /// classes' own ones, and substrings (GSCSubString) override GSCString's. The outer two read their originals
    /// from static tables, without touching the point.
    static let substringWithRange: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "substringWithRange:", .string, hotTable: csr_hot_table(Int32(CSRHotStringSubstringWithRange))
    ) { r, cmd, range in
        substring(
            HookPoint.original(
                in: csr_hot_table(Int32(CSRHotStringSubstringWithRange)), for: r, point: substringWithRange),
            substringWithRange, r, cmd, range)
    }
    static let substringWithRangeBase: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "substringWithRange:", .string, hotTable: csr_hot_table(Int32(CSRHotStringSubstringWithRangeBase))
    ) { r, cmd, range in
        substring(
            HookPoint.original(
                in: csr_hot_table(Int32(CSRHotStringSubstringWithRangeBase)), for: r, point: substringWithRangeBase),
            substringWithRangeBase, r, cmd, range)
    }
    static let substringWithRangeInner: GuardedMethod<IMP.ObjectWithRange> = GuardedMethod(
        "substringWithRange:", .string
    ) { r, cmd, range in
        substring(substringWithRangeInner.original(for: r), substringWithRangeInner, r, cmd, range)
    }

    /// Recovery: an empty string (the original with {0, 0}).
    @inline(__always)
    private static func substring(
        _ original: IMP.ObjectWithRange?, _ point: @autoclosure () -> GuardedMethod<IMP.ObjectWithRange>,
        _ r: CSRObject?, _ cmd: CSRSelector?, _ range: CSRRange
    ) -> CSRObject? {
        guard let original else { return nil }
        let length = Messaging.sendUInt(r, csr_hot_selectors.length)
        if range.fits(in: length) { return original(r, cmd, range) }
        return point().read(
            r, cmd, .textRange(range, length: length, method: "substringWithRange:"), recovery: { $0(r, cmd, .empty) }
        ) {
            $0(r, cmd, range)
        }
    }

    /// Two layers, as `substringWithRange:`. C trampolines (CSRHotReads.h): the original runs under `@try` and its
    /// own exception is reported (GNUstep's constant strings raise an invalid-argument one, the others a range one).
    /// Recovery: 0.
    static let characterAtIndex = HotReadHookPoint<StringIMP.CharacterAtIndex>(
        "characterAtIndex:", hotTable: Int32(CSRHotStringCharacterAtIndex), category: .string, hint: Hint.text,
        precondition: indexWithinLength)
    static let characterAtIndexBase = HotReadHookPoint<StringIMP.CharacterAtIndex>(
        "characterAtIndex:", hotTable: Int32(CSRHotStringCharacterAtIndexBase), category: .string, hint: Hint.text,
        precondition: indexWithinLength)
    private static func indexWithinLength(_ receiver: CSRObject?, _ index: UInt) -> Bool {
        index < Messaging.sendUInt(receiver, csr_hot_selectors.length)
    }

    /// Recovery: NO. This and the hooks below marked "check-first" have a C trampoline in front (CSRCheckFirst.h):
    /// their check must stay exactly "the first argument is not nil". (`rangeOfString:` reaches
    /// `rangeOfString:options:range:locale:`, guarded in `SearchHooks`; so do these, after their own check.)
    static let hasPrefix: GuardedMethod<StringIMP.BoolWithObject> = GuardedMethod(
        "hasPrefix:", .string, checkFirst: Int32(CSRHotStringHasPrefix),
        layers: [
            { hasPrefix(in: hasPrefix, $0, $1, $2) }, { hasPrefix(in: hasPrefix.layer(1), $0, $1, $2) },
            { hasPrefix(in: hasPrefix.layer(2), $0, $1, $2) },
        ])
    private static func hasPrefix(
        in point: GuardedMethod<StringIMP.BoolWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ prefix: CSRObject?
    ) -> UInt8 {
        point.guarded(
            r, cmd, valid: prefix != nil, else: .nilSearch(method: "hasPrefix:"), unhooked: 0, recovery: { _ in 0 }
        ) { $0(r, cmd, prefix) }
    }

    /// Recovery: NO.
    static let hasSuffix: GuardedMethod<StringIMP.BoolWithObject> = GuardedMethod(
        "hasSuffix:", .string, checkFirst: Int32(CSRHotStringHasSuffix),
        layers: [
            { hasSuffix(in: hasSuffix, $0, $1, $2) }, { hasSuffix(in: hasSuffix.layer(1), $0, $1, $2) },
            { hasSuffix(in: hasSuffix.layer(2), $0, $1, $2) },
        ])
    private static func hasSuffix(
        in point: GuardedMethod<StringIMP.BoolWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ suffix: CSRObject?
    ) -> UInt8 {
        point.guarded(
            r, cmd, valid: suffix != nil, else: .nilSearch(method: "hasSuffix:"), unhooked: 0, recovery: { _ in 0 }
        ) { $0(r, cmd, suffix) }
    }

    /// Apple's rules only (GNUstep answers a copy of the receiver). Recovery: the same copy (the receiver appended
    /// with "").
    static let stringByAppendingString: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "stringByAppendingString:", .string,
        layers: [
            { stringByAppendingString(in: stringByAppendingString, $0, $1, $2) },
            { stringByAppendingString(in: stringByAppendingString.layer(1), $0, $1, $2) },
            { stringByAppendingString(in: stringByAppendingString.layer(2), $0, $1, $2) },
        ])
    private static func stringByAppendingString(
        in point: GuardedMethod<IMP.ObjectWithObject>, _ r: CSRObject?, _ cmd: CSRSelector?,
        _ string: CSRObject?
    ) -> CSRObject? {
        point.read(
            r, cmd, valid: string != nil,
            else: .appleOnly("stringByAppendingString:", "nil argument", hint: Hint.nilString),
            recovery: { $0(r, cmd, csr_string_create("")) }
        ) { $0(r, cmd, string) }
    }

    // MARK: Constructors (recovery: an empty string of the class asked for)

    /// A nil format raises on both Foundations (the variadic `initWithFormat:`, `stringWithFormat:` and, on GNUstep,
    /// `stringByAppendingFormat:` end here; GNUstep's `+[NSString stringWithFormat:]` raises before, unguarded).
    /// Recovery: the original with an empty format (no argument is read).
    static let initWithFormatLocaleArguments: GuardedMethod<StringIMP.InitWithFormat> = GuardedMethod(
        "initWithFormat:locale:arguments:", .string, checkFirst: Int32(CSRHotStringInitWithFormat)
    ) { r, cmd, format, locale, arguments in
        initWithFormatLocaleArguments.read(
            r, cmd, valid: format != nil, else: .nilFormat,
            recovery: { $0(r, cmd, csr_string_create(""), locale, arguments) }
        ) {
            $0(r, cmd, format, locale, arguments)
        }
    }

    /// Apple raises in the placeholder's `initWithString:` (ShareKit/ShareKit#612: `*** -[NSPlaceholderString
    /// initWithString:]: nil argument`; NSMutableString's placeholder for the mutable class).
    static let stringWithString: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod(
        "stringWithString:", .string, kind: .class
    ) { r, cmd, string in
        stringWithString.read(
            r, cmd, valid: string != nil,
            else: .nilInit(
                { _ in "[NSString+stringWithString:]: NULL string" }, method: "stringWithString:",
                isClassMethod: true,
                apple: { _ in
                    Violation.appleText(
                        isMutableStringClass(r) ? "NSPlaceholderMutableString" : "NSPlaceholderString",
                        "initWithString:", "nil argument")
                }), recovery: { $0(r, cmd, csr_string_create("")) }
        ) { $0(r, cmd, string) }
    }

    /// Whether the class object `cls` is NSMutableString or a subclass.
    private static func isMutableStringClass(_ cls: CSRObject?) -> Bool {
        guard let cls, let mutable = mutableStringClass else { return false }
        return ObjCClass(cls).isKind(of: mutable)
    }

    static let stringWithUTF8String: GuardedMethod<StringIMP.ObjectWithCString> = GuardedMethod(
        "stringWithUTF8String:", .string, kind: .class, checkFirst: Int32(CSRHotStringWithUTF8String)
    ) { r, cmd, bytes in
        stringWithUTF8String.read(
            r, cmd, valid: bytes != nil,
            else: .nullCString(
                { _ in "[NSString+stringWithUTF8String:]: NULL cString" },
                method: "stringWithUTF8String:", isClassMethod: true),
            recovery: { original in "".withCString { original(r, cmd, $0) } }
        ) { $0(r, cmd, bytes) }
    }

    private static let mutableStringClass = ObjCClass(named: "NSMutableString")

    /// GNUstep: the immutable placeholder names itself, NSMutableString runs NSString's initializer.
    private static func initializerOwner(_ receiver: CSRObject?, _ cls: String) -> String? {
        guard let mutable = mutableStringClass, let receiverClass = ObjCClass(of: receiver) else { return cls }
        return receiverClass.isKind(of: mutable) ? nil : cls
    }

    static let initWithString: GuardedMethod<IMP.ObjectWithObject> = GuardedMethod("initWithString:", .string) {
        r, cmd, string in
        initWithString.read(
            r, cmd, valid: string != nil,
            else: .nilInit(
                { cls in
                    initializerOwner(r, cls).map { "\($0)-initWithString: given nil string" }
                        ?? "[NSString-initWithString:]: NULL string"
                }, method: "initWithString:"), recovery: { $0(r, cmd, csr_string_create("")) }
        ) { $0(r, cmd, string) }
    }

    static let initWithUTF8String: GuardedMethod<StringIMP.ObjectWithCString> = GuardedMethod(
        "initWithUTF8String:", .string, checkFirst: Int32(CSRHotStringInitWithUTF8String)
    ) { r, cmd, bytes in
        initWithUTF8String.read(
            r, cmd, valid: bytes != nil,
            else: .nullCString(
                { "[\(initializerOwner(r, $0) ?? "NSString")-initWithUTF8String:]: NULL cString" },
                method: "initWithUTF8String:"),
            recovery: { original in "".withCString { original(r, cmd, $0) } }
        ) { $0(r, cmd, bytes) }
    }
}
