import CrashShieldRuntime.Internal

/// The exceptions Foundation raises, by name. The one place CrashShield spells them.
enum ExceptionName {
    static let range = "NSRangeException"
    static let invalidArgument = "NSInvalidArgumentException"
    static let internalInconsistency = "NSInternalInconsistencyException"
    static let unknownKey = "NSUnknownKeyException"
}

/// What the developer should check, per kind of failure.
enum Hint {
    static let index = "check the index against count before the call"
    static let range = "clamp the range to count"
    static let nilObject = "check the object for nil before adding it (a JSON null or a failed lookup?)"
    static let nilPair = "check keys and values for nil before storing them (a JSON null or a failed lookup?)"
    static let text = "check the index or range against length before the call"
    static let nilString = "check the string for nil before the call (a JSON null or a failed lookup?)"
    static let nilCString = "check the C string for NULL before the call"
    static let nilFormat = "check the format for nil before the call (a missing localized string?)"
    static let insertion = "insert at indexes within the array's new bounds"
}

/// Words for failure reasons, as Foundation prints them.
enum GuardFailure {
    /// An address as `%p` prints it (0x and lowercase hex; "0x0" for nil), for reasons that quote Foundation.
    static func address(_ pointer: UnsafeRawPointer?) -> String {
        "0x" + String(UInt(bitPattern: pointer), radix: 16)
    }

    /// Class name of a receiver (the class itself for a class object).
    static func className(_ receiver: CSRObject?) -> String {
        guard let cls = ObjCClass(of: receiver) else { return "nil" }
        return cls.isMetaclass ? ObjCClass(receiver!).name : cls.name
    }
}

/// What Foundation raises when a container or string call fails, per the rules in force (`FoundationRules`, asked when
/// the violation is built or its reason written): the one place for their texts. The
/// crash matrix checks every GNUstep text against the real one (the unprotected run's uncaught exception); the Apple
/// texts follow iOS's formats (those marked "Apple's rules only" are unverified on a device: Docs/AppleRuntime.md).
/// GNUstep often raises from an inner method (`insertString:atIndex:` reports `replaceCharactersInRange:withString:`,
/// `addObject:` reports `insertObject:atIndex:`): `method` is the one Foundation names.
extension Violation {
    // MARK: Containers

    /// An index past the end of an array.
    /// Apple's empty immutable array (`__NSArray0`) words its own: "for empty NSArray" (zingdom/zing-bright#27).
    static func index(_ index: UInt, count: UInt, method: String, hint: String = Hint.index) -> Violation {
        Violation(ExceptionName.range, hint: hint) { cls in
            FoundationRules.isApple
                ? "*** -[\(cls) \(method)]: index \(index) beyond bounds "
                    + bounds(count, empty: cls == "__NSArray0" ? "NSArray" : "array")
                : "Index \(index) is out of range \(count) (in '\(method)')"
        }
    }

    /// A range past the end of an array.
    static func range(_ range: CSRRange, count: UInt, method: String) -> Violation {
        Violation(ExceptionName.range, hint: Hint.range) { cls in
            FoundationRules.isApple
                ? "*** -[\(cls) \(method)]: range {\(range.location), \(range.length)} extends beyond bounds "
                    + bounds(count, empty: "array")
                : "in \(method), range { \(range.location), \(range.length) } extends beyond size (\(count))"
        }
    }

    /// An index past the end of an ordered set: GNUstep fails an internal assertion (GSIArrayItemAtIndex) where
    /// Apple raises a range exception.
    static func orderedSetIndex(_ index: UInt, count: UInt, method: String, hint: String = Hint.index) -> Violation {
        guard FoundationRules.isApple else {
            return Violation(ExceptionName.internalInconsistency, hint: hint) { _ in
                "../Headers/GNUstepBase/GSIArray.h:529  Assertion failed in GSIArrayItemAtIndex.  NSInvalidArgumentException"
            }
        }
        return Violation(ExceptionName.range, hint: hint) { cls in
            "*** -[\(cls) \(method)]: index \(index) beyond bounds " + bounds(count, empty: "ordered set")
        }
    }

    /// `exchangeObjectAtIndex:withObjectAtIndex:` of an ordered set past the end: GNUstep checks it as an array does
    /// (its range exception), Apple as its other ordered-set indexes.
    static func orderedSetExchange(_ index: UInt, count: UInt) -> Violation {
        FoundationRules.isApple
            ? orderedSetIndex(index, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:")
            : .index(index, count: count, method: "exchangeObjectAtIndex:withObjectAtIndex:")
    }

    /// `objectsAtIndexes:` with an index set reaching past the end (`last`: its last index). GNUstep raises from the
    /// `objectAtIndex:` it sends for that index; Apple checks the set first.
    static func indexSetIndex(_ last: UInt, count: UInt) -> Violation {
        guard FoundationRules.isApple else { return .index(last, count: count, method: "objectAtIndex:") }
        return Violation(ExceptionName.range, hint: Hint.index) {
            "*** -[\($0) objectsAtIndexes:]: index \(last) in index set beyond bounds " + bounds(count, empty: "array")
        }
    }

    /// `array[i] = x` with i past count: Apple names the subscript; GNUstep raises from the
    /// `replaceObjectAtIndex:withObject:` it sends.
    static func subscriptAssignment(_ index: UInt, count: UInt) -> Violation {
        .index(
            index, count: count,
            method: FoundationRules.isApple ? "setObject:atIndexedSubscript:" : "replaceObjectAtIndex:withObject:",
            hint: "assign at an index from 0 to count")
    }

    /// `insertObjects:atIndexes:` with an index past the array as it has grown (`count`: its count then).
    static func insertionIndex(_ index: UInt, count: UInt) -> Violation {
        .index(index, count: count, method: "insertObject:atIndex:", hint: Hint.insertion)
    }

    /// Apple's rules: `insertObjects:atIndexes:` given nil objects or a nil index set (`last`: the set's last index)
    /// raises NSInvalidArgumentException, worded as its index failure.
    static func nilInsertion(last: UInt?, count: UInt) -> Violation {
        let index = insertionIndex(last ?? 0, count: count)
        return Violation(ExceptionName.invalidArgument, hint: index.hint, reason: index.reason)
    }

    /// `removeLastObject` on an empty array: GNUstep 1.28 raises; Apple's Foundation does nothing (no Apple text: the
    /// hook is installed under GNUstep's rules only).
    static let removeLastOfEmpty = Violation(ExceptionName.range, hint: "check that the array is not empty") { _ in
        "Trying to remove from an empty array."
    }

    /// A nil argument to a mutation (`gnustep`: GNUstep's text), as the rules in force word it.
    static func nilArgument(
        _ gnustep: String, method: String, apple: String = "object cannot be nil",
        hint: String = Hint.nilObject
    ) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: hint) {
            FoundationRules.isApple ? appleText($0, method, apple) : gnustep
        }
    }

    /// A nil object (or key) given to a constructor at `slot` (`gnustep`: GNUstep's text; Apple names the slot).
    static func nilInInit(
        _ gnustep: String, method: String = "initWithObjects:count:", slot: Int, what: String = "object",
        hint: String = Hint.nilObject
    ) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: hint) { cls in
            FoundationRules.isApple
                ? "*** -[\(cls) \(method)]: attempt to insert nil \(what) from \(what)s[\(slot)]" : gnustep
        }
    }

    /// A failure whose GNUstep text is fixed and whose Apple text names the method, as the rules in force word it.
    static func fixed(_ exception: String, _ gnustep: String, method: String, apple: String, hint: String) -> Violation
    {
        Violation(exception, hint: hint) { FoundationRules.isApple ? appleText($0, method, apple) : gnustep }
    }

    /// A failure the original itself raised and a guard caught (a hot read's trampoline, a probe of the original,
    /// `csr_try_object_with_object`): Foundation's own name and reason, whatever the rules in force.
    static func caught(_ exception: String, _ reason: String, hint: String) -> Violation {
        Violation(exception, hint: hint) { _ in reason }
    }

    /// A call that only Apple's Foundation raises for (guarded under Apple's rules only). `starred`: Apple's text
    /// starts with `*** ` (false where Apple raises through `__CFExceptionProem` alone: `mutateError`, NSCache).
    static func appleOnly(
        _ method: String, _ text: String, hint: String, isClassMethod: Bool = false,
        starred: Bool = true
    ) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: hint) {
            starred
                ? appleText($0, method, text, isClassMethod: isClassMethod)
                : "\(appleProem($0, method, isClassMethod: isClassMethod)): \(text)"
        }
    }

    /// `-[NSCache setObject:nil forKey:k]` (Apple's rules only): `-[NSCache setObject:forKey:cost:]: attempt to insert
    /// nil value (key: k)`, without `*** ` (soffes/SAMCache#17), also when the app called `setObject:forKey:`.
    static func nilCacheValue(key: String) -> Violation {
        appleOnly(
            "setObject:forKey:cost:", "attempt to insert nil value (key: \(key))",
            hint: "check the object for nil before caching it (removeObjectForKey: removes)", starred: false)
    }

    // MARK: Strings

    /// A range past the end of a string (GNUstep names the method that checked; `appleMethod`, if given, the one
    /// Apple's reason names).
    static func textRange(_ range: CSRRange, length: UInt, method: String, appleMethod: String? = nil) -> Violation {
        Violation(ExceptionName.range, hint: Hint.text) { cls in
            textRangeReason(
                range.value, length: length, method: FoundationRules.isApple ? appleMethod ?? method : method, cls: cls)
        }
    }

    /// GNUstep only: a nil string compared by GSString.m's `compare:options:range:`, which names the receiver's class
    /// (`generic`: NSString's own `compare:options:range:locale:`, behind the other classes and NSNumericSearch).
    /// Apple documents a nil string as undefined behaviour, not an exception: never asked for under Apple's rules.
    static func nilCompare(generic: Bool) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: Hint.nilString) { cls in
            generic ? "compare with nil" : "[\(cls) -compare:options:range:] nil string argument"
        }
    }

    /// A nil character set. GNUstep's string classes raise (their text, from the implementation itself: see
    /// `SearchHooks`); Apple documents NSInvalidArgumentException (its text unverified on a device).
    static let nilCharacterSet = Violation(
        ExceptionName.invalidArgument, hint: "check the character set for nil before the call"
    ) {
        appleText($0, "rangeOfCharacterFromSet:options:range:", "nil argument")
    }

    /// GNUstep only: NSString's generic `rangeOfCharacterFromSet:options:range:` (NXConstantString's too) reads the
    /// set's `characterIsMember:` through `[nil methodForSelector:]`, a NULL function, at the range's first character.
    static let nilCharacterSetCrash = Violation(
        .segmentationFault, hint: "check the character set for nil before the call"
    ) {
        cls in
        "-[\(cls) rangeOfCharacterFromSet:options:range:] with a nil set: GNUstep calls NULL for the first character"
    }

    /// `substringFromIndex:` / `substringToIndex:` past the end. GNUstep checks the derived range in
    /// `substringWithRange:` ({index, length - index} wraps around for fromIndex).
    static func substringIndex(_ index: UInt, length: UInt, from: Bool) -> Violation {
        Violation(ExceptionName.range, hint: Hint.text) { cls in
            FoundationRules.isApple
                ? "*** -[\(cls) \(from ? "substringFromIndex:" : "substringToIndex:")]: Index \(index) out of bounds; string length \(length)"
                : textRangeReason(
                    from ? (index, length &- index) : (0, index), length: length, method: "substringWithRange:",
                    cls: cls)
        }
    }

    /// A mutation of a string at an index or range past the end (`method`: the one GNUstep checks in).
    /// Apple's text has no `*** ` (KrassOrg/bsTestRepo#2306: `-[__NSCFString replaceCharactersInRange:withString:]:
    /// Range or index out of bounds`).
    static func textMutation(_ range: CSRRange, length: UInt, method: String, appleMethod: String) -> Violation {
        Violation(ExceptionName.range, hint: Hint.text) { cls in
            FoundationRules.isApple
                ? "\(appleProem(cls, appleMethod)): Range or index out of bounds"
                : textRangeReason(range.value, length: length, method: method, cls: cls)
        }
    }

    /// `replaceOccurrencesOfString:withString:options:range:` given a nil target (`replacement: false`) or a nil
    /// replacement (`replacement: true`); `stringByReplacingOccurrencesOfString:withString:` and `...options:range:`
    /// reach it on a mutable copy. GNUstep (NSString.m, NSMutableString's implementation) names the selector:
    /// `replaceOccurrencesOfString:withString:options:range: bad search string` / `bad replace string`. Apple's text
    /// is unverified (no public crash log quoted): CoreFoundation's `*** -[Class method]: nil argument` is assumed.
    static func nilReplaceOccurrences(replacement: Bool) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: Hint.nilString) { cls in
            FoundationRules.isApple
                ? appleText(cls, replaceOccurrencesSelector, "nil argument")
                : "\(replaceOccurrencesSelector) \(replacement ? "bad replace string" : "bad search string")"
        }
    }

    /// `replaceOccurrencesOfString:withString:options:range:` with a search range past the end. GNUstep raises an
    /// NSInvalidArgumentException (not a range exception), `... bad search range`, when NSMaxRange (wrapping) passes
    /// the length. Apple: an NSRangeException in the usual range wording (unverified: no public crash log quoted).
    static func replaceOccurrencesRange(_ range: CSRRange, length: UInt) -> Violation {
        if FoundationRules.isApple { return textRange(range, length: length, method: replaceOccurrencesSelector) }
        return Violation(ExceptionName.invalidArgument, hint: Hint.text) { _ in
            "\(replaceOccurrencesSelector) bad search range"
        }
    }

    /// GNUstep only: a range whose end passes 2^64 passes `replaceOccurrencesOfString:withString:options:range:`'s
    /// wrapping check (`NSMaxRange(range) > length`) and its search reads far past the string.
    static func replaceOccurrencesWrap(_ range: CSRRange) -> Violation {
        Violation(.segmentationFault, hint: Hint.text) { cls in
            "-[\(cls) \(replaceOccurrencesSelector)] with range {\(range.location), \(range.length)}: its end passes 2^64, GNUstep searches past the string"
        }
    }

    static let replaceOccurrencesSelector = "replaceOccurrencesOfString:withString:options:range:"

    /// A nil search string (`rangeOfString:options:range:locale:`, `hasPrefix:`, `hasSuffix:`). Apple: `hasPrefix:`/
    /// `hasSuffix:` raise without `*** ` (`-[__NSCFString hasPrefix:]: nil argument`); `rangeOfString:` raises in the
    /// method it calls, `*** -[__NSCFString rangeOfString:options:range:locale:]: nil argument` (Docs/AppleRuntime.md
    /// §13).
    static func nilSearch(method: String) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: Hint.nilString) { cls in
            guard FoundationRules.isApple else { return "range of nil" }
            // rangeOfString: and its family raise from rangeOfString:options:range:locale:, with `*** `.
            return method.hasPrefix("rangeOfString:")
                ? appleText(cls, "rangeOfString:options:range:locale:", "nil argument")
                : "\(appleProem(cls, method)): nil argument"
        }
    }

    /// A nil string or C string given to a constructor, as the rules in force word it. `gnustep`: GNUstep's text;
    /// `apple`: Apple's (default `*** -[Class method]: nil argument`).
    static func nilInit(
        _ gnustep: @escaping (String) -> String, method: String, isClassMethod: Bool = false,
        hint: String = Hint.nilString, apple: ((String) -> String)? = nil
    ) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: hint) { cls in
            guard FoundationRules.isApple else { return gnustep(cls) }
            return apple?(cls) ?? appleText(cls, method, "nil argument", isClassMethod: isClassMethod)
        }
    }

    /// A NULL C string given to a constructor: Apple's text is `NULL cString` (`*** +[NSString
    /// stringWithUTF8String:]: NULL cString`, `*** -[NSPlaceholderString initWithUTF8String:]: NULL cString`).
    static func nullCString(
        _ gnustep: @escaping (String) -> String, method: String, isClassMethod: Bool = false
    ) -> Violation {
        nilInit(gnustep, method: method, isClassMethod: isClassMethod, hint: Hint.nilCString) {
            appleText($0, method, "NULL cString", isClassMethod: isClassMethod)
        }
    }

    /// A nil format reaching `initWithFormat:locale:arguments:` (behind `initWithFormat:`, `stringWithFormat:` on
    /// Apple and on GNUstep's NSMutableString, `stringByAppendingFormat:` on GNUstep). Apple's text unverified.
    static let nilFormat = Violation(ExceptionName.invalidArgument, hint: "check the format for nil before the call") {
        cls in
        FoundationRules.isApple
            ? appleText(cls, "initWithFormat:locale:arguments:", "nil argument")
            : "[\(cls)-initWithFormat:locale:arguments:]: NULL format"
    }

    /// A nil format given to GNUstep's `+stringWithFormat:`, which raises in its own body; under Apple's rules, what
    /// Apple raises for it from `initWithFormat:locale:arguments:` (unverified on a device).
    static let nilFormatList = Violation(ExceptionName.invalidArgument, hint: Hint.nilFormat) { _ in
        FoundationRules.isApple
            ? appleText("NSPlaceholderString", "initWithFormat:locale:arguments:", "nil argument")
            : "[NSString+stringWithFormat:]: NULL format"
    }

    /// A nil key in an objects-and-keys list: GNUstep raises from `initWithObjects:forKeys:count:`; Apple from the
    /// method itself (`__CFExceptionProem`: no "***"; unverified on a device).
    static func nilKeyInList(_ method: String, isClassMethod: Bool) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "check each key for nil before the call (a nil object ends the list early, a nil key raises)"
        ) { cls in
            FoundationRules.isApple
                ? "\(isClassMethod ? "+" : "-")[\(cls) \(method)]: second object of each pair must be non-nil.  "
                    + "Or, did you forget to nil-terminate your parameter list?"
                : "Tried to init dictionary with nil key"
        }
    }

    /// An attributed-string index past the end (`attributesAtIndex:...`, `attribute:atIndex:...`).
    static let attributeIndex = Violation(ExceptionName.range, hint: Hint.text) { _ in
        FoundationRules.isApple
            ? "NSMutableRLEArray objectAtIndex:effectiveRange:: Out of bounds"
            : "index is out of range in function _attributesAtIndexEffectiveRange()"
    }

    /// GNUstep only: `addAttribute:value:range:` with a nil name reaching the attribute dictionary.
    static let nilAttributeName = Violation(ExceptionName.invalidArgument, hint: "check the attribute name for nil") {
        _ in
        "Tried to add nil key to dictionary"
    }

    /// GNUstep only: `addAttributes:nil range:` (its spelling).
    static let nilAttributes = Violation(ExceptionName.invalidArgument, hint: "check the attributes for nil") { _ in
        "attributes is nil in method -addAttributes:range: in class NSMutableAtrributedString"
    }

    /// GNUstep only: `addAttributes:range:` with a range past the end (its check names `addAttribute:value:range:`).
    static let addAttributesRange = Violation(ExceptionName.range, hint: Hint.text) { _ in
        "RangeError in method -addAttribute:value:range: in class NSMutableAttributedString"
    }

    /// GNUstep only: `attributesAtIndex:longestEffectiveRange:inRange:` with a limit past the end.
    static let attributesLimit = Violation(ExceptionName.range, hint: Hint.text) { _ in
        "RangeError in method -attributesAtIndex:longestEffectiveRange:inRange: in class NSAttributedString"
    }

    /// GNUstep only: `attribute:atIndex:longestEffectiveRange:inRange:` with a limit past the end (names the
    /// receiver's class).
    static let attributeLimit = Violation(ExceptionName.range, hint: Hint.text) {
        "RangeError in method attribute:atIndex:longestEffectiveRange:inRange: in class \($0)"
    }

    /// `addAttribute:value:range:` with a nil value. Apple: `NSConcreteMutableAttributedString
    /// addAttribute:value:range:: nil value` (no brackets, no `***`).
    static func nilAttributeValue(name: String) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: "check the attribute value for nil") {
            FoundationRules.isApple
                ? "\($0) addAttribute:value:range:: nil value"
                : "Tried to add nil value for key '\(name)' to dictionary"
        }
    }

    /// An attributed string's `initWithString:` with nil. Apple: `NSConcreteAttributedString initWithString:: nil
    /// value` (SAMTextView#30).
    static let nilAttributedInit = nilInit(
        { _ in "aString object passed to -[GSAttributedString initWithString:attributes:] is nil" },
        method: "initWithString:", apple: { "\($0) initWithString:: nil value" })

    // MARK: Data

    /// A range past the end of a data object (GNUstep's text is its range check's, as for strings). Apple's text
    /// unverified on a device.
    static func dataRange(_ range: CSRRange, length: UInt, method: String) -> Violation {
        Violation(ExceptionName.range, hint: "check the range against length before the call") { cls in
            FoundationRules.isApple
                ? appleText(cls, method, "range {\(range.location), \(range.length)} exceeds data length \(length)")
                : textRangeReason(range.value, length: length, method: method, cls: cls)
        }
    }

    /// A data mutation whose range starts past the end.
    static func dataLocation(_ range: CSRRange, length: UInt, method: String) -> Violation {
        dataRange(range, length: length, method: method).withGNUstepReason("location bad in \(method)")
    }

    /// GNUstep only: a data mutation that GNUstep's own checks let through and that then copies or moves bytes past
    /// the end of the data's buffer (it dies of SIGSEGV, or corrupts the heap first).
    static func dataOverrun(_ range: CSRRange, length: UInt, method: String) -> Violation {
        Violation(.segmentationFault, hint: "check the range against length before the call") { cls in
            "-[\(cls) \(method)] with range {\(range.location), \(range.length)} and length \(length): "
                + "GNUstep writes past the end of the data's buffer"
        }
    }

    /// The same violation, with `gnustep` as its reason under GNUstep's rules.
    private func withGNUstepReason(_ gnustep: String) -> Violation {
        let reason = self.reason
        return Violation(failure, hint: hint) { FoundationRules.isApple ? reason($0) : gnustep }
    }

    // MARK: Wording

    /// Apple's wording, `*** -[Class method]: text` (`+[...]` for a class method).
    static func appleText(_ cls: String, _ method: String, _ text: String, isClassMethod: Bool = false) -> String {
        "*** \(appleProem(cls, method, isClassMethod: isClassMethod)): \(text)"
    }

    /// `-[Class method]`, what CoreFoundation's `__CFExceptionProem` writes; some of Apple's reasons are only this and
    /// the text, without `*** `.
    static func appleProem(_ cls: String, _ method: String, isClassMethod: Bool = false) -> String {
        "\(isClassMethod ? "+" : "-")[\(cls) \(method)]"
    }

    private static func bounds(_ count: UInt, empty: String) -> String {
        count == 0 ? "for empty \(empty)" : "[0 .. \(count - 1)]"
    }

    private static func textRangeReason(_ range: CSRRangeValue, length: UInt, method: String, cls: String) -> String {
        FoundationRules.isApple
            ? "*** -[\(cls) \(method)]: Range {\(range.location), \(range.length)} out of bounds; string length \(length)"
            : "in \(method), range { \(range.location), \(range.length) } extends beyond size (\(length))"
    }
}

// MARK: Foundation families beyond the first eleven (issue 24)

extension Violation {
    /// `initWithBytes:length:encoding:` with NULL bytes and a length above 0. GNUstep (GSString.m) raises
    /// `-initWithBytes:lenth:encoding given nul bytes` (its spelling), except GSMutableString's for a byte order mark
    /// it reads first: NSUnicodeStringEncoding and a length of 2 or more, NSUTF8StringEncoding and 3 or more
    /// (SIGSEGV). Apple: CFStringCreateWithBytes reads the NULL bytes (a crash; unverified on a device).
    static func nullBytes(length: UInt, encoding: UInt, mutable: Bool) -> Violation {
        let readsMark = mutable && ((encoding == 10 && length >= 2) || (encoding == 4 && length >= 3))
        if FoundationRules.isApple || readsMark {
            return Violation(.segmentationFault, hint: Hint.nilCString) { cls in
                "-[\(cls) initWithBytes:length:encoding:] with NULL bytes and length \(length): the bytes are read"
            }
        }
        return Violation(ExceptionName.invalidArgument, hint: Hint.nilCString) { _ in
            "-initWithBytes:lenth:encoding given nul bytes"
        }
    }
}

extension Violation {
    /// GNUstep only: a range NXConstantString's own walk rejects (GSString.m, old ABI): `in method, range { a, b }
    /// extends beyond string`.
    static func constantTextRange(_ range: CSRRange, method: String) -> Violation {
        Violation(ExceptionName.range, hint: Hint.text) { _ in
            "in \(method), range { \(range.location), \(range.length) } extends beyond string"
        }
    }
}

extension Violation {
    /// `initWithString:attributes:` (and `initWithAttributedString:`, which GNUstep funnels into it) with nil: GNUstep's
    /// text names GSAttributedString for both classes. Apple: `NSConcreteAttributedString initWithString:: nil value`
    /// (SAMTextView#30, raised under `initWithString:attributes:` too; unverified for this entry).
    static let nilAttributedStringAttributesInit = nilInit(
        { _ in "aString object passed to -[GSAttributedString initWithString:attributes:] is nil" },
        method: "initWithString:attributes:", apple: { "\($0) initWithString:: nil value" })
}

extension Violation {
    /// NSData's Base64 initializers given nil: GNUstep names the receiver's class (`[NSDataMalloc-
    /// initWithBase64EncodedString:options:] called with nil string`). Apple's text unverified on a device.
    static func nilBase64(data: Bool) -> Violation {
        let method = data ? "initWithBase64EncodedData:options:" : "initWithBase64EncodedString:options:"
        return Violation(
            ExceptionName.invalidArgument, hint: data ? "check the data for nil before decoding it" : Hint.nilString
        ) { cls in
            FoundationRules.isApple
                ? appleText(cls, method, data ? "nil data argument" : "nil string argument")
                : "[\(cls)-\(method)] called with nil \(data ? "data" : "string")"
        }
    }

    /// `-[NSNumber compare:nil]` (also behind `isEqualToNumber:`). Apple: `*** -[__NSCFNumber compare:]: nil argument`
    /// (unverified on a device).
    static let nilNumberCompare = Violation(
        ExceptionName.invalidArgument,
        hint: "check the number for nil before comparing (a JSON null or a failed lookup?)"
    ) { cls in
        FoundationRules.isApple ? appleText(cls, "compare:", "nil argument") : "nil argument for compare:"
    }
}

extension Violation {
    /// `-[NSURL initFileURLWithPath:...]` with nil: GNUstep `[NSURL initFileURLWithPath:] nil string parameter`, Apple
    /// `*** -[NSURL initFileURLWithPath:]: nil string parameter` (unverified on a device).
    static func nilFileURLPath(method: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument, hint: "check the path for nil before making a file URL (a failed lookup?)"
        ) { cls in
            FoundationRules.isApple
                ? appleText(cls, method, "nil string parameter") : "[\(cls) \(method)] nil string parameter"
        }
    }
}

extension Violation {
    /// GNUstep only: `-[NSDate compare:nil]` (NSDate.m): NSGDate's `nil argument for compare:`, NSDate's generic
    /// `other time nil`. Apple does not raise there (never asked for under Apple's rules).
    static func nilDateCompare(generic: Bool) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: "check the date for nil before comparing (a failed parse?)") {
            _ in
            generic ? "other time nil" : "nil argument for compare:"
        }
    }
}

extension Violation {
    /// `-[NSUserDefaults setObject:forKey:]` with a value that is not a property list: GNUstep `attempt to set non
    /// property list object (%@) for key (%@)` (NSUserDefaults.m); Apple `Attempt to insert non-property list object
    /// %@ for key %@` (no `*** `, no method: steamclock/bluejay#44, yakovmanshin/YMFF#147).
    static func nonPropertyListDefault(value: String, key: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "store only property lists (no NSNull, no custom objects; archive them to NSData)"
        ) { _ in
            FoundationRules.isApple
                ? "Attempt to insert non-property list object \(value) for key \(key)"
                : "attempt to set non property list object (\(value)) for key (\(key))"
        }
    }
}

extension Violation {
    /// NSJSONSerialization, Apple's rules only (GNUstep answers nil and an NSError). Apple's texts from public crash
    /// logs: `data parameter is nil` (marcuswestin/WebViewJavascriptBridge#236), `*** +[NSJSONSerialization
    /// dataWithJSONObject:options:error:]: Invalid top-level type in JSON write` (kasketis/netfox#33), `Invalid type in
    /// JSON write (Demo.SearchItemResult)` (johnlui/Pitaya#7); the number and key texts are unverified.
    static let nilJSONData = Violation(
        ExceptionName.invalidArgument, hint: "check the data for nil before parsing it (a failed request?)"
    ) { _ in
        "data parameter is nil"
    }
    static let invalidJSONTopLevel = Violation(ExceptionName.invalidArgument, hint: Hint.json) { _ in
        "*** +[NSJSONSerialization dataWithJSONObject:options:error:]: Invalid top-level type in JSON write"
    }
    static func invalidJSONType(_ className: String) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: Hint.json) { _ in "Invalid type in JSON write (\(className))" }
    }
    /// `NaN` or `infinite`.
    static func invalidJSONNumber(_ kind: String) -> Violation {
        Violation(ExceptionName.invalidArgument, hint: Hint.json) { _ in "Invalid number value (\(kind)) in JSON write"
        }
    }
    static let invalidJSONKey = Violation(ExceptionName.invalidArgument, hint: Hint.json) { _ in
        "Invalid (non-string) key in JSON dictionary"
    }
}

extension Hint {
    static let json = "check the object with +[NSJSONSerialization isValidJSONObject:] before writing it"
}

/// NSURL, NSFileManager and NSRegularExpression calls only Apple's Foundation raises for (Apple's rules only: GNUstep
/// 1.28 answers nil / NO / nothing). Apple's texts (`_NSMethodExceptionProem`: `*** -[Class method]`, the receiver's
/// class) from public crash logs and iPadOS 18's Foundation as decompiled in EthanArbuckle/iPad_10.2_18.0_22A3354_Restore
/// (Docs/AppleRuntime.md §15); unverified on a device.
extension Violation {
    /// `-URLByAppendingPathComponent:nil` / `...:isDirectory:` (chasseurmic/TWRDownloadManager#45).
    static func nilURLPathComponent(method: String) -> Violation {
        appleOnly(
            method, "component, components, or pathExtension cannot be nil.",
            hint: "check the path component for nil before appending it (a failed lookup?)")
    }
    /// `-initWithString:nil relativeToURL:` (and `-initWithString:nil`, which funnels into it): `method` is the one
    /// Apple's NSURL raises from (`URLHooks.initWithStringMethod`).
    static func nilURLString(method: String) -> Violation {
        appleOnly(method, "nil string parameter", hint: "check the URL string for nil before making a URL")
    }
    /// NSFileManager's copy and move methods given a nil source or destination (`what`: "source path", "destination
    /// URL"...), named as Apple's method that raises (the `options:` form the public one funnels into, for copies
    /// and URL moves).
    static func nilFileManagerArgument(_ what: String, method: String) -> Violation {
        appleOnly(method, "\(what) is nil", hint: "check the path or URL for nil before the file operation")
    }
    /// `-enumeratorAtURL:nil includingPropertiesForKeys:options:errorHandler:` (tomaszpoliszuk/HomeScreenQuickActions#4).
    static let nilEnumeratorURL = appleOnly(
        "enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:", "URL is nil",
        hint: "check the directory URL for nil before enumerating it")
    /// `-[NSRegularExpression enumerateMatchesInString:nil ...]`, which Apple's other matching methods funnel into
    /// (wordpress-mobile/WordPress-iOS#17330, tombenner/nui#292).
    static let nilRegexString = appleOnly(
        RegularExpressionHooks.enumerateMethod, "nil argument", hint: Hint.nilString)
    /// A nil template to `stringByReplacingMatchesInString:...` / `replaceMatchesInString:...`.
    static func nilRegexTemplate(method: String) -> Violation {
        appleOnly(method, "nil argument", hint: "check the template for nil before replacing matches")
    }
    /// A search range past the end of the string: NSRangeException `Range or index out of bounds`.
    static let regexRange = Violation(ExceptionName.range, hint: Hint.text) {
        appleText($0, RegularExpressionHooks.enumerateMethod, "Range or index out of bounds")
    }
}

// MARK: Key-value coding

/// What NSObject's KVC fallbacks raise, per rules (GNUstep's exact texts; Apple's follow iOS's formats).
extension Violation {
    /// `setValue:forKey:` (a key path, `setValuesForKeysWithDictionary:`...) reaching NSObject's
    /// `setValue:forUndefinedKey:`; on GNUstep a nil key too.
    static func undefinedKeySet(receiver: CSRObject?, key: CSRObject?) -> Violation {
        Violation(ExceptionName.unknownKey, hint: undefinedKeyHint(key)) { _ in
            FoundationRules.isApple
                ? "[<\(kvcClassName(receiver)) \(GuardFailure.address(receiver))> setValue:forUndefinedKey:]: this class is not key value coding-compliant for the key \(kvcFormat(key))."
                : "Unable to set value for undefined key"
        }
    }

    /// `valueForKey:` (a key path, a collection operator...) reaching NSObject's `valueForUndefinedKey:`.
    static func undefinedKeyValue(receiver: CSRObject?, key: CSRObject?) -> Violation {
        Violation(ExceptionName.unknownKey, hint: undefinedKeyHint(key)) { _ in
            FoundationRules.isApple
                ? "[<\(kvcClassName(receiver)) \(GuardFailure.address(receiver))> valueForUndefinedKey:]: this class is not key value coding-compliant for the key \(kvcFormat(key))."
                : "Unable to find value for key \"\(kvcFormat(key))\" of object \(kvcFormat(receiver)) (\(kvcClassName(receiver)))"
        }
    }

    /// `setValue:nil forKey:` for a scalar property, reaching NSObject's `setNilValueForKey:`.
    static func nilValueForKey(receiver: CSRObject?, key: CSRObject?) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "give scalar properties a number (NSNumber/NSValue), or override setNilValueForKey:"
        ) { _ in
            FoundationRules.isApple
                ? "[<\(kvcClassName(receiver)) \(GuardFailure.address(receiver))> setNilValueForKey]: could not set nil as the value for the key \(kvcFormat(key))."
                : "setNilValueForKey: -- \(kvcClassName(receiver)) \(GuardFailure.address(receiver)): Given nil value to set for key \"\(kvcFormat(key))\""
        }
    }

    /// Apple's rules only: `setValue:forKey:nil`, which Apple's `setValue:forKey:` raises for itself.
    static let nilKeyForSetValue = Violation(ExceptionName.invalidArgument, hint: Hint.nilKey) { cls in
        "*** -[\(cls) setValue:forKey:]: attempt to set a value for a nil key"
    }

    private static func undefinedKeyHint(_ key: CSRObject?) -> String {
        key == nil ? Hint.nilKey : "check the key (a typo, a renamed property, or a JSON field the model lacks)"
    }

    private static let classSelector = csr_sel_register("class")

    /// `[receiver class]` (not the runtime class: a KVO subclass answers with the class it observes).
    private static func kvcClassName(_ receiver: CSRObject?) -> String {
        guard let cls = Messaging.sendObject(receiver, classSelector) else { return "nil" }
        return ObjCClass(cls).name
    }

    /// `%@` of an object ("(null)" for nil), as NSString's format prints it.
    private static func kvcFormat(_ object: CSRObject?) -> String {
        object == nil ? "(null)" : String(describing: object, limit: 4096)
    }
}

extension Hint {
    static let nilKey = "check the key for nil before the call"
}

// MARK: Key-value observing

/// What Foundation's KVO raises, or what the process dies of, per rules (GNUstep's texts; Apple's from its Foundation's
/// messages, Docs/AppleRuntime.md §5).
extension Violation {
    /// `addObserver:nil forKeyPath:...`.
    static let kvoNilObserver = Violation(ExceptionName.invalidArgument, hint: Hint.kvoRegistration) { _ in
        "observer is nil"
    }

    /// `addObserver:forKeyPath:nil ...`: Apple raises; GNUstep dereferences the key path.
    static var kvoNilKeyPath: Violation {
        FoundationRules.isApple
            ? Violation(ExceptionName.invalidArgument, hint: Hint.kvoRegistration) { _ in "key path is nil" }
            : Violation(.segmentationFault, hint: Hint.kvoRegistration) { _ in
                "key path is nil (GNUstep dereferences it)"
            }
    }

    /// `addObserver:forKeyPath:@"" ...`: GNUstep raises from the `substringFromIndex:` it sends.
    static let kvoEmptyKeyPath = Violation(ExceptionName.range, hint: Hint.kvoRegistration) { _ in
        FoundationRules.isApple
            ? "key path is empty"
            : "in substringWithRange:, range { 1, 18446744073709551615 } extends beyond size (0)"
    }

    /// A removal of an observer that is not registered for that key path (and context).
    static func kvoUnregisteredRemoval(observer: CSRObject?, keyPath: String?, context: UInt?) -> Violation {
        Violation(
            ExceptionName.range, hint: "remove only what was added (balance add/remove; check the key path and context)"
        ) { cls in
            "Cannot remove an observer \(String(describing: observer)) for the key path \"\(keyPath ?? "(null)")\" from \(cls)"
                + (context.map { " with context \(GuardFailure.address(UnsafeRawPointer(bitPattern: $0)))" } ?? "")
                + " because it is not registered as an observer."
        }
    }

    /// A change sent to an observer that does not implement `observeValueForKeyPath:ofObject:change:context:`.
    static func kvoUnhandledChange(className cls: String, keyPath: String) -> Violation {
        let hint = "implement observeValueForKeyPath:ofObject:change:context: in the observer"
        guard FoundationRules.isApple else {
            return Violation(ExceptionName.invalidArgument, hint: hint) { _ in
                "-observeValueForKeyPath:ofObject:change:context: cannot be sent to \(cls) ... create an instance overriding this"
            }
        }
        return Violation(ExceptionName.internalInconsistency, hint: hint) { _ in
            "<\(cls)>: An -observeValueForKeyPath:ofObject:change:context: message was received but not handled.\nKey path: \(keyPath)"
        }
    }

    /// An observer deallocated while still registered: what the next change would have died of.
    static func kvoDeadObserver(className: String, keyPaths: [String]) -> Violation {
        Violation(
            FoundationRules.isApple ? .signal(name: "EXC_BAD_ACCESS") : .segmentationFault,
            hint: "remove the observer (removeObserver:forKeyPath:) before it is deallocated, e.g. in its -dealloc"
        ) { _ in
            "An instance of \(className) was deallocated while still observing the key paths \(keyPaths.joined(separator: ", ")); CrashShield removed its registrations, so no change is sent to it (without CrashShield the next change would be sent to the freed object)"
        }
    }

    /// An observed object deallocated with observers still registered, where Foundation raises for that.
    static func kvoDeadObserved(address: UInt, className: String, keyPaths: [String]) -> Violation {
        Violation(
            ExceptionName.internalInconsistency, hint: "remove every observer before the observed object goes away"
        ) { _ in
            "An instance \(GuardFailure.address(UnsafeRawPointer(bitPattern: address))) of class \(className) was deallocated while key value observers were still registered with it (key paths: \(keyPaths.joined(separator: ", "))); CrashShield removed them"
        }
    }
}

extension Hint {
    static let kvoRegistration = "pass an observer and a non-empty key path"
}

// MARK: Notifications

/// What GNUstep's NSNotificationCenter raises at add time (Apple's accepts every registration), and what a post to a
/// dead observer dies of.
extension Violation {
    static let nilNotificationObserver = Violation(
        ExceptionName.invalidArgument, hint: "pass the object that should receive the notification"
    ) { _ in "Nil observer passed to addObserver ..." }

    static let nullNotificationSelector = Violation(
        ExceptionName.invalidArgument, hint: "pass the selector the observer implements"
    ) { _ in "Null selector passed to addObserver ..." }

    /// An observer that does not respond to its selector (`center`, `observerClass`: class names; `observer`: its
    /// description; `method`: the add method).
    static func unansweredNotificationSelector(
        center: String, method: String, observer: String, observerClass: String, selector: String
    ) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "implement -\(selector) in \(observerClass) or register the right selector"
        ) { _ in
            "[\(center)-\(method)] Observer '\(observer)' does not respond to selector '\(selector)'"
        }
    }

    /// An observer deallocated while registered, where the center messages dead observers (GNUstep): what the next
    /// post would have died of. (Apple's center never does, and nothing is reported there.)
    static func deadNotificationObserver(className: String, selector: String, names: [String]) -> Violation {
        Violation(
            .segmentationFault,
            hint: "remove the observer (removeObserver:) before it is deallocated, e.g. in its -dealloc"
        ) { _ in
            "An instance of \(className) was deallocated while still registered for the notifications \(names.joined(separator: ", ")) (selector \(selector)); it was removed from the notification center"
        }
    }
}

// MARK: Timers, zombies, messages nothing answers, the main thread

extension Violation {
    /// A timer made with a selector its target does not answer: what its first fire raises.
    static func unansweredTimerSelector(targetClass: String, selector: String, target: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "implement -\(selector) in \(targetClass) or schedule the timer with the right selector"
        ) { _ in
            "-[\(targetClass) \(selector)]: unrecognized selector sent to instance \(target)"
        }
    }

    /// A timer's target deallocated while timers held it (over-released): what the next fire would have died of (a
    /// message to freed memory), named as the zombie guard does.
    static func freedTimerTarget(className: String, selectors: [String]) -> Violation {
        Violation(
            .segmentationFault,
            hint:
                "balance retain/release of the timer's target (a release too many, a __bridge_transfer or CFRelease of a reference not owned)"
        ) { _ in
            "An instance of \(className) was deallocated while \(selectors.count == 1 ? "a timer" : "\(selectors.count) timers") (selector \(selectors.joined(separator: ", "))) still retained it: it was released once more than it was retained. Without CrashShield the timer's next fire would message the freed object; the timer is invalidated instead."
        }
    }

    /// A message to a zombie (`address`: `0x...`): reported as the SIGSEGV it would be, worded as objc4's zombies
    /// word it.
    static func messageToZombie(className: String, selector: String, address: String) -> Violation {
        Violation(
            .segmentationFault,
            hint: "an object was used after its last release: find the missing retain (a weak/assign reference, "
                + "an unbalanced release, a delegate or block that outlived its owner)"
        ) { _ in
            "*** -[\(className) \(selector)]: message sent to deallocated instance \(address)"
        }
    }

    /// A message nothing answers: the runtime's own exception and wording (`reason`, asked of the runtime only when
    /// the report is written).
    static func unrecognizedSelector(_ exception: String, hint: String, reason: @escaping () -> String) -> Violation {
        Violation(exception, hint: hint) { _ in reason() }
    }

    /// A main-thread-only UI method called from another thread: what UIKit raises when its layout engine is touched
    /// from a background thread.
    static let layoutOffMainThread = Violation(
        ExceptionName.internalInconsistency,
        hint: "call this on the main thread (DispatchQueue.main.async / performSelectorOnMainThread:)"
    ) { _ in uikitLayoutReason }

    static let uikitLayoutReason =
        "Modifications to the layout engine must not be performed from a background thread "
        + "after it has been accessed from the main thread."

    /// What failing loudly raises for it: the method and the thread named first.
    static func layoutOffMainThreadLoudReason(method: String, thread: String) -> String {
        "\(method) must be called on the main thread only; called on \(thread). " + uikitLayoutReason
    }
}

// MARK: UIKit and Core Animation (the opt-in UIKit guard)

/// What Core Animation and UIKit raise for the calls the UIKit guard stops, in their own words (public crash logs:
/// Docs/AppleRuntime.md §16).
extension Violation {
    static let layerGeometryException = "CALayerInvalidGeometry"

    /// `-[CALayer setPosition:]` (and `setFrame:`, which sets the position it computes) with a NaN coordinate:
    /// "CALayer position contains NaN: [nan 43.5]".
    static func layerPosition(_ x: Double, _ y: Double) -> Violation {
        Violation(layerGeometryException, hint: "check the geometry for NaN (a division by zero?) before setting it") {
            _ in
            "CALayer position contains NaN: [\(geometryNumber(x)) \(geometryNumber(y))]"
        }
    }

    /// `-[CALayer setBounds:]` with a NaN component: "CALayer bounds contains NaN: [0 nan; 320 291]" (iOS 14 and
    /// later append ". Layer: " and the layer's description, which the report leaves out).
    static func layerBounds(_ x: Double, _ y: Double, _ width: Double, _ height: Double) -> Violation {
        Violation(layerGeometryException, hint: "check the geometry for NaN (a division by zero?) before setting it") {
            _ in
            "CALayer bounds contains NaN: [\(geometryNumber(x)) \(geometryNumber(y)); \(geometryNumber(width)) \(geometryNumber(height))]"
        }
    }

    /// `-[UINavigationController pushViewController:animated:]` with a controller already on the stack (iOS 13 and
    /// later: the navigation controller, the controller and the app's bundle identifier).
    static func pushedTwice(navigation: String, controller: String, bundle: String?) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "check navigationController.viewControllers before pushing (a double tap pushing twice?)"
        ) { _ in
            "<\(navigation)> is pushing the same view controller instance (<\(controller)>) more than once which is not "
                + "supported and is most likely an error in the application" + (bundle.map { " : \($0)" } ?? "")
        }
    }

    /// An action-sheet alert presented as a popover (a regular-width environment: an iPad) without a location:
    /// NSGenericException from `-[UIPopoverPresentationController presentationTransitionWillBegin]`.
    static func actionSheetWithoutSource(alert: String, presenter: String) -> Violation {
        Violation(
            "NSGenericException",
            hint:
                "set popoverPresentationController.sourceView and sourceRect (or barButtonItem) before presenting an action sheet"
        ) { _ in
            "Your application has presented a UIAlertController (<\(alert)>) of style UIAlertControllerStyleActionSheet from "
                + "\(presenter.split(separator: ":").first.map(String.init) ?? presenter) (<\(presenter)>). The modalPresentationStyle of a UIAlertController "
                + "with this style is UIModalPresentationPopover. You must provide location information for this popover "
                + "through the alert controller's popoverPresentationController. You must provide either a sourceView and "
                + "sourceRect or a barButtonItem.  If this information is not known when you present the alert "
                + "controller, you may provide it in the UIPopoverPresentationControllerDelegate method "
                + "-prepareForPopoverPresentation."
        }
    }

    /// A WKWebView JavaScript panel delegate released WebKit's completion handler uncalled: WebKit's
    /// CompletionHandlerCallChecker raises when the block is destroyed (public crash reports, e.g.
    /// react-native-webview#3503, firefox-ios#12709: "Completion handler passed to -[Client.BrowserViewController
    /// webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:] was not called").
    static func completionHandlerNotCalled(selector: String) -> Violation {
        Violation(
            ExceptionName.internalInconsistency,
            hint:
                "call the completion handler on every path of the WKUIDelegate method, once (also when no alert is shown)"
        ) { className in "Completion handler passed to -[\(className) \(selector)] was not called" }
    }

    // Scrolling to an index path that does not exist (UIKitScrollHooks.swift). The view's description, which UIKit
    // prints whole (frame, layer, content offset, data source), is cut to its class and address.

    private static let scrollTargetHint =
        "check the index path against numberOfSections and numberOfRowsInSection:/numberOfItemsInSection: "
        + "(data changed without reloadData?)"

    /// `-[UITableView scrollToRowAtIndexPath:atScrollPosition:animated:]` to a section that does not exist:
    /// NSRangeException "Attempted to scroll the table view to an out-of-bounds section (18) when there are only 1
    /// sections. Table view: <...>" (SURYAKANTSHARMA/CountryPicker#54, iOS 13).
    static func tableScrollSection(_ section: Int, sections: Int, view: String) -> Violation {
        Violation(ExceptionName.range, hint: scrollTargetHint) { _ in
            "Attempted to scroll the table view to an out-of-bounds section (\(section)) when there are only "
                + "\(sections) sections. Table view: <\(view)>"
        }
    }

    /// The same to a row that does not exist: NSRangeException "Attempted to scroll the table view to an
    /// out-of-bounds row (72) when there are only 72 rows in section 0. Table view: <...>" (iOS 13 and later:
    /// itsmeichigo/DateTimePicker#91, Automattic/pocket-casts-ios#1565; before iOS 13 "-[UITableView
    /// _contentOffsetForScrollingToRowAtIndexPath:atScrollPosition:]: row (30) beyond bounds (30) for section (0).").
    static func tableScrollRow(_ row: Int, rows: Int, section: Int, view: String) -> Violation {
        Violation(ExceptionName.range, hint: scrollTargetHint) { _ in
            "Attempted to scroll the table view to an out-of-bounds row (\(row)) when there are only \(rows) rows in "
                + "section \(section). Table view: <\(view)>"
        }
    }

    /// `-[UICollectionView scrollToItemAtIndexPath:atScrollPosition:animated:]` to an item that does not exist:
    /// NSInternalInconsistencyException "Attempted to scroll the collection view to an out-of-bounds item (0) when
    /// there are only 0 items in section 0. Collection view: <...>." (iOS 15 and later: Provenance-Emu/Provenance#1771,
    /// chiahsien/CHTCollectionViewWaterfallLayout#203; iOS 13 and 14 raised NSInvalidArgumentException "attempt to
    /// scroll to invalid index path: <NSIndexPath: 0x...> {length = 2, path = 0 - 4}", not reproduced).
    static func collectionScrollItem(_ item: Int, items: Int, section: Int, view: String) -> Violation {
        Violation(ExceptionName.internalInconsistency, hint: scrollTargetHint) { _ in
            "Attempted to scroll the collection view to an out-of-bounds item (\(item)) when there are only \(items) "
                + "items in section \(section). Collection view: <\(view)>."
        }
    }

    /// The same to a section that does not exist. Unverified: no public log quotes iOS 15's text for a section; it
    /// is written as the item's ("... out-of-bounds section (2) when there are only 1 sections. Collection view:
    /// <...>.").
    static func collectionScrollSection(_ section: Int, sections: Int, view: String) -> Violation {
        Violation(ExceptionName.internalInconsistency, hint: scrollTargetHint) { _ in
            "Attempted to scroll the collection view to an out-of-bounds section (\(section)) when there are only "
                + "\(sections) sections. Collection view: <\(view)>."
        }
    }

    /// Activating a constraint whose items have no common ancestor: NSGenericException "Unable to activate constraint
    /// with anchors <NSLayoutXAxisAnchor:0x174a77480 "Prox.PlaceDetailsCardView:0x1014b7460.leading"> and <...>
    /// because they have no common ancestor.  Does the constraint or its anchors reference items in different view
    /// hierarchies?  That's illegal." (mozilla-mobile/prox#497, SnapKit/SnapKit#478; two spaces after each period).
    static func noCommonAncestor(first: String, second: String) -> Violation {
        Violation(
            "NSGenericException",
            hint: "add both views to one hierarchy (addSubview:) before activating constraints between them"
        ) { _ in
            "Unable to activate constraint with anchors \(first) and \(second) because they have no common ancestor.  "
                + "Does the constraint or its anchors reference items in different view hierarchies?  That's illegal."
        }
    }

    // Presenting and popping (UIKitPresentationHooks.swift).

    /// `-[UIViewController presentViewController:nil animated:completion:]`: NSInvalidArgumentException "Application
    /// tried to present a nil modal view controller on target <UITabBarController: 0x7a84410>."
    /// (adamdebono/ADFlipTransition#15).
    static func presentedNil(presenter: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "check the controller for nil before presenting it (a storyboard identifier that does not exist?)"
        ) { _ in "Application tried to present a nil modal view controller on target <\(presenter)>." }
    }

    /// A controller presented again while it is presented (or being presented): NSInvalidArgumentException
    /// "Application tried to present modally a view controller <UIViewController: 0x...> that is already being
    /// presented by <UIViewController: 0x...>." from `-[UIViewController
    /// _presentViewController:withAnimationController:completion:]` (Expensify/react-native-share-menu#101,
    /// capacitor-community/privacy-screen#56 with the stack).
    static func presentedTwice(controller: String, presenter: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "check presentingViewController (or isBeingPresented) before presenting a controller again"
        ) { _ in
            "Application tried to present modally a view controller <\(controller)> that is already being presented by "
                + "<\(presenter)>."
        }
    }

    /// `-[UINavigationController popToViewController:animated:]` with a controller that is not on its stack:
    /// NSInternalInconsistencyException "Tried to pop to a view controller that doesn't exist." (an assertion in
    /// `-[UINavigationController popToViewController:transition:]`: helpscout/beacon-ios-sdk#132,
    /// xiaopin/NavigationContainer#11).
    static let poppedToMissing = Violation(
        ExceptionName.internalInconsistency,
        hint: "check navigationController.viewControllers contains the controller before popping to it"
    ) { _ in "Tried to pop to a view controller that doesn't exist." }

    private static func geometryNumber(_ value: Double) -> String { UIKitGuard.number(value) }
}

// MARK: A nil string in replacements, Apple's rules only (issue 32 §2, `ReplacementNilHooks`)

extension Violation {
    /// `replaceCharactersInRange:withString:nil` and `insertString:nil atIndex:` on a mutable string: CoreFoundation's
    /// `mutateError`, without `*** ` (`-[__NSCFString replaceCharactersInRange:withString:]: nil argument`,
    /// element-hq/element-ios#663; the `insertString:atIndex:` text is unverified: peers quote it, no public crash log
    /// was found).
    static func nilStringReplacement(method: String) -> Violation {
        appleOnly(method, "nil argument", hint: Hint.nilString, starred: false)
    }

    /// A nil (attributed) string in a mutable attributed string's replacement: Apple's attributed string hands it to its
    /// storage, which raises whatever the receiver's class (tingbot/tide-for-mac-deprecated#1, under
    /// `replaceCharactersInRange:withAttributedString:`; the same path for `appendAttributedString:`,
    /// `insertAttributedString:atIndex:` and `setAttributedString:` is unverified).
    static func nilAttributedReplacement(method: String) -> Violation {
        Violation(
            ExceptionName.invalidArgument,
            hint: "check the \(method.contains("Attributed") ? "attributed " : "")string for nil before the call"
        ) { _ in appleText("NSBigMutableString", "replaceCharactersInRange:withString:", "nil argument") }
    }

    /// `stringByReplacingCharactersInRange:withString:nil`: raised in NSString's own method, with the receiver's class
    /// (haltNoShut/YFAssistantTableView#2: `*** -[__NSCFString stringByReplacingCharactersInRange:withString:]: nil
    /// argument`).
    static let nilStringByReplacing = appleOnly(
        "stringByReplacingCharactersInRange:withString:", "nil argument", hint: Hint.nilString)
}

// MARK: Range-taking array and ordered-set methods (issue 32, `RangeSearchHooks`)

extension Violation {
    /// `indexOfObject:inRange:` / `indexOfObjectIdenticalTo:inRange:` past the end. GNUstep: GS_RANGE_CHECK's text
    /// (`in indexOfObject:inRange:, range { 3, 1 } extends beyond size (2)`). Apple raises in NSArray's generic
    /// implementation, naming NSArray whatever the receiver (`*** -[NSArray indexOfObject:inRange:]: range {0, 120}
    /// extends beyond bounds for empty array`, as peers quote it; unverified: no public crash log was found).
    static func arraySearchRange(_ range: CSRRange, count: UInt, method: String) -> Violation {
        Violation(ExceptionName.range, hint: Hint.range) { _ in
            FoundationRules.isApple
                ? "*** -[NSArray \(method)]: range {\(range.location), \(range.length)} extends beyond bounds"
                    + (count == 0 ? " for empty array" : " [0 .. \(count - 1)]")
                : "in \(method), range { \(range.location), \(range.length) } extends beyond size (\(count))"
        }
    }

    /// `-[NSOrderedSet getObjects:range:]` past the end. GNUstep: GS_RANGE_CHECK's text. Apple: CoreFoundation's
    /// `-[__NSOrderedSetI getObjects:range:]` (its iOS 26.1 decompilation, EthanArbuckle/iPhone18-3_26.1_23B85_Restore,
    /// CoreFoundation/__NSOrderedSetI.m): `*** -[__NSOrderedSetI getObjects:range:]: range {l, n} extends beyond bounds
    /// [0 .. c-1]`, `... for empty ordered set` (unverified on a device).
    static func orderedSetRange(_ range: CSRRange, count: UInt) -> Violation {
        Violation(ExceptionName.range, hint: Hint.range) { cls in
            FoundationRules.isApple
                ? "*** -[\(cls) getObjects:range:]: range {\(range.location), \(range.length)} extends beyond bounds"
                    + (count == 0 ? " for empty ordered set" : " [0 .. \(count - 1)]")
                : "in getObjects:range:, range { \(range.location), \(range.length) } extends beyond size (\(count))"
        }
    }
}
