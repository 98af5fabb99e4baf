/// What Foundation raises when a string call fails, per platform. The crash matrix checks every GNUstep text against
/// the real one (the unprotected run's uncaught exception); the Apple texts follow iOS's formats.
///
/// GNUstep often raises from an inner method: `substringFromIndex:` and `substringToIndex:` report
/// `substringWithRange:`, `insertString:atIndex:` reports `replaceCharactersInRange:withString:`, `hasPrefix:` and
/// `hasSuffix:` report "range of nil". The texts below are those GNUstep prints.
enum StringMessages {
    static let range = "NSRangeException"
    static let invalidArgument = "NSInvalidArgumentException"

    /// A range past the end, for `method` (GNUstep names the method that checked).
    static func range(_ range: CSRRangeValue, length: UInt, method: String, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(method)]: Range {\(range.location), \(range.length)} out of bounds; string length \(length)"
        #else
        return "in \(method), range { \(range.location), \(range.length) } extends beyond size (\(length))"
        #endif
    }

    /// `substringFromIndex:` / `substringToIndex:` past the end. GNUstep checks the derived range in
    /// `substringWithRange:` ({index, length - index} wraps around for fromIndex).
    static func substringIndex(_ index: UInt, length: UInt, from: Bool, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(from ? "substringFromIndex:" : "substringToIndex:")]: Index \(index) out of bounds; string length \(length)"
        #else
        let derived: CSRRangeValue = from ? (index, length &- index) : (0, index)
        return range(derived, length: length, method: "substringWithRange:", cls: cls)
        #endif
    }

    /// A mutation at an index or range past the end (`method` as GNUstep names it: the inner method for inserts).
    static func mutationRange(_ value: CSRRangeValue, length: UInt, method: String, appleMethod: String, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(appleMethod)]: Range or index out of bounds"
        #else
        return range(value, length: length, method: method, cls: cls)
        #endif
    }

    /// A nil attribute value (`addAttribute:value:range:`); GNUstep raises from the attribute dictionary.
    static func nilAttributeValue(name: String, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) addAttribute:value:range:]: nil value"
        #else
        return "Tried to add nil value for key '\(name)' to dictionary"
        #endif
    }

    /// `addAttributes:range:` past the end: GNUstep names the method it checks in, and its own class.
    static func addAttributesRange(_ value: CSRRangeValue, length: UInt, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) addAttributes:range:]: Range or index out of bounds"
        #else
        return "RangeError in method -addAttribute:value:range: in class NSMutableAttributedString"
        #endif
    }

    /// A nil search string (`rangeOfString:`, `hasPrefix:`, `hasSuffix:`).
    static func nilSearch(method: String, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(method)]: nil argument"
        #else
        return "range of nil"
        #endif
    }

    /// A nil string or C string given to a constructor. `gnustep`: GNUstep's text.
    static func nilInit(_ gnustep: String, cls: String, method: String, isClassMethod: Bool = false) -> String {
        #if canImport(Darwin)
        return "*** \(isClassMethod ? "+" : "-")[\(cls) \(method)]: nil argument"
        #else
        return gnustep
        #endif
    }

    /// A nil format reaching `initWithFormat:locale:arguments:` (behind `initWithFormat:`, `stringWithFormat:` on
    /// Apple and on GNUstep's NSMutableString, `stringByAppendingFormat:` on GNUstep). Apple's text unverified on a
    /// device.
    static func nilFormat(cls: String) -> String {
        FoundationRules.isApple
            ? FoundationMessages.apple(cls, "initWithFormat:locale:arguments:", "nil argument")
            : "[\(cls)-initWithFormat:locale:arguments:]: NULL format"
    }

    /// An attributed-string index past the end (`attributesAtIndex:...`, `attribute:atIndex:...`).
    static func attributeIndex(_ index: UInt, length: UInt, cls: String) -> String {
        #if canImport(Darwin)
        return "NSMutableRLEArray objectAtIndex:effectiveRange:: Out of bounds"
        #else
        return "index is out of range in function _attributesAtIndexEffectiveRange()"
        #endif
    }
}
