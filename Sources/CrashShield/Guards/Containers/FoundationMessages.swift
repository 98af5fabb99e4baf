/// What Foundation prints when a container call fails, per platform. The crash matrix checks every GNUstep message
/// against the real one (the unprotected run's uncaught exception); the Apple texts follow iOS's formats.
enum FoundationMessages {
    static let range = "NSRangeException"
    static let invalidArgument = "NSInvalidArgumentException"

    /// An index past the end, for `method` (the method Foundation names, which may be an inner one on GNUstep).
    static func index(_ index: UInt, count: UInt, method: String, cls: String) -> String {
        #if canImport(Darwin)
        return count == 0
            ? "*** -[\(cls) \(method)]: index \(index) beyond bounds for empty array"
            : "*** -[\(cls) \(method)]: index \(index) beyond bounds [0 .. \(count - 1)]"
        #else
        return "Index \(index) is out of range \(count) (in '\(method)')"
        #endif
    }

    /// A range past the end.
    static func range(_ range: CSRRangeValue, count: UInt, method: String, cls: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(method)]: range {\(range.location), \(range.length)} extends beyond bounds"
            + (count == 0 ? " for empty array" : " [0 .. \(count - 1)]")
        #else
        return "in \(method), range { \(range.location), \(range.length) } extends beyond size (\(count))"
        #endif
    }

    /// A nil object given to a constructor (`gnustep`: GNUstep's text; Apple names the slot).
    static func nilInInit(_ gnustep: String, cls: String, method: String, slot: Int, what: String = "object") -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(method)]: attempt to insert nil \(what) from \(what)s[\(slot)]"
        #else
        return gnustep
        #endif
    }

    /// A nil argument to a mutation (`gnustep`: GNUstep's text), as the rules in force word it.
    static func nilArgument(_ gnustep: String, cls: String, method: String, apple: String = "object cannot be nil") -> String {
        FoundationRules.isApple ? Self.apple(cls, method, apple) : gnustep
    }

    /// Apple's wording, `*** -[Class method]: text` (`+[...]` for a class method). Used alone by the guards that
    /// exist only under Apple's rules; their texts (see Docs/AppleRuntime.md) are unverified on a device.
    static func apple(_ cls: String, _ method: String, _ text: String, isClassMethod: Bool = false) -> String {
        "*** \(isClassMethod ? "+" : "-")[\(cls) \(method)]: \(text)"
    }

    /// Exception an ordered set raises for an index past the end: GNUstep fails an internal assertion
    /// (GSIArrayItemAtIndex) where Apple raises a range exception.
    static var orderedSetRange: String {
        #if canImport(Darwin)
        return range
        #else
        return "NSInternalInconsistencyException"
        #endif
    }

    /// An ordered-set index past the end, for `method`.
    static func orderedSetIndex(_ index: UInt, count: UInt, method: String, cls: String) -> String {
        #if canImport(Darwin)
        return count == 0
            ? "*** -[\(cls) \(method)]: index \(index) beyond bounds for empty ordered set"
            : "*** -[\(cls) \(method)]: index \(index) beyond bounds [0 .. \(count - 1)]"
        #else
        return "../Headers/GNUstepBase/GSIArray.h:529  Assertion failed in GSIArrayItemAtIndex.  NSInvalidArgumentException"
        #endif
    }

    /// A failure whose GNUstep text is fixed and whose Apple text names the method.
    static func plain(_ gnustep: String, cls: String, method: String, apple: String) -> String {
        #if canImport(Darwin)
        return "*** -[\(cls) \(method)]: \(apple)"
        #else
        return gnustep
        #endif
    }
}

/// A range as two words, printable.
typealias CSRRangeValue = (location: UInt, length: UInt)
