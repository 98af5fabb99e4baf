// CSSStringScenarios.m: NSString, NSMutableString and attributed-string calls that crash without CrashShield.
#import <Foundation/Foundation.h>
#include <stdint.h>
#include "CSSFamilies.h"

#if __has_feature(objc_arc)
#define CSS_STR_AUTORELEASE(x) (x)
#else
#define CSS_STR_AUTORELEASE(x) [(x) autorelease]
#endif

/// A string built at run time (GSCInlineString here, __NSCFString or a tagged pointer on iOS).
static NSString *hello(void) { return css_opaque([NSString stringWithUTF8String: "hello"]); }
/// A compile-time constant string (NSConstantString here, __NSCFConstantString on iOS).
static NSString *constantHello(void) { return css_opaque(@"hello"); }
static NSMutableString *mutableHello(void) { return css_opaque([NSMutableString stringWithString: @"hello"]); }
static NSAttributedString *attributedHello(void) {
    return css_opaque(CSS_STR_AUTORELEASE([[NSAttributedString alloc] initWithString: @"hello"]));
}
static NSMutableAttributedString *mutableAttributedHello(void) {
    return css_opaque(CSS_STR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello"]));
}
static const char *bracketed(NSString *string) { return string ? css_format("[%s]", [string UTF8String]) : "nil"; }
static const char *nullCString(void) { return (const char *)(uintptr_t)css_opaque_index(0); }

static const char *substringFromPastEnd(void) { return bracketed([hello() substringFromIndex: css_opaque_index(6)]); }
static const char *substringToPastEnd(void) { return bracketed([hello() substringToIndex: css_opaque_index(9)]); }
static const char *substringWithRangePastEnd(void) { return bracketed([hello() substringWithRange: NSMakeRange(4, 2)]); }
static const char *constantSubstringWithRangePastEnd(void) { return bracketed([constantHello() substringWithRange: NSMakeRange(3, 9)]); }
static const char *substringWithRangeNotFound(void) { return bracketed([hello() substringWithRange: NSMakeRange(NSNotFound, 0)]); }
static const char *mutableSubstringWithRangePastEnd(void) { return bracketed([mutableHello() substringWithRange: NSMakeRange(5, 1)]); }
static const char *characterPastEnd(void) { return css_format("%u", (unsigned)[hello() characterAtIndex: css_opaque_index(5)]); }
static const char *constantCharacterPastEnd(void) { return css_format("%u", (unsigned)[constantHello() characterAtIndex: css_opaque_index(5)]); }
static const char *mutableCharacterPastEnd(void) { return css_format("%u", (unsigned)[mutableHello() characterAtIndex: css_opaque_index(7)]); }
static const char *rangeOfNil(void) {
    NSRange range = [hello() rangeOfString: css_opaque(nil)];
    return css_format("{%lu, %lu}", (unsigned long)range.location, (unsigned long)range.length);
}
static const char *foundRange(NSRange range) {
    return range.location == NSNotFound ? css_format("{NSNotFound, %lu}", (unsigned long)range.length)
        : css_format("{%lu, %lu}", (unsigned long)range.location, (unsigned long)range.length);
}
static const char *rangeOfStringOptionsRangePastEnd(void) {
    return foundRange([hello() rangeOfString: @"l" options: NSCaseInsensitiveSearch range: NSMakeRange(3, css_opaque_index(9))]);
}
static const char *rangeOfStringOptionsRangeNil(void) {
    return foundRange([mutableHello() rangeOfString: css_opaque(nil) options: 0 range: NSMakeRange(0, 5)]);
}
static const char *rangeOfStringOptionsNil(void) { return foundRange([constantHello() rangeOfString: css_opaque(nil) options: NSBackwardsSearch]); }
static const char *rangeOfStringLocalePastEnd(void) {
    return foundRange([constantHello() rangeOfString: @"o" options: 0 range: NSMakeRange(css_opaque_index(6), 0) locale: nil]);
}
static const char *compareOptionsRangePastEnd(void) {
    return css_format("%ld", (long)[hello() compare: @"llo" options: 0 range: NSMakeRange(2, css_opaque_index(9))]);
}
static const char *compareOptionsRangeNumericPastEnd(void) {
    return css_format("%ld", (long)[mutableHello() compare: @"x2" options: NSNumericSearch range: NSMakeRange(css_opaque_index(7), 1)]);
}
static const char *compareLocalePastEnd(void) {
    return css_format("%ld", (long)[constantHello() compare: @"hello" options: 0 range: NSMakeRange(0, css_opaque_index(6)) locale: nil]);
}
#if !defined(__APPLE__)
/// GNUstep raises for a nil string (Apple documents the result as undefined).
static const char *compareNil(void) { return css_format("%ld", (long)[hello() compare: css_opaque(nil)]); }
static const char *constantCompareNil(void) { return css_format("%ld", (long)[constantHello() compare: css_opaque(nil)]); }
#endif
static const char *rangeOfCharacterPastEnd(void) {
    return foundRange([hello() rangeOfCharacterFromSet: [NSCharacterSet letterCharacterSet] options: 0 range: NSMakeRange(4, css_opaque_index(2))]);
}
static const char *rangeOfCharacterNilSet(void) { return foundRange([hello() rangeOfCharacterFromSet: css_opaque(nil)]); }
#if !defined(__APPLE__)
/// GNUstep: the constant string's own implementation calls NULL for the set's characterIsMember: (SIGSEGV).
static const char *constantRangeOfCharacterNilSet(void) {
    return foundRange([constantHello() rangeOfCharacterFromSet: css_opaque(nil) options: NSBackwardsSearch]);
}
#endif
static NSString *lines(void) { return css_opaque([NSString stringWithUTF8String: "one\ntwo"]); }
static const char *lineRangePastEnd(void) { return foundRange([lines() lineRangeForRange: NSMakeRange(5, css_opaque_index(4))]); }
static const char *paragraphRangePastEnd(void) { return foundRange([lines() paragraphRangeForRange: NSMakeRange(css_opaque_index(8), 0)]); }
static const char *getLineStartPastEnd(void) {
    NSUInteger start = 1, end = 2, contentsEnd = 3;
    [lines() getLineStart: &start end: &end contentsEnd: &contentsEnd forRange: NSMakeRange(css_opaque_index(9), 1)];
    return css_format("%s %s %s", start == NSNotFound ? "notFound" : "set", end == NSNotFound ? "notFound" : "set",
                      contentsEnd == NSNotFound ? "notFound" : "set");
}
static const char *hasPrefixNil(void) { return [hello() hasPrefix: css_opaque(nil)] ? "YES" : "NO"; }
static const char *hasSuffixNil(void) { return [constantHello() hasSuffix: css_opaque(nil)] ? "YES" : "NO"; }
static const char *stringWithStringNil(void) { return bracketed([NSString stringWithString: css_opaque(nil)]); }
static const char *mutableStringWithStringNil(void) {
    NSMutableString *m = [NSMutableString stringWithString: css_opaque(nil)];
    [m appendString: @"ok"];   // the empty string the caller gets is mutable, as asked
    return bracketed(m);
}
static const char *initWithStringNil(void) { return bracketed(CSS_STR_AUTORELEASE([[NSString alloc] initWithString: css_opaque(nil)])); }
static const char *mutableInitWithStringNil(void) { return bracketed(CSS_STR_AUTORELEASE([[NSMutableString alloc] initWithString: css_opaque(nil)])); }
/// A nil format: GNUstep raises "NULL format" from `initWithFormat:locale:arguments:` (Apple: "nil argument").
static const char *initWithFormatNil(void) { return bracketed(CSS_STR_AUTORELEASE([[NSString alloc] initWithFormat: css_opaque(nil)])); }
static const char *mutableStringWithFormatNil(void) { return bracketed([NSMutableString stringWithFormat: css_opaque(nil)]); }
#if !defined(__APPLE__)
/// GNUstep only: its `stringByAppendingFormat:` builds the appended part with `initWithFormat:locale:arguments:`.
static const char *stringByAppendingFormatNil(void) { return bracketed([hello() stringByAppendingFormat: css_opaque(nil)]); }
#endif
static const char *stringWithUTF8Null(void) { return bracketed([NSString stringWithUTF8String: nullCString()]); }
static const char *initWithUTF8Null(void) { return bracketed(CSS_STR_AUTORELEASE([[NSString alloc] initWithUTF8String: nullCString()])); }
static const char *mutableInitWithUTF8Null(void) { return bracketed(CSS_STR_AUTORELEASE([[NSMutableString alloc] initWithUTF8String: nullCString()])); }

static const char *insertPastEnd(void) { NSMutableString *m = mutableHello(); [m insertString: @"x" atIndex: css_opaque_index(6)]; return bracketed(m); }
static const char *deletePastEnd(void) { NSMutableString *m = mutableHello(); [m deleteCharactersInRange: NSMakeRange(3, 9)]; return bracketed(m); }
static const char *replacePastEnd(void) { NSMutableString *m = mutableHello(); [m replaceCharactersInRange: NSMakeRange(4, 2) withString: @"x"]; return bracketed(m); }
// The replacing family funnels into -[NSMutableString replaceOccurrencesOfString:withString:options:range:].
static const char *byReplacingOccurrencesNilTarget(void) {
    return bracketed([hello() stringByReplacingOccurrencesOfString: css_opaque(nil) withString: @"x"]);
}
static const char *byReplacingOccurrencesNilReplacement(void) {
    return bracketed([constantHello() stringByReplacingOccurrencesOfString: @"l" withString: css_opaque(nil)]);
}
static const char *byReplacingOccurrencesRangePastEnd(void) {
    return bracketed([hello() stringByReplacingOccurrencesOfString: @"l" withString: @"x" options: 0 range: NSMakeRange(2, css_opaque_index(4))]);
}
static const char *replaceOccurrencesNil(void) {
    NSMutableString *m = mutableHello();
    NSUInteger n = [m replaceOccurrencesOfString: css_opaque(nil) withString: @"x" options: 0 range: NSMakeRange(0, 5)];
    return css_format("%s %lu", bracketed(m), (unsigned long)n);
}
static const char *replaceOccurrencesPastEnd(void) {
    NSMutableString *m = mutableHello();
    NSUInteger n = [m replaceOccurrencesOfString: @"l" withString: @"x" options: NSBackwardsSearch range: NSMakeRange(css_opaque_index(1), 5)];
    return css_format("%s %lu", bracketed(m), (unsigned long)n);
}
#if !defined(__APPLE__)
static const char *replaceOccurrencesWrappingRange(void) {
    NSMutableString *m = mutableHello();
    NSUInteger n = [m replaceOccurrencesOfString: @"l" withString: @"x" options: 0 range: css_range(((NSUInteger)1 << 63) + css_opaque_index(2), (NSUInteger)1 << 63)];
    return css_format("%s %lu", bracketed(m), (unsigned long)n);
}
#endif
static const char *trackerDeletePastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [[a mutableString] deleteCharactersInRange: NSMakeRange(3, 9)];   // edits the attributed string through its string
    return bracketed([a string]);
}
static const char *trackerCharacterPastEnd(void) {
    return css_format("%u", (unsigned)[[mutableAttributedHello() mutableString] characterAtIndex: css_opaque_index(5)]);
}

static const char *attributedSubstringPastEnd(void) {
    return bracketed([[attributedHello() attributedSubstringFromRange: NSMakeRange(3, 9)] string]);
}
static const char *attributesPastEnd(void) {
    NSRange effective = NSMakeRange(1, 1);
    NSDictionary *attributes = [attributedHello() attributesAtIndex: css_opaque_index(9) effectiveRange: &effective];
    return css_format("%s count=%lu", effective.location == NSNotFound ? "notFound" : "set", (unsigned long)[attributes count]);
}
static const char *mutableAttributesPastEnd(void) {
    NSDictionary *attributes = [mutableAttributedHello() attributesAtIndex: css_opaque_index(6) effectiveRange: NULL];
    return css_format("count=%lu", (unsigned long)[attributes count]);
}
static const char *attributePastEnd(void) {
    return css_describe([attributedHello() attribute: @"color" atIndex: css_opaque_index(9) effectiveRange: NULL]);
}
static const char *attributedInitNil(void) {
    return bracketed([CSS_STR_AUTORELEASE([[NSAttributedString alloc] initWithString: css_opaque(nil)]) string]);
}
static const char *mutableAttributedInitNil(void) {
    return bracketed([CSS_STR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: css_opaque(nil)]) string]);
}
static const char *attributedReplacePastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a replaceCharactersInRange: NSMakeRange(3, 9) withString: @"x"];
    return bracketed([a string]);
}
static const char *attributedDeletePastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a deleteCharactersInRange: NSMakeRange(6, 0)];
    return bracketed([a string]);
}

/// The attributed string's text and how many attributes its first character has ("hello attributes=0").
static const char *textAndAttributes(NSAttributedString *a) {
    return css_format("%s attributes=%lu", [[a string] UTF8String],
                      (unsigned long)[[a attributesAtIndex: 0 effectiveRange: NULL] count]);
}
static const char *addAttributePastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a addAttribute: @"color" value: @"red" range: NSMakeRange(3, 9)];
    return textAndAttributes(a);
}
static const char *addAttributeNilValue(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a addAttribute: @"color" value: css_opaque(nil) range: NSMakeRange(0, 2)];
    return textAndAttributes(a);
}
static const char *addAttributesPastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a addAttributes: [NSDictionary dictionaryWithObject: @"red" forKey: @"color"] range: NSMakeRange(2, 9)];
    return textAndAttributes(a);
}
static const char *setAttributesPastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a setAttributes: [NSDictionary dictionaryWithObject: @"red" forKey: @"color"] range: NSMakeRange(4, 9)];
    return textAndAttributes(a);
}
#if !defined(__APPLE__)
/// GNUstep's check wraps: {3, 2^64 - 2} passes it, and the range then reaches setAttributes:range:, which raises.
static const char *addAttributesEndPast2e64(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    NSRange range;   // not NSMakeRange: GNUstep's raises for it
    range.location = css_opaque_index(3);
    range.length = NSUIntegerMax - 1;
    [a addAttributes: [NSDictionary dictionaryWithObject: @"red" forKey: @"color"] range: range];
    return textAndAttributes(a);
}
#endif
static const char *attributesLongestLimitPastEnd(void) {
    NSRange effective = NSMakeRange(1, 1);
    NSDictionary *attributes = [attributedHello() attributesAtIndex: 0 longestEffectiveRange: &effective
                                                            inRange: NSMakeRange(2, css_opaque_index(9))];
    return css_format("%s count=%lu", effective.location == NSNotFound ? "notFound" : "set", (unsigned long)[attributes count]);
}
static const char *attributeLongestLimitPastEnd(void) {
    NSRange effective = NSMakeRange(1, 1);
    id value = [mutableAttributedHello() attribute: @"color" atIndex: 0 longestEffectiveRange: &effective
                                           inRange: NSMakeRange(css_opaque_index(6), 0)];
    return css_format("%s %s", effective.location == NSNotFound ? "notFound" : "set", css_describe(value));
}
static const char *removeAttributePastEnd(void) {
    NSMutableAttributedString *a = mutableAttributedHello();
    [a removeAttribute: @"color" range: NSMakeRange(2, 9)];
    return textAndAttributes(a);
}

static const CSSScenario css_string_table[] = {
    { "string.substringFromIndex.pastEnd", "string", "substringFromIndex:", "NSRangeException", "[]", 1, substringFromPastEnd },
    { "string.substringToIndex.pastEnd", "string", "substringToIndex:", "NSRangeException", "[]", 1, substringToPastEnd },
    { "string.substringWithRange.pastEnd", "string", "substringWithRange:", "NSRangeException", "[]", 1, substringWithRangePastEnd },
    { "string.substringWithRange.constant", "string", "substringWithRange:", "NSRangeException", "[]", 1, constantSubstringWithRangePastEnd },
    { "string.substringWithRange.notFound", "string", "substringWithRange:", "NSRangeException", "[]", 1, substringWithRangeNotFound },
    { "mutableString.substringWithRange.pastEnd", "string", "substringWithRange:", "NSRangeException", "[]", 1, mutableSubstringWithRangePastEnd },
    { "string.characterAtIndex.pastEnd", "string", "characterAtIndex:", "NSRangeException", "0", 1, characterPastEnd },
#if defined(__APPLE__)
    { "string.characterAtIndex.constant", "string", "characterAtIndex:", "NSRangeException", "0", 1, constantCharacterPastEnd },
#else
    { "string.characterAtIndex.constant", "string", "characterAtIndex:", "NSInvalidArgumentException", "0", 1, constantCharacterPastEnd },
#endif
    { "mutableString.characterAtIndex.pastEnd", "string", "characterAtIndex:", "NSRangeException", "0", 1, mutableCharacterPastEnd },
    { "string.rangeOfString.nil", "string", "rangeOfString:options:range:locale:", "NSInvalidArgumentException", "{9223372036854775807, 0}", 1, rangeOfNil },
    { "string.rangeOfStringOptionsRange.pastEnd", "string", "rangeOfString:options:range:locale:", "NSRangeException", "{NSNotFound, 0}", 1, rangeOfStringOptionsRangePastEnd },
    { "mutableString.rangeOfStringOptionsRange.nil", "string", "rangeOfString:options:range:locale:", "NSInvalidArgumentException", "{NSNotFound, 0}", 1, rangeOfStringOptionsRangeNil },
    { "constantString.rangeOfStringOptions.nil", "string", "rangeOfString:options:range:locale:", "NSInvalidArgumentException", "{NSNotFound, 0}", 1, rangeOfStringOptionsNil },
    { "constantString.rangeOfStringOptionsRangeLocale.pastEnd", "string", "rangeOfString:options:range:locale:", "NSRangeException", "{NSNotFound, 0}", 1, rangeOfStringLocalePastEnd },
#if defined(__APPLE__)
    { "string.compareOptionsRange.pastEnd", "string", "compare:options:range:", "NSRangeException", "1", 1, compareOptionsRangePastEnd },
    { "mutableString.compareOptionsRange.numericPastEnd", "string", "compare:options:range:", "NSRangeException", "1", 1, compareOptionsRangeNumericPastEnd },
#else
    { "string.compareOptionsRange.pastEnd", "string", "compare:options:range:", "NSRangeException", "1", 1, compareOptionsRangePastEnd },
    { "mutableString.compareOptionsRange.numericPastEnd", "string", "compare:options:range:", "NSRangeException", "1", 1, compareOptionsRangeNumericPastEnd },
    { "string.compare.nil", "string", "compare:options:range:", "NSInvalidArgumentException", "1", 1, compareNil },
    { "constantString.compare.nil", "string", "compare:options:range:locale:", "NSInvalidArgumentException", "1", 1, constantCompareNil },
#endif
    { "constantString.compareOptionsRangeLocale.pastEnd", "string", "compare:options:range:locale:", "NSRangeException", "1", 1, compareLocalePastEnd },
    { "string.rangeOfCharacterFromSet.pastEnd", "string", "rangeOfCharacterFromSet:options:range:", "NSRangeException", "{NSNotFound, 0}", 1, rangeOfCharacterPastEnd },
    { "string.rangeOfCharacterFromSet.nilSet", "string", "rangeOfCharacterFromSet:options:range:", "NSInvalidArgumentException", "{NSNotFound, 0}", 1, rangeOfCharacterNilSet },
#if !defined(__APPLE__)
    { "constantString.rangeOfCharacterFromSet.nilSet", "string", "rangeOfCharacterFromSet:options:range:", "SIGSEGV", "{NSNotFound, 0}", 1, constantRangeOfCharacterNilSet },
#endif
    { "string.lineRangeForRange.pastEnd", "string", "getLineStart:end:contentsEnd:forRange:", "NSRangeException", "{NSNotFound, 0}", 1, lineRangePastEnd },
    { "string.paragraphRangeForRange.pastEnd", "string", "getParagraphStart:end:contentsEnd:forRange:", "NSRangeException", "{NSNotFound, 0}", 1, paragraphRangePastEnd },
    { "string.getLineStart.pastEnd", "string", "getLineStart:end:contentsEnd:forRange:", "NSRangeException", "notFound notFound notFound", 1, getLineStartPastEnd },
    { "string.hasPrefix.nil", "string", "hasPrefix:", "NSInvalidArgumentException", "NO", 1, hasPrefixNil },
    { "string.hasSuffix.nil", "string", "hasSuffix:", "NSInvalidArgumentException", "NO", 1, hasSuffixNil },
    { "string.stringWithString.nil", "string", "stringWithString:", "NSInvalidArgumentException", "[]", 1, stringWithStringNil },
    { "mutableString.stringWithString.nil", "string", "stringWithString:", "NSInvalidArgumentException", "[ok]", 1, mutableStringWithStringNil },
    { "string.initWithString.nil", "string", "initWithString:", "NSInvalidArgumentException", "[]", 1, initWithStringNil },
    { "mutableString.initWithString.nil", "string", "initWithString:", "NSInvalidArgumentException", "[]", 1, mutableInitWithStringNil },
    { "string.initWithFormat.nil", "string", "initWithFormat:locale:arguments:", "NSInvalidArgumentException", "[]", 1, initWithFormatNil },
    { "mutableString.stringWithFormat.nil", "string", "initWithFormat:locale:arguments:", "NSInvalidArgumentException", "[]", 1, mutableStringWithFormatNil },
#if !defined(__APPLE__)
    { "string.stringByAppendingFormat.nil", "string", "initWithFormat:locale:arguments:", "NSInvalidArgumentException", "[hello]", 1, stringByAppendingFormatNil },
#endif
    { "string.stringWithUTF8String.null", "string", "stringWithUTF8String:", "NSInvalidArgumentException", "[]", 1, stringWithUTF8Null },
    { "string.initWithUTF8String.null", "string", "initWithUTF8String:", "NSInvalidArgumentException", "[]", 1, initWithUTF8Null },
    { "mutableString.initWithUTF8String.null", "string", "initWithUTF8String:", "NSInvalidArgumentException", "[]", 1, mutableInitWithUTF8Null },
    { "mutableString.insertString.pastEnd", "string", "insertString:atIndex:", "NSRangeException", "[hello]", 1, insertPastEnd },
    { "mutableString.deleteCharactersInRange.pastEnd", "string", "deleteCharactersInRange:", "NSRangeException", "[hello]", 1, deletePastEnd },
    { "mutableString.replaceCharactersInRange.pastEnd", "string", "replaceCharactersInRange:withString:", "NSRangeException", "[hello]", 1, replacePastEnd },
    { "string.stringByReplacingOccurrences.nilTarget", "string", "replaceOccurrencesOfString:withString:options:range:", "NSInvalidArgumentException", "[hello]", 1, byReplacingOccurrencesNilTarget },
    { "constantString.stringByReplacingOccurrences.nilReplacement", "string", "replaceOccurrencesOfString:withString:options:range:", "NSInvalidArgumentException", "[hello]", 1, byReplacingOccurrencesNilReplacement },
#if defined(__APPLE__)
    { "string.stringByReplacingOccurrencesOptionsRange.pastEnd", "string", "replaceOccurrencesOfString:withString:options:range:", "NSRangeException", "[hello]", 1, byReplacingOccurrencesRangePastEnd },
    { "mutableString.replaceOccurrences.pastEnd", "string", "replaceOccurrencesOfString:withString:options:range:", "NSRangeException", "[hello] 0", 1, replaceOccurrencesPastEnd },
#else
    { "string.stringByReplacingOccurrencesOptionsRange.pastEnd", "string", "replaceOccurrencesOfString:withString:options:range:", "NSInvalidArgumentException", "[hello]", 1, byReplacingOccurrencesRangePastEnd },
    { "mutableString.replaceOccurrences.pastEnd", "string", "replaceOccurrencesOfString:withString:options:range:", "NSInvalidArgumentException", "[hello] 0", 1, replaceOccurrencesPastEnd },
#endif
#if !defined(__APPLE__)
    { "mutableString.replaceOccurrences.wrappingRange", "string", "replaceOccurrencesOfString:withString:options:range:", "SIGSEGV", "[hello] 0", 1, replaceOccurrencesWrappingRange },
#endif
    { "mutableString.replaceOccurrences.nil", "string", "replaceOccurrencesOfString:withString:options:range:", "NSInvalidArgumentException", "[hello] 0", 1, replaceOccurrencesNil },
    { "attributedMutableString.deleteCharactersInRange.pastEnd", "string", "deleteCharactersInRange:", "NSRangeException", "[hello]", 1, trackerDeletePastEnd },
    { "attributedMutableString.characterAtIndex.pastEnd", "string", "characterAtIndex:", "NSRangeException", "0", 1, trackerCharacterPastEnd },
    { "attributedString.attributedSubstringFromRange.pastEnd", "string", "attributedSubstringFromRange:", "NSRangeException", "[]", 1, attributedSubstringPastEnd },
    { "attributedString.attributesAtIndex.pastEnd", "string", "attributesAtIndex:effectiveRange:", "NSRangeException", "notFound count=0", 1, attributesPastEnd },
    { "mutableAttributedString.attributesAtIndex.pastEnd", "string", "attributesAtIndex:effectiveRange:", "NSRangeException", "count=0", 1, mutableAttributesPastEnd },
    { "attributedString.attributeAtIndex.pastEnd", "string", "attribute:atIndex:effectiveRange:", "NSRangeException", "nil", 1, attributePastEnd },
    { "attributedString.initWithString.nil", "string", "initWithString:", "NSInvalidArgumentException", "[]", 1, attributedInitNil },
    { "mutableAttributedString.initWithString.nil", "string", "initWithString:", "NSInvalidArgumentException", "[]", 1, mutableAttributedInitNil },
    { "mutableAttributedString.replaceCharactersInRange.pastEnd", "string", "replaceCharactersInRange:withString:", "NSRangeException", "[hello]", 1, attributedReplacePastEnd },
    { "mutableAttributedString.deleteCharactersInRange.pastEnd", "string", "deleteCharactersInRange:", "NSRangeException", "[hello]", 1, attributedDeletePastEnd },
    { "mutableAttributedString.addAttribute.pastEnd", "string", "addAttribute:value:range:", "NSRangeException", "hello attributes=0", 1, addAttributePastEnd },
    { "mutableAttributedString.addAttribute.nilValue", "string", "addAttribute:value:range:", "NSInvalidArgumentException", "hello attributes=0", 1, addAttributeNilValue },
    { "mutableAttributedString.addAttributes.pastEnd", "string", "addAttributes:range:", "NSRangeException", "hello attributes=0", 1, addAttributesPastEnd },
    { "mutableAttributedString.setAttributes.pastEnd", "string", "setAttributes:range:", "NSRangeException", "hello attributes=0", 1, setAttributesPastEnd },
    { "mutableAttributedString.removeAttribute.pastEnd", "string", "removeAttribute:range:", "NSRangeException", "hello attributes=0", 1, removeAttributePastEnd },
#if !defined(__APPLE__)
    { "mutableAttributedString.addAttributes.endPast2e64", "string", "addAttributes:range:", "NSRangeException", "hello attributes=0", 1, addAttributesEndPast2e64 },
    { "attributedString.attributesAtIndexLongestEffectiveRange.limitPastEnd", "string", "attributesAtIndex:longestEffectiveRange:inRange:", "NSRangeException", "notFound count=0", 1, attributesLongestLimitPastEnd },
    { "mutableAttributedString.attributeAtIndexLongestEffectiveRange.limitPastEnd", "string", "attribute:atIndex:longestEffectiveRange:inRange:", "NSRangeException", "notFound nil", 1, attributeLongestLimitPastEnd },
#endif
};

const CSSScenario *css_string_scenarios(int *count) {
    *count = (int)(sizeof css_string_table / sizeof css_string_table[0]);
    return css_string_table;
}

// MARK: Valid string calls (the differential test)

static void line(NSMutableString *log, const char *label, id value) {
    [log appendFormat: @"%s=%@\n", label, value ? [value description] : @"nil"];
}
static NSNumber *number(unsigned long value) { return [NSNumber numberWithUnsignedLong: value]; }

const char *css_valid_string_calls(void) {
    NSMutableString *log = [NSMutableString string];
    NSString *samples[4] = { hello(), constantHello(), mutableHello(), css_opaque([NSString stringWithUTF8String: "h\xc3\xa9llo"]) };
    for (int i = 0; i < 4; i++) {
        NSString *s = samples[i];
        [log appendFormat: @"-- sample %d\n", i];
        line(log, "substringFromIndex:length", [s substringFromIndex: 5]);                    // legal: empty
        line(log, "substringFromIndex:1", [s substringFromIndex: 1]);
        line(log, "substringToIndex:length", [s substringToIndex: 5]);
        line(log, "substringWithRange:{length,0}", [s substringWithRange: NSMakeRange(5, 0)]);  // legal at the end
        line(log, "substringWithRange:{1,3}", [s substringWithRange: NSMakeRange(1, 3)]);
        line(log, "characterAtIndex:last", number([s characterAtIndex: 4]));
        line(log, "rangeOfString:", NSStringFromRange([s rangeOfString: @"ll"]));
        line(log, "rangeOfString:empty", NSStringFromRange([s rangeOfString: @""]));
        line(log, "hasPrefix:", number([s hasPrefix: @"he"]));
        line(log, "hasSuffix:", number([s hasSuffix: @"lo"]));
        line(log, "stringByAppendingString:nil", [s stringByAppendingString: css_opaque(nil)]);   // legal on GNUstep
        // Searches and comparisons: every option, ranges up to the end ({length, 0} is legal), empty strings.
        NSCharacterSet *vowels = [NSCharacterSet characterSetWithCharactersInString: @"eo"];
        line(log, "rangeOfString:options:", NSStringFromRange([s rangeOfString: @"L" options: NSCaseInsensitiveSearch]));
        line(log, "rangeOfString:options:backwards", NSStringFromRange([s rangeOfString: @"l" options: NSBackwardsSearch]));
        line(log, "rangeOfString:options:range:", NSStringFromRange([s rangeOfString: @"l" options: 0 range: NSMakeRange(3, 2)]));
        line(log, "rangeOfString:options:range:anchored", NSStringFromRange([s rangeOfString: @"lo" options: NSAnchoredSearch | NSBackwardsSearch
                                                                                         range: NSMakeRange(0, 5)]));
        line(log, "rangeOfString:options:range:{length,0}", NSStringFromRange([s rangeOfString: @"" options: 0 range: NSMakeRange(5, 0)]));
        line(log, "rangeOfString:options:range:locale:", NSStringFromRange([s rangeOfString: @"h" options: NSLiteralSearch
                                                                                       range: NSMakeRange(0, 5) locale: nil]));
        line(log, "compare:", number((unsigned long)([s compare: @"hello"] + 1)));
        line(log, "compare:options:", number((unsigned long)([s compare: @"HELLO" options: NSCaseInsensitiveSearch] + 1)));
        line(log, "compare:options:range:", number((unsigned long)([s compare: @"ll" options: 0 range: NSMakeRange(2, 2)] + 1)));
        line(log, "compare:options:range:{length,0}", number((unsigned long)([s compare: @"" options: 0 range: NSMakeRange(5, 0)] + 1)));
        line(log, "compare:options:range:numeric", number((unsigned long)([s compare: @"llo" options: NSNumericSearch range: NSMakeRange(2, 3)] + 1)));
        line(log, "compare:options:range:locale:", number((unsigned long)([s compare: @"hello" options: 0 range: NSMakeRange(0, 5) locale: nil] + 1)));
        line(log, "rangeOfCharacterFromSet:", NSStringFromRange([s rangeOfCharacterFromSet: vowels]));
        line(log, "rangeOfCharacterFromSet:options:", NSStringFromRange([s rangeOfCharacterFromSet: vowels options: NSBackwardsSearch]));
        line(log, "rangeOfCharacterFromSet:options:range:", NSStringFromRange([s rangeOfCharacterFromSet: vowels options: 0 range: NSMakeRange(2, 3)]));
        line(log, "rangeOfCharacterFromSet:options:range:{length,0}", NSStringFromRange([s rangeOfCharacterFromSet: vowels options: 0
                                                                                                               range: NSMakeRange(5, 0)]));
#if !defined(__APPLE__)
        // Legal on GNUstep for the implementations that do not check the set (NSString's, the constant string's):
        // an empty range reads no character.
        if (i == 1) {
            line(log, "rangeOfCharacterFromSet:nil options:range:{1,0}", NSStringFromRange([s rangeOfCharacterFromSet: css_opaque(nil) options: 0
                                                                                                              range: NSMakeRange(1, 0)]));
        }
#endif
        line(log, "lineRangeForRange:{length,0}", NSStringFromRange([s lineRangeForRange: NSMakeRange(5, 0)]));
        line(log, "paragraphRangeForRange:", NSStringFromRange([s paragraphRangeForRange: NSMakeRange(1, 4)]));
    }
    NSString *text = css_opaque([NSString stringWithUTF8String: "one\r\ntwo\nthree\xe2\x80\xa8" "four"]);   // CRLF, LF, U+2028
    for (NSUInteger location = 0; location <= [text length]; location += 3) {
        NSUInteger start = 0, end = 0, contentsEnd = 0;
        [log appendFormat: @"line %lu=%@ paragraph=%@", (unsigned long)location, NSStringFromRange([text lineRangeForRange: NSMakeRange(location, 0)]),
                          NSStringFromRange([text paragraphRangeForRange: NSMakeRange(location, 0)])];
        [text getLineStart: &start end: &end contentsEnd: &contentsEnd forRange: NSMakeRange(location, [text length] - location)];
        [log appendFormat: @" bounds=%lu,%lu,%lu", (unsigned long)start, (unsigned long)end, (unsigned long)contentsEnd];
        [text getParagraphStart: &start end: NULL contentsEnd: NULL forRange: NSMakeRange(location, 0)];
        [log appendFormat: @" paragraphStart=%lu\n", (unsigned long)start];
    }
    line(log, "stringWithString:", [NSString stringWithString: @"copy"]);
    line(log, "initWithString:", CSS_STR_AUTORELEASE([[NSString alloc] initWithString: @"init"]));
    line(log, "mutable initWithString:", CSS_STR_AUTORELEASE([[NSMutableString alloc] initWithString: @"minit"]));
    line(log, "stringWithUTF8String:", [NSString stringWithUTF8String: "utf8"]);
    line(log, "initWithUTF8String:invalid", CSS_STR_AUTORELEASE([[NSString alloc] initWithUTF8String: "\xff\xfe"]));   // nil, legal
    NSMutableString *m = mutableHello();
    [m insertString: @"<" atIndex: 0];
    [m insertString: @">" atIndex: [m length]];                       // legal: appends
    [m deleteCharactersInRange: NSMakeRange([m length], 0)];          // legal: empty range at the end
    [m deleteCharactersInRange: NSMakeRange(1, 1)];
    [m replaceCharactersInRange: NSMakeRange(0, 1) withString: @"["];
    [m replaceCharactersInRange: NSMakeRange([m length], 0) withString: @"]"];
#if !defined(__APPLE__)
    // Legal on GNUstep (Apple raises for these): nil strings that GNUstep ignores or treats as empty.
    [m appendString: css_opaque(nil)];
    [m insertString: css_opaque(nil) atIndex: 0];
    [m replaceCharactersInRange: NSMakeRange(1, 1) withString: css_opaque(nil)];   // deletes
#endif
    line(log, "mutableString.mutations", m);
    NSMutableAttributedString *a = mutableAttributedHello();
    line(log, "attributedSubstringFromRange:{length,0}", [[a attributedSubstringFromRange: NSMakeRange(5, 0)] string]);
    line(log, "attributedSubstringFromRange:{1,2}", [[a attributedSubstringFromRange: NSMakeRange(1, 2)] string]);
    NSRange effective = NSMakeRange(0, 0);
    line(log, "attributesAtIndex:", number([[a attributesAtIndex: 4 effectiveRange: &effective] count]));
    line(log, "effectiveRange", NSStringFromRange(effective));
#if !defined(__APPLE__)
    line(log, "attributesAtIndex:length", number([[a attributesAtIndex: 5 effectiveRange: NULL] count]));   // legal on GNUstep
    line(log, "attribute:atIndex:length", [a attribute: @"k" atIndex: 5 effectiveRange: NULL]);
#endif
    [a addAttribute: @"k" value: @"v" range: NSMakeRange(1, 2)];
    line(log, "attribute:atIndex:", [a attribute: @"k" atIndex: 1 effectiveRange: NULL]);
    NSDictionary *more = [NSDictionary dictionaryWithObject: @"w" forKey: @"j"];
    [a addAttributes: more range: NSMakeRange(0, 5)];
    [a addAttribute: @"k" value: @"end" range: NSMakeRange(5, 0)];          // legal: an empty range at the end
    [a setAttributes: more range: NSMakeRange(3, 2)];
    [a removeAttribute: @"j" range: NSMakeRange(4, 1)];
    [a removeAttribute: @"j" range: NSMakeRange(5, 0)];                       // legal
    line(log, "attributes after mutations", number([[a attributesAtIndex: 1 effectiveRange: NULL] count]));
    line(log, "attributes at 3", number([[a attributesAtIndex: 3 effectiveRange: NULL] count]));
    line(log, "attributes at 4", number([[a attributesAtIndex: 4 effectiveRange: NULL] count]));
    [a replaceCharactersInRange: NSMakeRange(5, 0) withString: @"!"];
    [a deleteCharactersInRange: NSMakeRange(0, 1)];
    [[a mutableString] insertString: @"<" atIndex: 0];
    [[a mutableString] deleteCharactersInRange: NSMakeRange([a length], 0)];
    line(log, "mutableAttributedString.mutations", [a string]);
    line(log, "tracker characterAtIndex:", number([[a mutableString] characterAtIndex: 0]));
    return [log UTF8String];
}

// MARK: Differential probes: index and range edges (length, length + 1, 2^32 and above, NSNotFound), nil arguments

static id freshHello(void) { return [NSString stringWithUTF8String: "hello"]; }
static id freshConstantHello(void) { return @"hello"; }
static id freshMutableHello(void) { return [NSMutableString stringWithUTF8String: "hello"]; }
static id freshAttributedHello(void) { return CSS_STR_AUTORELEASE([[NSAttributedString alloc] initWithString: @"hello"]); }
/// "hello" with k=v on {1, 2}: three runs.
static id freshRunsHello(void) {
    NSMutableAttributedString *a = CSS_STR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello"]);
    [a addAttribute: @"k" value: @"v" range: NSMakeRange(1, 2)];
    return a;
}
static NSDictionary *yx(void) { return [NSDictionary dictionaryWithObject: @"x" forKey: @"y"]; }
static NSString *rangeText(NSRange range) { return [NSString stringWithFormat: @"{%lu,%lu}", (unsigned long)range.location, (unsigned long)range.length]; }

static id pSubstringFrom(id s, NSUInteger i) { return [s substringFromIndex: i]; }
static id pSubstringTo(id s, NSUInteger i) { return [s substringToIndex: i]; }
static id pSubstringEmpty(id s, NSUInteger i) { return [s substringWithRange: NSMakeRange(i, 0)]; }
static id pSubstringOne(id s, NSUInteger i) { return [s substringWithRange: NSMakeRange(i, 1)]; }
static id pSubstringTo0(id s, NSUInteger i) { return [s substringWithRange: NSMakeRange(0, i)]; }
static id pCharacter(id s, NSUInteger i) { return [NSNumber numberWithUnsignedInt: [s characterAtIndex: i]]; }
static id pInsertString(id m, NSUInteger i) { [m insertString: @"X" atIndex: i]; return nil; }
static id pDeleteOne(id m, NSUInteger i) { [m deleteCharactersInRange: NSMakeRange(i, 1)]; return nil; }
static id pDeleteEmpty(id m, NSUInteger i) { [m deleteCharactersInRange: NSMakeRange(i, 0)]; return nil; }
static id pReplaceEmpty(id m, NSUInteger i) { [m replaceCharactersInRange: NSMakeRange(i, 0) withString: @"X"]; return nil; }
static id pReplaceTo(id m, NSUInteger i) { [m replaceCharactersInRange: NSMakeRange(0, i) withString: @"X"]; return nil; }
/// The replacing family: range edges and nil arguments (an end past 2^64 crashes GNUstep's search: skipped here,
/// mutableString.replaceOccurrences.wrappingRange in the matrix) (Foundation's legal nil forms included:
/// GNUstep's replaceCharactersInRange:withString:nil deletes, setString:nil empties, insertString:nil inserts nothing).
static id rReplaceOccurrences(id m, NSRange r) {
    if (r.location + r.length < r.location) return css_probe_skipped();   // GNUstep crashes (SIGSEGV): the matrix's
    return [NSNumber numberWithUnsignedLong: [m replaceOccurrencesOfString: @"l" withString: @"LL" options: 0 range: r]];
}
static id rReplaceOccurrencesNilTarget(id m, NSRange r) {
    if (r.location + r.length < r.location) return css_probe_skipped();   // GNUstep crashes (SIGSEGV): the matrix's
    return [NSNumber numberWithUnsignedLong: [m replaceOccurrencesOfString: nil withString: @"x" options: 0 range: r]];
}
static id rReplaceOccurrencesNilReplacement(id m, NSRange r) {
    if (r.location + r.length < r.location) return css_probe_skipped();   // GNUstep crashes (SIGSEGV): the matrix's
    return [NSNumber numberWithUnsignedLong: [m replaceOccurrencesOfString: @"l" withString: nil options: NSBackwardsSearch range: r]];
}
static id rByReplacingOccurrences(id s, NSRange r) {
    if (r.location + r.length < r.location) return css_probe_skipped();   // GNUstep crashes (SIGSEGV): the matrix's
    return [s stringByReplacingOccurrencesOfString: @"l" withString: @"" options: NSCaseInsensitiveSearch range: r];
}
static id rByReplacingCharactersNil(id s, NSRange r) { return [s stringByReplacingCharactersInRange: r withString: nil]; }
static id rReplaceNil(id m, NSRange r) { [m replaceCharactersInRange: r withString: nil]; return nil; }
static id pByReplacingOccurrencesNil(id s, NSUInteger i) {
    return [s stringByReplacingOccurrencesOfString: (i % 2 ? nil : @"l") withString: (i % 2 ? @"x" : nil)];
}
static id pSetStringNil(id m, NSUInteger i) { (void)i; [m setString: nil]; return nil; }
static id pInsertStringNil(id m, NSUInteger i) { [m insertString: nil atIndex: i]; return nil; }
static id pAttributes(id a, NSUInteger i) {
    NSRange effective = NSMakeRange(77, 77);
    NSDictionary *attributes = [a attributesAtIndex: i effectiveRange: &effective];
    return [NSString stringWithFormat: @"%s %@", css_dictionary_contents(attributes), rangeText(effective)];
}
static id pAttribute(id a, NSUInteger i) {
    NSRange effective = NSMakeRange(77, 77);
    id value = [a attribute: @"k" atIndex: i effectiveRange: &effective];
    return [NSString stringWithFormat: @"%@ %@", value, rangeText(effective)];
}
static id pAttributedSubstringEmpty(id a, NSUInteger i) { return [a attributedSubstringFromRange: NSMakeRange(i, 0)]; }
static id pAttributedSubstringTo(id a, NSUInteger i) { return [a attributedSubstringFromRange: NSMakeRange(0, i)]; }
static id pAddAttributeEmpty(id a, NSUInteger i) { [a addAttribute: @"k" value: @"w" range: NSMakeRange(i, 0)]; return nil; }
static id pAddAttributeOne(id a, NSUInteger i) { [a addAttribute: @"k" value: @"w" range: NSMakeRange(i, 1)]; return nil; }
static id pAddAttributeTo(id a, NSUInteger i) { [a addAttribute: @"k" value: @"w" range: NSMakeRange(0, i)]; return nil; }
static id pAddAttributeNilValueEmpty(id a, NSUInteger i) { [a addAttribute: @"k" value: css_opaque(nil) range: NSMakeRange(i, 0)]; return nil; }
static id pAddAttributeNilValueTo(id a, NSUInteger i) { [a addAttribute: @"k" value: css_opaque(nil) range: NSMakeRange(0, i)]; return nil; }
static id pAddAttributeNilNameEmpty(id a, NSUInteger i) { [a addAttribute: css_opaque(nil) value: @"w" range: NSMakeRange(i, 0)]; return nil; }
static id pAddAttributeNilNameTo(id a, NSUInteger i) { [a addAttribute: css_opaque(nil) value: @"w" range: NSMakeRange(0, i)]; return nil; }
static id pAddAttributesEmpty(id a, NSUInteger i) { [a addAttributes: yx() range: NSMakeRange(i, 0)]; return nil; }
static id pAddAttributesOne(id a, NSUInteger i) { [a addAttributes: yx() range: NSMakeRange(i, 1)]; return nil; }
static id pAddAttributesNil(id a, NSUInteger i) { [a addAttributes: css_opaque(nil) range: NSMakeRange(0, i)]; return nil; }
static id pSetAttributesEmpty(id a, NSUInteger i) { [a setAttributes: yx() range: NSMakeRange(i, 0)]; return nil; }
static id pSetAttributesOne(id a, NSUInteger i) { [a setAttributes: yx() range: NSMakeRange(i, 1)]; return nil; }
static id pSetAttributesNil(id a, NSUInteger i) { [a setAttributes: css_opaque(nil) range: NSMakeRange(0, i)]; return nil; }
static id pRemoveAttributeEmpty(id a, NSUInteger i) { [a removeAttribute: @"k" range: NSMakeRange(i, 0)]; return nil; }
static id pRemoveAttributeOne(id a, NSUInteger i) { [a removeAttribute: @"k" range: NSMakeRange(i, 1)]; return nil; }

// Searches and comparisons at every range edge; nil arguments.
static NSNumber *ordering(NSComparisonResult result) { return [NSNumber numberWithLong: (long)result]; }
static id rRangeOfString(id s, NSRange r) { return rangeText([s rangeOfString: @"l" options: 0 range: r]); }
static id rRangeOfNilString(id s, NSRange r) { return rangeText([s rangeOfString: css_opaque(nil) options: 0 range: r]); }
static id rRangeOfStringLocale(id s, NSRange r) { return rangeText([s rangeOfString: @"lo" options: NSBackwardsSearch range: r locale: nil]); }
static id rCompare(id s, NSRange r) { return ordering([s compare: @"ell" options: 0 range: r]); }
static id rCompareNil(id s, NSRange r) { return ordering([s compare: css_opaque(nil) options: 0 range: r]); }
static id rCompareNumeric(id s, NSRange r) { return ordering([s compare: @"ell" options: NSNumericSearch range: r]); }
static id rCompareNumericNil(id s, NSRange r) { return ordering([s compare: css_opaque(nil) options: NSNumericSearch range: r]); }
static id rCompareLocale(id s, NSRange r) { return ordering([s compare: @"ell" options: NSCaseInsensitiveSearch range: r locale: nil]); }
static id rRangeOfCharacter(id s, NSRange r) {
    return rangeText([s rangeOfCharacterFromSet: [NSCharacterSet characterSetWithCharactersInString: @"lo"] options: NSBackwardsSearch range: r]);
}
/// NSString's own implementation and the constant string's call NULL (SIGSEGV) for a nil set and a non-empty range
/// (`constantString.rangeOfCharacterFromSet.nilSet`): not made here on those.
static id rRangeOfNilCharacterSet(id s, NSRange r) {
    if ([s isKindOfClass: [@"" class]] && r.length > 0 && r.location <= [s length] && r.length <= [s length] - r.location) {
        return css_probe_skipped();
    }
    return rangeText([s rangeOfCharacterFromSet: css_opaque(nil) options: 0 range: r]);
}
static id rLineRange(id s, NSRange r) { return rangeText([s lineRangeForRange: r]); }
static id rParagraphRange(id s, NSRange r) { return rangeText([s paragraphRangeForRange: r]); }
static id rLineBounds(id s, NSRange r) {
    NSUInteger start = 77, end = 77, contentsEnd = 77;
    [s getLineStart: &start end: &end contentsEnd: &contentsEnd forRange: r];
    return [NSString stringWithFormat: @"%lu %lu %lu", (unsigned long)start, (unsigned long)end, (unsigned long)contentsEnd];
}
static id rParagraphBounds(id s, NSRange r) {
    NSUInteger start = 77, end = 77;
    [s getParagraphStart: &start end: &end contentsEnd: NULL forRange: r];
    return [NSString stringWithFormat: @"%lu %lu", (unsigned long)start, (unsigned long)end];
}
/// A range probe's three index forms: {i, 0}, {i, 1}, {0, i}.
#define CSS_EDGE_PROBE_CALLS(call)                                                          \
    static id call##Empty(id s, NSUInteger i) { return call(s, NSMakeRange(i, 0)); }        \
    static id call##One(id s, NSUInteger i) { return call(s, NSMakeRange(i, 1)); }          \
    static id call##To(id s, NSUInteger i) { return call(s, NSMakeRange(0, i)); }
#define CSS_EDGE_PROBES(name, size, receiver, call)                                         \
    { name "{i,0}", size, receiver, call##Empty },                                          \
    { name "{i,1}", size, receiver, call##One },                                            \
    { name "{0,i}", size, receiver, call##To }
#define CSS_SEARCH_PROBE_CALLS(call) CSS_EDGE_PROBE_CALLS(call) CSS_OVERFLOW_PROBE_CALLS(call)
#define CSS_SEARCH_PROBES(name, size, receiver, call) CSS_EDGE_PROBES(name, size, receiver, call), CSS_OVERFLOW_PROBES(name, size, receiver, call)
static id freshLines(void) { return [NSString stringWithUTF8String: "ab\r\ncd"]; }
CSS_SEARCH_PROBE_CALLS(rReplaceOccurrences)
CSS_SEARCH_PROBE_CALLS(rReplaceOccurrencesNilTarget)
CSS_SEARCH_PROBE_CALLS(rReplaceOccurrencesNilReplacement)
CSS_SEARCH_PROBE_CALLS(rByReplacingOccurrences)
CSS_EDGE_PROBE_CALLS(rByReplacingCharactersNil)
CSS_EDGE_PROBE_CALLS(rReplaceNil)
CSS_SEARCH_PROBE_CALLS(rRangeOfString)
CSS_SEARCH_PROBE_CALLS(rRangeOfNilString)
CSS_SEARCH_PROBE_CALLS(rRangeOfStringLocale)
CSS_SEARCH_PROBE_CALLS(rCompare)
CSS_SEARCH_PROBE_CALLS(rCompareNil)
CSS_SEARCH_PROBE_CALLS(rCompareNumeric)
CSS_SEARCH_PROBE_CALLS(rCompareNumericNil)
CSS_SEARCH_PROBE_CALLS(rCompareLocale)
CSS_SEARCH_PROBE_CALLS(rRangeOfCharacter)
CSS_SEARCH_PROBE_CALLS(rRangeOfNilCharacterSet)
CSS_SEARCH_PROBE_CALLS(rLineRange)
CSS_SEARCH_PROBE_CALLS(rParagraphRange)
CSS_SEARCH_PROBE_CALLS(rLineBounds)
CSS_SEARCH_PROBE_CALLS(rParagraphBounds)

// Ranges whose end passes 2^64 (CSS_OVERFLOW_PROBES).
static id freshPlainMutableAttributed(void) { return CSS_STR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello"]); }
static id rSubstring(id s, NSRange r) { return [s substringWithRange: r]; }
static id rReplace(id m, NSRange r) { [m replaceCharactersInRange: r withString: @"X"]; return nil; }
static id rDelete(id m, NSRange r) { [m deleteCharactersInRange: r]; return nil; }
static id rAttributedSubstring(id a, NSRange r) { return [a attributedSubstringFromRange: r]; }
static id rReplaceAttributed(id a, NSRange r) {
    [a replaceCharactersInRange: r withAttributedString: CSS_STR_AUTORELEASE([[NSAttributedString alloc] initWithString: @"X"])];
    return nil;
}
static id rAddAttribute(id a, NSRange r) { [a addAttribute: @"k" value: @"w" range: r]; return nil; }
/// GNUstep loops for ever (with or without CrashShield) on a range whose end wraps past 2^64 to a point after the
/// start of the run at its location (the location's low 32 bits) while the location itself lies past that run:
/// not made here.
static id rAddAttributes(id a, NSRange r) {
    NSUInteger end = r.location + r.length;
    if (end < r.location && (uint32_t)r.location <= [a length]) {
        NSRange run;
        [a attributesAtIndex: r.location effectiveRange: &run];
        if (run.location < end && r.location > run.location + run.length) return css_probe_skipped();
    }
    [a addAttributes: yx() range: r];
    return nil;
}
static id rSetAttributes(id a, NSRange r) { [a setAttributes: yx() range: r]; return nil; }
static id rRemoveAttribute(id a, NSRange r) { [a removeAttribute: @"k" range: r]; return nil; }
static id rAttributesLongest(id a, NSRange r) {
    NSRange effective = NSMakeRange(77, 77);
    NSDictionary *attributes = [a attributesAtIndex: 1 longestEffectiveRange: &effective inRange: r];
    return [NSString stringWithFormat: @"%s %@", css_dictionary_contents(attributes), rangeText(effective)];
}
static id rAttributeLongest(id a, NSRange r) {
    NSRange effective = NSMakeRange(77, 77);
    id value = [a attribute: @"k" atIndex: 1 longestEffectiveRange: &effective inRange: r];
    return [NSString stringWithFormat: @"%@ %@", value, rangeText(effective)];
}
CSS_OVERFLOW_PROBE_CALLS(rSubstring)
CSS_OVERFLOW_PROBE_CALLS(rReplace)
CSS_OVERFLOW_PROBE_CALLS(rDelete)
CSS_OVERFLOW_PROBE_CALLS(rAttributedSubstring)
CSS_OVERFLOW_PROBE_CALLS(rReplaceAttributed)
CSS_OVERFLOW_PROBE_CALLS(rAddAttribute)
CSS_OVERFLOW_PROBE_CALLS(rAddAttributes)
CSS_OVERFLOW_PROBE_CALLS(rSetAttributes)
CSS_OVERFLOW_PROBE_CALLS(rRemoveAttribute)
CSS_OVERFLOW_PROBE_CALLS(rAttributesLongest)
CSS_OVERFLOW_PROBE_CALLS(rAttributeLongest)

static const CSSProbe css_string_probe_table[] = {
    { "string.substringFromIndex:", 5, freshHello, pSubstringFrom },
    { "string.substringToIndex:", 5, freshHello, pSubstringTo },
    { "string.substringWithRange:{i,0}", 5, freshHello, pSubstringEmpty },
    { "string.substringWithRange:{i,1}", 5, freshHello, pSubstringOne },
    { "string.substringWithRange:{0,i}", 5, freshHello, pSubstringTo0 },
    { "string.characterAtIndex:", 5, freshHello, pCharacter },
    { "constantString.substringFromIndex:", 5, freshConstantHello, pSubstringFrom },
    { "constantString.substringWithRange:{i,1}", 5, freshConstantHello, pSubstringOne },
    { "constantString.characterAtIndex:", 5, freshConstantHello, pCharacter },
    { "mutableString.characterAtIndex:", 5, freshMutableHello, pCharacter },
    { "mutableString.substringWithRange:{i,1}", 5, freshMutableHello, pSubstringOne },
    { "mutableString.insertString:atIndex:", 5, freshMutableHello, pInsertString },
    { "mutableString.deleteCharactersInRange:{i,1}", 5, freshMutableHello, pDeleteOne },
    { "mutableString.deleteCharactersInRange:{i,0}", 5, freshMutableHello, pDeleteEmpty },
    { "mutableString.replaceCharactersInRange:{i,0}withString:", 5, freshMutableHello, pReplaceEmpty },
    { "mutableString.replaceCharactersInRange:{0,i}withString:", 5, freshMutableHello, pReplaceTo },
    { "attributedString.attributesAtIndex:effectiveRange:", 5, freshAttributedHello, pAttributes },
    { "attributedString.attribute:atIndex:effectiveRange:", 5, freshAttributedHello, pAttribute },
    { "attributedString.attributedSubstringFromRange:{i,0}", 5, freshAttributedHello, pAttributedSubstringEmpty },
    { "attributedString.attributedSubstringFromRange:{0,i}", 5, freshAttributedHello, pAttributedSubstringTo },
    { "mutableAttributedString.attributesAtIndex:effectiveRange:", 5, freshRunsHello, pAttributes },
    { "mutableAttributedString.attribute:atIndex:effectiveRange:", 5, freshRunsHello, pAttribute },
    { "mutableAttributedString.attributedSubstringFromRange:{0,i}", 5, freshRunsHello, pAttributedSubstringTo },
    { "mutableAttributedString.addAttribute:value:range:{i,0}", 5, freshRunsHello, pAddAttributeEmpty },
    { "mutableAttributedString.addAttribute:value:range:{i,1}", 5, freshRunsHello, pAddAttributeOne },
    { "mutableAttributedString.addAttribute:value:range:{0,i}", 5, freshRunsHello, pAddAttributeTo },
    { "mutableAttributedString.addAttribute:value:nil range:{i,0}", 5, freshRunsHello, pAddAttributeNilValueEmpty },
    { "mutableAttributedString.addAttribute:value:nil range:{0,i}", 5, freshRunsHello, pAddAttributeNilValueTo },
    { "mutableAttributedString.addAttribute:nil value:range:{i,0}", 5, freshRunsHello, pAddAttributeNilNameEmpty },
    { "mutableAttributedString.addAttribute:nil value:range:{0,i}", 5, freshRunsHello, pAddAttributeNilNameTo },
    { "mutableAttributedString.addAttributes:range:{i,0}", 5, freshRunsHello, pAddAttributesEmpty },
    { "mutableAttributedString.addAttributes:range:{i,1}", 5, freshRunsHello, pAddAttributesOne },
    { "mutableAttributedString.addAttributes:nil range:{0,i}", 5, freshRunsHello, pAddAttributesNil },
    { "mutableAttributedString.setAttributes:range:{i,0}", 5, freshRunsHello, pSetAttributesEmpty },
    { "mutableAttributedString.setAttributes:range:{i,1}", 5, freshRunsHello, pSetAttributesOne },
    { "mutableAttributedString.setAttributes:nil range:{0,i}", 5, freshRunsHello, pSetAttributesNil },
    { "mutableAttributedString.removeAttribute:range:{i,0}", 5, freshRunsHello, pRemoveAttributeEmpty },
    { "mutableAttributedString.removeAttribute:range:{i,1}", 5, freshRunsHello, pRemoveAttributeOne },
    { "mutableAttributedString.replaceCharactersInRange:{i,0}withString:", 5, freshRunsHello, pReplaceEmpty },
    { "mutableAttributedString.deleteCharactersInRange:{i,1}", 5, freshRunsHello, pDeleteOne },
    // Searches and comparisons: range edges and ends past 2^64, nil arguments, on each kind of implementation.
    CSS_SEARCH_PROBES("string.rangeOfString:options:range:", 5, freshHello, rRangeOfString),
    CSS_SEARCH_PROBES("mutableString.rangeOfString:options:range:", 5, freshMutableHello, rRangeOfString),
    CSS_SEARCH_PROBES("string.rangeOfString:nil options:range:", 5, freshHello, rRangeOfNilString),
    CSS_SEARCH_PROBES("constantString.rangeOfString:options:range:locale:", 5, freshConstantHello, rRangeOfStringLocale),
    CSS_SEARCH_PROBES("string.compare:options:range:", 5, freshHello, rCompare),
    CSS_SEARCH_PROBES("constantString.compare:options:range:", 5, freshConstantHello, rCompare),
    CSS_SEARCH_PROBES("mutableString.compare:options:range:", 5, freshMutableHello, rCompare),
    CSS_SEARCH_PROBES("string.compare:nil options:range:", 5, freshHello, rCompareNil),
    CSS_SEARCH_PROBES("constantString.compare:nil options:range:", 5, freshConstantHello, rCompareNil),
    CSS_SEARCH_PROBES("mutableString.compare:options:range:(numeric)", 5, freshMutableHello, rCompareNumeric),
    CSS_SEARCH_PROBES("string.compare:nil options:range:(numeric)", 5, freshHello, rCompareNumericNil),
    CSS_SEARCH_PROBES("string.compare:options:range:locale:", 5, freshHello, rCompareLocale),
    CSS_SEARCH_PROBES("string.rangeOfCharacterFromSet:options:range:", 5, freshHello, rRangeOfCharacter),
    CSS_SEARCH_PROBES("constantString.rangeOfCharacterFromSet:options:range:", 5, freshConstantHello, rRangeOfCharacter),
    CSS_SEARCH_PROBES("mutableString.rangeOfCharacterFromSet:options:range:", 5, freshMutableHello, rRangeOfCharacter),
    CSS_SEARCH_PROBES("string.rangeOfCharacterFromSet:nil options:range:", 5, freshHello, rRangeOfNilCharacterSet),
    CSS_SEARCH_PROBES("constantString.rangeOfCharacterFromSet:nil options:range:", 5, freshConstantHello, rRangeOfNilCharacterSet),
    CSS_SEARCH_PROBES("string.lineRangeForRange:", 6, freshLines, rLineRange),
    CSS_SEARCH_PROBES("string.paragraphRangeForRange:", 6, freshLines, rParagraphRange),
    CSS_SEARCH_PROBES("string.getLineStart:end:contentsEnd:forRange:", 6, freshLines, rLineBounds),
    CSS_SEARCH_PROBES("constantString.getParagraphStart:end:contentsEnd:forRange:", 5, freshConstantHello, rParagraphBounds),
    // Ranges whose end passes 2^64.
    CSS_OVERFLOW_PROBES("string.substringWithRange:", 5, freshHello, rSubstring),
    CSS_OVERFLOW_PROBES("constantString.substringWithRange:", 5, freshConstantHello, rSubstring),
    CSS_OVERFLOW_PROBES("mutableString.substringWithRange:", 5, freshMutableHello, rSubstring),
    CSS_SEARCH_PROBES("mutableString.replaceOccurrencesOfString:withString:options:range:", 5, freshMutableHello, rReplaceOccurrences),
    CSS_SEARCH_PROBES("mutableString.replaceOccurrencesOfString:nil withString:options:range:", 5, freshMutableHello, rReplaceOccurrencesNilTarget),
    CSS_SEARCH_PROBES("mutableString.replaceOccurrencesOfString:withString:nil options:range:", 5, freshMutableHello, rReplaceOccurrencesNilReplacement),
    CSS_SEARCH_PROBES("string.stringByReplacingOccurrencesOfString:withString:options:range:", 5, freshHello, rByReplacingOccurrences),
    CSS_SEARCH_PROBES("constantString.stringByReplacingOccurrencesOfString:withString:options:range:", 5, freshConstantHello, rByReplacingOccurrences),
    { "string.stringByReplacingOccurrencesOfString:(nil|l) withString:(x|nil)", 5, freshHello, pByReplacingOccurrencesNil },
    CSS_EDGE_PROBES("string.stringByReplacingCharactersInRange:withString:nil", 5, freshHello, rByReplacingCharactersNil),
    CSS_EDGE_PROBES("mutableString.replaceCharactersInRange:withString:nil", 5, freshMutableHello, rReplaceNil),
    { "mutableString.setString:nil", 5, freshMutableHello, pSetStringNil },
    { "mutableString.insertString:nil atIndex:", 5, freshMutableHello, pInsertStringNil },
    CSS_OVERFLOW_PROBES("mutableString.replaceCharactersInRange:withString:", 5, freshMutableHello, rReplace),
    CSS_OVERFLOW_PROBES("mutableString.deleteCharactersInRange:", 5, freshMutableHello, rDelete),
    CSS_OVERFLOW_PROBES("attributedString.attributedSubstringFromRange:", 5, freshAttributedHello, rAttributedSubstring),
    CSS_OVERFLOW_PROBES("mutableAttributedString.replaceCharactersInRange:withString:", 5, freshRunsHello, rReplace),
    CSS_OVERFLOW_PROBES("mutableAttributedString.replaceCharactersInRange:withAttributedString:", 5, freshRunsHello, rReplaceAttributed),
    CSS_OVERFLOW_PROBES("mutableAttributedString.deleteCharactersInRange:", 5, freshRunsHello, rDelete),
    CSS_OVERFLOW_PROBES("mutableAttributedString.addAttribute:value:range:", 5, freshRunsHello, rAddAttribute),
    CSS_OVERFLOW_PROBES("mutableAttributedString.addAttributes:range:", 5, freshRunsHello, rAddAttributes),
    CSS_OVERFLOW_PROBES("plainMutableAttributedString.addAttributes:range:", 5, freshPlainMutableAttributed, rAddAttributes),
    CSS_OVERFLOW_PROBES("mutableAttributedString.setAttributes:range:", 5, freshRunsHello, rSetAttributes),
    CSS_OVERFLOW_PROBES("mutableAttributedString.removeAttribute:range:", 5, freshRunsHello, rRemoveAttribute),
    CSS_OVERFLOW_PROBES("mutableAttributedString.attributesAtIndex:longestEffectiveRange:inRange:", 5, freshRunsHello, rAttributesLongest),
    CSS_OVERFLOW_PROBES("mutableAttributedString.attribute:atIndex:longestEffectiveRange:inRange:", 5, freshRunsHello, rAttributeLongest),
};

const CSSProbe *css_string_probes(int *count) {
    *count = (int)(sizeof css_string_probe_table / sizeof css_string_probe_table[0]);
    return css_string_probe_table;
}
