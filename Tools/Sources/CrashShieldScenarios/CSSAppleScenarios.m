// CSSAppleScenarios.m: calls that Apple's Foundation raises for and GNUstep's accepts. On Apple they are part of the
// catalog (the matrix sees them crash for real); on GNUstep the Apple-rules tests run them with
// `FoundationRules.current = .apple` and check the report against Apple's reason below.
//
// Apple's reasons are checked against public crash logs where one was found (Docs/AppleRuntime.md §13), with the class an
// iOS app gets; none is verified on a device (Docs/AppleRuntime.md §9, "Crashes only Apple raises"). A test
// compares everything but the class name, which is the receiver's own.
#import <Foundation/Foundation.h>
#include <unistd.h>
#include "CSSFamilies.h"

#if __has_feature(objc_arc)
#define CSS_APPLE_AUTORELEASE(x) (x)
#else
#define CSS_APPLE_AUTORELEASE(x) [(x) autorelease]
#endif

static NSMutableDictionary *mutableOne(void) { return css_opaque([NSMutableDictionary dictionaryWithObject: @"v" forKey: @"k"]); }
static NSMutableSet *mutableSetAB(void) { return css_opaque([NSMutableSet setWithObjects: @"a", @"b", nil]); }
static NSMutableString *mutableAB(void) { return css_opaque([NSMutableString stringWithString: @"ab"]); }

static const char *removeObjectForNilKey(void) {
    NSMutableDictionary *d = mutableOne();
    [d removeObjectForKey: css_opaque(nil)];
    return css_dictionary_contents(d);
}
static const char *subscriptRemoveNilKey(void) {
    NSMutableDictionary *d = mutableOne();
    [d setObject: css_opaque(nil) forKeyedSubscript: css_opaque(nil)];   // d[nil] = nil
    return css_dictionary_contents(d);
}
static const char *setRemoveNil(void) {
    NSMutableSet *s = mutableSetAB();
    [s removeObject: css_opaque(nil)];
    return css_set_contents(s);
}
static const char *appendStringNil(void) {
    NSMutableString *m = mutableAB();
    [m appendString: css_opaque(nil)];
    return css_format("[%s]", [m UTF8String]);
}
static const char *stringByAppendingNil(void) {
    NSString *s = css_opaque([NSString stringWithUTF8String: "ab"]);
    NSString *result = [s stringByAppendingString: css_opaque(nil)];
    return css_format("[%s] receiver=[%s]", [result UTF8String], [s UTF8String]);
}
// A nil string in replacements (issue 32 §2): GNUstep deletes the range or adds nothing; Apple raises.
static const char *replaceCharactersNil(void) {
    NSMutableString *m = mutableAB();
    [m replaceCharactersInRange: NSMakeRange(0, 1) withString: css_opaque(nil)];
    return css_format("[%s]", [m UTF8String]);
}
static const char *insertStringNil(void) {
    NSMutableString *m = mutableAB();
    [m insertString: css_opaque(nil) atIndex: 1];
    return css_format("[%s]", [m UTF8String]);
}
static const char *stringByReplacingCharactersNil(void) {
    NSString *s = css_opaque([NSString stringWithUTF8String: "ab"]);
    NSString *result = [s stringByReplacingCharactersInRange: NSMakeRange(0, 1) withString: css_opaque(nil)];
    return css_format("[%s] receiver=[%s]", [result UTF8String], [s UTF8String]);
}
static NSMutableAttributedString *attributedAB(void) {
    return css_opaque(CSS_APPLE_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"ab"]));
}
static const char *attributedText(NSAttributedString *a) { return css_format("[%s]", [[a string] UTF8String]); }
static const char *attributedReplaceCharactersNil(void) {
    NSMutableAttributedString *a = attributedAB();
    [a replaceCharactersInRange: NSMakeRange(0, 1) withString: css_opaque(nil)];
    return attributedText(a);
}
static const char *attributedReplaceWithAttributedNil(void) {
    NSMutableAttributedString *a = attributedAB();
    [a replaceCharactersInRange: NSMakeRange(0, 1) withAttributedString: css_opaque(nil)];
    return attributedText(a);
}
static const char *attributedAppendNil(void) {
    NSMutableAttributedString *a = attributedAB();
    [a appendAttributedString: css_opaque(nil)];
    return attributedText(a);
}
static const char *attributedInsertNil(void) {
    NSMutableAttributedString *a = attributedAB();
    [a insertAttributedString: css_opaque(nil) atIndex: 1];
    return attributedText(a);
}
static const char *attributedSetNil(void) {
    NSMutableAttributedString *a = attributedAB();
    [a setAttributedString: css_opaque(nil)];
    return attributedText(a);
}
static const char *cacheSetNilObject(void) {
    NSCache *cache = css_opaque(CSS_APPLE_AUTORELEASE([NSCache new]));
    [cache setObject: @"v" forKey: @"k"];
    [cache setObject: css_opaque(nil) forKey: @"k"];
    return css_format("k=%s", css_describe([cache objectForKey: @"k"]));
}
static const char *cacheSetNilObjectWithCost(void) {
    NSCache *cache = css_opaque(CSS_APPLE_AUTORELEASE([NSCache new]));
    [cache setObject: css_opaque(nil) forKey: @"k" cost: 1];
    return css_format("k=%s", css_describe([cache objectForKey: @"k"]));
}

/// What a JSON call gave: its result (nil) and the error it set.
static const char *jsonOutcome(id result, NSError *error) {
    return css_format("%s error=%s %ld", result ? css_describe(result) : "nil",
                      error ? [[error domain] UTF8String] : "none", error ? (long)[error code] : 0L);
}
static const char *jsonObjectWithNilData(void) {
    NSError *error = nil;
    id result = [NSJSONSerialization JSONObjectWithData: css_opaque(nil) options: 0 error: &error];
    return jsonOutcome(result, error);
}
static const char *jsonWrite(id object) {
    NSError *error = nil;
    NSData *data = [NSJSONSerialization dataWithJSONObject: css_opaque(object) options: 0 error: &error];
    return jsonOutcome(data, error);
}
static const char *jsonWriteURL(void) {
    return jsonWrite([NSArray arrayWithObjects: @"a", [NSDictionary dictionaryWithObject: [NSURL URLWithString: @"https://example.com"] forKey: @"u"], nil]);
}
static const char *jsonWriteNaN(void) {
    return jsonWrite([NSDictionary dictionaryWithObject: [NSNumber numberWithDouble: 0.0 / 0.0] forKey: @"n"]);
}
static const char *jsonWriteNumberKey(void) {
    return jsonWrite([NSDictionary dictionaryWithObject: @"one" forKey: [NSNumber numberWithInt: 1]]);
}
static const char *jsonWriteTopLevelString(void) { return jsonWrite(@"fragment"); }
static const char *jsonWriteNil(void) { return jsonWrite(nil); }
/// Infinity deep in an array, and no error pointer (the caller asked for no NSError).
static const char *jsonWriteInfinityWithoutError(void) {
    NSArray *object = [NSArray arrayWithObject: [NSArray arrayWithObjects: @"x", [NSNull null], [NSNumber numberWithDouble: 1.0 / 0.0], nil]];
    NSData *data = [NSJSONSerialization dataWithJSONObject: css_opaque(object) options: 0 error: NULL];
    return data ? css_describe(data) : "nil";
}


// NSURL, NSFileManager and NSRegularExpression (Docs/AppleRuntime.md §15): GNUstep answers nil, NO or no match.
static NSURL *directoryURL(void) { return css_opaque([NSURL URLWithString: @"https://example.com/dir/"]); }
static const char *urlAppendNil(void) {
    NSURL *base = directoryURL();
    NSURL *url = [base URLByAppendingPathComponent: css_opaque(nil)];
    return css_format("%s base=%s", url ? [[url absoluteString] UTF8String] : "nil", [[base absoluteString] UTF8String]);
}
static const char *urlAppendNilIsDirectory(void) {
    NSURL *base = directoryURL();
    NSURL *url = [base URLByAppendingPathComponent: css_opaque(nil) isDirectory: YES];
    return css_format("%s base=%s", url ? [[url absoluteString] UTF8String] : "nil", [[base absoluteString] UTF8String]);
}
static const char *urlInitWithNilStringRelative(void) {
    NSURL *url = CSS_APPLE_AUTORELEASE([[NSURL alloc] initWithString: css_opaque(nil) relativeToURL: directoryURL()]);
    return url ? [[url absoluteString] UTF8String] : "nil";
}
static const char *urlInitWithNilString(void) {
    NSURL *url = CSS_APPLE_AUTORELEASE([[NSURL alloc] initWithString: css_opaque(nil)]);
    return url ? [[url absoluteString] UTF8String] : "nil";
}
/// What a file operation gave: YES / NO and the error it set.
static const char *fileOutcome(BOOL ok, NSError *error) {
    return css_format("%s error=%s %ld", ok ? "YES" : "NO", error ? [[error domain] UTF8String] : "none",
                      error ? (long)[error code] : 0L);
}
static NSString *missingPath(NSString *name) { return [@"/nonexistent-crashshield" stringByAppendingPathComponent: name]; }
static const char *moveNilSource(void) {
    NSError *error = nil;
    BOOL ok = [[NSFileManager defaultManager] moveItemAtPath: css_opaque(nil) toPath: missingPath(@"b") error: &error];
    return fileOutcome(ok, error);
}
static const char *moveNilDestination(void) {
    NSError *error = nil;
    BOOL ok = [[NSFileManager defaultManager] moveItemAtPath: missingPath(@"a") toPath: css_opaque(nil) error: &error];
    return fileOutcome(ok, error);
}
static const char *copyNilSource(void) {
    NSError *error = nil;
    BOOL ok = [[NSFileManager defaultManager] copyItemAtPath: css_opaque(nil) toPath: missingPath(@"b") error: &error];
    return fileOutcome(ok, error);
}
/// No error pointer: the caller asked for no NSError.
static const char *moveURLNilDestination(void) {
    NSURL *source = [NSURL fileURLWithPath: missingPath(@"a")];
    BOOL ok = [[NSFileManager defaultManager] moveItemAtURL: source toURL: css_opaque(nil) error: NULL];
    return ok ? "YES" : "NO";
}
static const char *copyURLNilSource(void) {
    NSError *error = nil;
    NSURL *destination = [NSURL fileURLWithPath: missingPath(@"b")];
    BOOL ok = [[NSFileManager defaultManager] copyItemAtURL: css_opaque(nil) toURL: destination error: &error];
    return fileOutcome(ok, error);
}
static const char *enumeratorAtNilURL(void) {
    id enumerator = [[NSFileManager defaultManager] enumeratorAtURL: css_opaque(nil) includingPropertiesForKeys: nil
                                                            options: 0 errorHandler: NULL];
    return enumerator ? "enumerator" : "nil";
}
static NSRegularExpression *wordRegex(void) {
    return css_opaque([NSRegularExpression regularExpressionWithPattern: @"[a-z]+" options: 0 error: NULL]);
}
/// How many matches `enumerateMatchesInString:options:range:usingBlock:` hands its block. GNUstep's headers here
/// (no -fblocks) take a block as the block ABI's struct, which GNUstep calls through `invoke` (GSBlocks.h).
#if __has_feature(blocks)
static NSUInteger countMatches(NSRegularExpression *regex, NSString *string, NSRange range) {
    __block NSUInteger matches = 0;
    [regex enumerateMatchesInString: string options: 0 range: range
                         usingBlock: ^(NSTextCheckingResult *result, NSMatchingFlags flags, BOOL *stop) {
        (void)flags; (void)stop;
        if (result) matches++;
    }];
    return matches;
}
#else
typedef struct CSSMatchCounter {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *, NSTextCheckingResult *, NSMatchingFlags, BOOL *);
    NSUInteger matches;
} CSSMatchCounter;
static void countMatch(void *block, NSTextCheckingResult *result, NSMatchingFlags flags, BOOL *stop) {
    (void)flags; (void)stop;
    if (result) ((CSSMatchCounter *)block)->matches++;
}
static NSUInteger countMatches(NSRegularExpression *regex, NSString *string, NSRange range) {
    CSSMatchCounter counter = { NULL, 0, 0, countMatch, 0 };
    [regex enumerateMatchesInString: string options: 0 range: range usingBlock: (void *)&counter];
    return counter.matches;
}
#endif
#if !defined(__APPLE__)
/// GNUstep 1.28 has no NSDataDetector. Apple's is a subclass of NSRegularExpression whose own
/// `enumerateMatchesInString:options:range:usingBlock:` makes the same checks without calling super
/// (RegularExpressionHooks): this fixture, shaped like it, overrides the method too: a nil string ends there (only a
/// hook on the subclass sees it), anything else goes to super (the shape the hook's second layer exists for).
@interface NSDataDetector : NSRegularExpression
@end
@implementation NSDataDetector
- (void)enumerateMatchesInString: (NSString *)string options: (NSMatchingOptions)options range: (NSRange)range
                      usingBlock: (GSRegexBlock)block {
    if (string == nil) return;
    [super enumerateMatchesInString: string options: options range: range usingBlock: block];
}
@end
#endif
/// A detector of links on Apple; the fixture above, matching words, here.
static NSRegularExpression *detector(void) {
#if defined(__APPLE__)
    return css_opaque([NSDataDetector dataDetectorWithTypes: NSTextCheckingTypeLink error: NULL]);
#else
    return css_opaque(CSS_APPLE_AUTORELEASE([[NSDataDetector alloc] initWithPattern: @"[a-z]+" options: 0 error: NULL]));
#endif
}
static const char *detectorEnumerateNil(void) {
    return css_format("matches=%lu", (unsigned long)countMatches(detector(), css_opaque(nil), NSMakeRange(0, 0)));
}
static const char *detectorEnumeratePastEnd(void) {
    return css_format("matches=%lu", (unsigned long)countMatches(detector(), css_opaque(@"see example.com"), NSMakeRange(4, 12)));
}
static const char *regexEnumerate(NSString *string, NSRange range) {
    return css_format("matches=%lu", (unsigned long)countMatches(wordRegex(), css_opaque(string), range));
}
static const char *regexReplacingNilTemplate(void) {
    NSString *text = @"ab cd";
    NSString *result = [wordRegex() stringByReplacingMatchesInString: text options: 0 range: NSMakeRange(0, 5)
                                                         withTemplate: css_opaque(nil)];
    return result ? css_format("[%s]", [result UTF8String]) : "nil";
}
static const char *regexReplaceNilTemplate(void) {
    NSMutableString *text = css_opaque([NSMutableString stringWithString: @"ab cd"]);
    NSUInteger replaced = [wordRegex() replaceMatchesInString: text options: 0 range: NSMakeRange(0, 5)
                                                 withTemplate: css_opaque(nil)];
    return css_format("%lu [%s]", (unsigned long)replaced, [text UTF8String]);
}
static const char *regexEnumerateNil(void) { return regexEnumerate(nil, NSMakeRange(0, 0)); }
static const char *regexEnumeratePastEnd(void) { return regexEnumerate(@"ab cd", NSMakeRange(2, 4)); }

static const CSSScenario css_apple_table[] = {
    { "mutableDictionary.removeObjectForKey.nilKey", "container", "removeObjectForKey:", "NSInvalidArgumentException", "{k=v}", 1, removeObjectForNilKey },
    { "mutableDictionary.subscriptSet.nilKeyNilObject", "container", "setObject:forKeyedSubscript:", "NSInvalidArgumentException", "{k=v}", 1, subscriptRemoveNilKey },
    { "mutableSet.removeObject.nil", "container", "removeObject:", "NSInvalidArgumentException", "{a,b}", 1, setRemoveNil },
    { "mutableString.appendString.nil", "string", "appendString:", "NSInvalidArgumentException", "[ab]", 1, appendStringNil },
    { "string.stringByAppendingString.nil", "string", "stringByAppendingString:", "NSInvalidArgumentException", "[ab] receiver=[ab]", 1, stringByAppendingNil },
    { "cache.setObjectForKey.nilObject", "container", "setObject:forKey:", "NSInvalidArgumentException", "k=v", 1, cacheSetNilObject },
    { "cache.setObjectForKeyCost.nilObject", "container", "setObject:forKey:cost:", "NSInvalidArgumentException", "k=nil", 1, cacheSetNilObjectWithCost },
    { "json.JSONObjectWithData.nil", "container", "JSONObjectWithData:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonObjectWithNilData },
    { "json.dataWithJSONObject.nestedURL", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonWriteURL },
    { "json.dataWithJSONObject.NaN", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonWriteNaN },
    { "json.dataWithJSONObject.numberKey", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonWriteNumberKey },
    { "json.dataWithJSONObject.topLevelString", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonWriteTopLevelString },
    { "json.dataWithJSONObject.nil", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil error=NSCocoaErrorDomain 3840", 1, jsonWriteNil },
    { "json.dataWithJSONObject.infinityWithoutError", "container", "dataWithJSONObject:options:error:", "NSInvalidArgumentException", "nil", 1, jsonWriteInfinityWithoutError },
    { "url.URLByAppendingPathComponent.nil", "container", "URLByAppendingPathComponent:", "NSInvalidArgumentException", "nil base=https://example.com/dir/", 1, urlAppendNil },
    { "url.URLByAppendingPathComponentIsDirectory.nil", "container", "URLByAppendingPathComponent:isDirectory:", "NSInvalidArgumentException", "nil base=https://example.com/dir/", 1, urlAppendNilIsDirectory },
    { "url.initWithStringRelativeToURL.nil", "container", "initWithString:relativeToURL:", "NSInvalidArgumentException", "nil", 1, urlInitWithNilStringRelative },
    { "url.initWithString.nil", "container", "initWithString:relativeToURL:", "NSInvalidArgumentException", "nil", 1, urlInitWithNilString },
    { "fileManager.moveItemAtPath.nilSource", "container", "moveItemAtPath:toPath:error:", "NSInvalidArgumentException", "NO error=NSCocoaErrorDomain 4", 1, moveNilSource },
    { "fileManager.moveItemAtPath.nilDestination", "container", "moveItemAtPath:toPath:error:", "NSInvalidArgumentException", "NO error=NSCocoaErrorDomain 514", 1, moveNilDestination },
    { "fileManager.copyItemAtPath.nilSource", "container", "copyItemAtPath:toPath:error:", "NSInvalidArgumentException", "NO error=NSCocoaErrorDomain 4", 1, copyNilSource },
    { "fileManager.moveItemAtURL.nilDestinationWithoutError", "container", "moveItemAtURL:toURL:error:", "NSInvalidArgumentException", "NO", 1, moveURLNilDestination },
    { "fileManager.copyItemAtURL.nilSource", "container", "copyItemAtURL:toURL:error:", "NSInvalidArgumentException", "NO error=NSCocoaErrorDomain 4", 1, copyURLNilSource },
    { "fileManager.enumeratorAtURL.nil", "container", "enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:", "NSInvalidArgumentException", "nil", 1, enumeratorAtNilURL },
    { "regex.enumerateMatches.nilString", "string", "enumerateMatchesInString:options:range:usingBlock:", "NSInvalidArgumentException", "matches=0", 1, regexEnumerateNil },
    { "regex.enumerateMatches.rangePastEnd", "string", "enumerateMatchesInString:options:range:usingBlock:", "NSRangeException", "matches=0", 1, regexEnumeratePastEnd },
    { "dataDetector.enumerateMatches.nilString", "string", "enumerateMatchesInString:options:range:usingBlock:", "NSInvalidArgumentException", "matches=0", 1, detectorEnumerateNil },
    { "dataDetector.enumerateMatches.rangePastEnd", "string", "enumerateMatchesInString:options:range:usingBlock:", "NSRangeException", "matches=0", 1, detectorEnumeratePastEnd },
    { "regex.stringByReplacingMatches.nilTemplate", "string", "stringByReplacingMatchesInString:options:range:withTemplate:", "NSInvalidArgumentException", "nil", 1, regexReplacingNilTemplate },
    { "regex.replaceMatches.nilTemplate", "string", "replaceMatchesInString:options:range:withTemplate:", "NSInvalidArgumentException", "0 [ab cd]", 1, regexReplaceNilTemplate },
    { "mutableString.replaceCharactersInRange.nil", "string", "replaceCharactersInRange:withString:", "NSInvalidArgumentException", "[ab]", 1, replaceCharactersNil },
    { "mutableString.insertString.nil", "string", "insertString:atIndex:", "NSInvalidArgumentException", "[ab]", 1, insertStringNil },
    { "string.stringByReplacingCharactersInRange.nil", "string", "stringByReplacingCharactersInRange:withString:", "NSInvalidArgumentException", "[ab] receiver=[ab]", 1, stringByReplacingCharactersNil },
    { "mutableAttributedString.replaceCharactersInRange.nil", "string", "replaceCharactersInRange:withString:", "NSInvalidArgumentException", "[ab]", 1, attributedReplaceCharactersNil },
    { "mutableAttributedString.replaceWithAttributedString.nil", "string", "replaceCharactersInRange:withAttributedString:", "NSInvalidArgumentException", "[ab]", 1, attributedReplaceWithAttributedNil },
    { "mutableAttributedString.appendAttributedString.nil", "string", "appendAttributedString:", "NSInvalidArgumentException", "[ab]", 1, attributedAppendNil },
    { "mutableAttributedString.insertAttributedString.nil", "string", "insertAttributedString:atIndex:", "NSInvalidArgumentException", "[ab]", 1, attributedInsertNil },
    { "mutableAttributedString.setAttributedString.nil", "string", "setAttributedString:", "NSInvalidArgumentException", "[ab]", 1, attributedSetNil },
};

/// Apple's reason for each row above, in order (sources: Docs/AppleRuntime.md §13). `appendString:` raises through
/// CoreFoundation's `mutateError` and NSCache through `__CFExceptionProem` alone: no `*** `.
static const char *const css_apple_reasons[] = {
    "*** -[__NSDictionaryM removeObjectForKey:]: key cannot be nil",
    "*** -[__NSDictionaryM setObject:forKeyedSubscript:]: key cannot be nil",
    "*** -[__NSSetM removeObject:]: object cannot be nil",
    "-[__NSCFString appendString:]: nil argument",
    "*** -[NSTaggedPointerString stringByAppendingString:]: nil argument",
    "-[NSCache setObject:forKey:cost:]: attempt to insert nil value (key: k)",
    "-[NSCache setObject:forKey:cost:]: attempt to insert nil value (key: k)",
    "data parameter is nil",
    "Invalid type in JSON write (NSURL)",
    "Invalid number value (NaN) in JSON write",
    "Invalid (non-string) key in JSON dictionary",
    "*** +[NSJSONSerialization dataWithJSONObject:options:error:]: Invalid top-level type in JSON write",
    "*** +[NSJSONSerialization dataWithJSONObject:options:error:]: Invalid top-level type in JSON write",
    "Invalid number value (infinite) in JSON write",
    "*** -[NSURL URLByAppendingPathComponent:]: component, components, or pathExtension cannot be nil.",
    "*** -[NSURL URLByAppendingPathComponent:isDirectory:]: component, components, or pathExtension cannot be nil.",
    "*** -[NSURL initWithString:relativeToURL:]: nil string parameter",
    "*** -[NSURL initWithString:relativeToURL:]: nil string parameter",
    "*** -[NSFileManager moveItemAtPath:toPath:error:]: source path is nil",
    "*** -[NSFileManager moveItemAtPath:toPath:error:]: destination path is nil",
    "*** -[NSFileManager copyItemAtPath:toPath:options:error:]: source path is nil",
    "*** -[NSFileManager moveItemAtURL:toURL:options:error:]: destination URL is nil",
    "*** -[NSFileManager copyItemAtURL:toURL:options:error:]: source URL is nil",
    "*** -[NSFileManager enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:]: URL is nil",
    "*** -[NSRegularExpression enumerateMatchesInString:options:range:usingBlock:]: nil argument",
    "*** -[NSRegularExpression enumerateMatchesInString:options:range:usingBlock:]: Range or index out of bounds",
    "*** -[NSDataDetector enumerateMatchesInString:options:range:usingBlock:]: nil argument",
    "*** -[NSDataDetector enumerateMatchesInString:options:range:usingBlock:]: Range or index out of bounds",
    "*** -[NSRegularExpression stringByReplacingMatchesInString:options:range:withTemplate:]: nil argument",
    "*** -[NSRegularExpression replaceMatchesInString:options:range:withTemplate:]: nil argument",
    // CoreFoundation's `mutateError` (no `*** `): element-hq/element-ios#663; the insert text is unverified.
    "-[__NSCFString replaceCharactersInRange:withString:]: nil argument",
    "-[__NSCFString insertString:atIndex:]: nil argument",
    // Raised in NSString's own method: haltNoShut/YFAssistantTableView#2 (`__NSCFString` there).
    "*** -[NSTaggedPointerString stringByReplacingCharactersInRange:withString:]: nil argument",
    // An attributed string's storage raises, whatever the receiver: tingbot/tide-for-mac-deprecated#1 (under
    // `replaceCharactersInRange:withAttributedString:`); the other three paths are unverified.
    "*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil argument",
    "*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil argument",
    "*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil argument",
    "*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil argument",
    "*** -[NSBigMutableString replaceCharactersInRange:withString:]: nil argument",
};
_Static_assert(sizeof css_apple_table / sizeof css_apple_table[0] == sizeof css_apple_reasons / sizeof css_apple_reasons[0],
               "one reason per Apple-only scenario");

const CSSScenario *css_apple_only_scenarios(int *count) {
    *count = (int)(sizeof css_apple_table / sizeof css_apple_table[0]);
    return css_apple_table;
}

const char *css_apple_only_reason(int scenario) {
    int count = 0;
    css_apple_only_scenarios(&count);
    return scenario >= 0 && scenario < count ? css_apple_reasons[scenario] : NULL;
}

const char *css_valid_apple_only_calls(void) {
    NSMutableString *log = [NSMutableString string];
    NSMutableDictionary *d = mutableOne();
    [d removeObjectForKey: @"k"];
    [d removeObjectForKey: @"absent"];
    [d setObject: @"x" forKeyedSubscript: @"k2"];
    [d setObject: css_opaque(nil) forKeyedSubscript: @"k2"];   // d[k2] = nil removes
    [log appendFormat: @"dictionary=%s\n", css_dictionary_contents(d)];
    NSMutableSet *s = mutableSetAB();
    [s removeObject: @"a"];
    [s removeObject: @"absent"];
    [log appendFormat: @"set=%s\n", css_set_contents(s)];
    NSMutableString *m = mutableAB();
    [m appendString: @"c"];
    [m appendString: @""];
    [log appendFormat: @"append=%@ appended=%@\n", m, [m stringByAppendingString: @"d"]];
    [m replaceCharactersInRange: NSMakeRange(0, 1) withString: @"x"];
    [m insertString: @"y" atIndex: 1];
    [log appendFormat: @"replace=%@ replacing=%@,%@\n", m, [m stringByReplacingCharactersInRange: NSMakeRange(1, 2) withString: @"z"],
                      [@"ab" stringByReplacingCharactersInRange: NSMakeRange(2, 0) withString: @""]];
    NSMutableAttributedString *attributed = attributedAB();
    NSAttributedString *piece = CSS_APPLE_AUTORELEASE([[NSAttributedString alloc] initWithString: @"c"]);
    [attributed appendAttributedString: piece];
    [attributed insertAttributedString: piece atIndex: 0];
    [attributed replaceCharactersInRange: NSMakeRange(1, 1) withAttributedString: piece];
    [attributed replaceCharactersInRange: NSMakeRange(0, 1) withString: @"d"];
    [log appendFormat: @"attributed=%@", [attributed string]];
    [attributed setAttributedString: piece];
    [log appendFormat: @",%@\n", [attributed string]];
    [log appendFormat: @"format=%@ %@ %@\n", [NSString stringWithFormat: @"%d-%s-%@", 5, "x", @"y"],
                      [NSMutableString stringWithFormat: @"%@ %ld", @"z", 3L], [@"ab" stringByAppendingFormat: @"%d%@", 7, @"!"]];
    NSCache *cache = CSS_APPLE_AUTORELEASE([NSCache new]);
    [cache setObject: @"v" forKey: @"k"];
    [cache setObject: @"w" forKey: @"k2" cost: 3];
    [log appendFormat: @"cache=%@,%@\n", [cache objectForKey: @"k"], [cache objectForKey: @"k2"]];
    // JSON Apple accepts: nested containers of every valid type, a fragment where fragments are allowed, and the
    // failures it reports as errors (undecodable data), written and read back.
    NSDictionary *nested = [NSDictionary dictionaryWithObjectsAndKeys:
        [NSArray arrayWithObjects: @"s", [NSNumber numberWithInt: 1], [NSNumber numberWithDouble: 2.5], [NSNull null],
                                   [NSDictionary dictionary], [NSArray array], [NSNumber numberWithBool: YES], nil], @"a",
        [NSMutableDictionary dictionaryWithObject: [NSMutableArray arrayWithObject: @"m"] forKey: @"k"], @"b", nil];
    NSError *error = nil;
    NSData *written = [NSJSONSerialization dataWithJSONObject: nested options: 0 error: &error];
    id read = written ? [NSJSONSerialization JSONObjectWithData: written options: 0 error: &error] : nil;
    [log appendFormat: @"json.roundTrip=%s equal=%d error=%ld\n", written ? "data" : "nil", [read isEqual: nested], (long)[error code]];
    NSData *fragment = [NSJSONSerialization dataWithJSONObject: @"f" options: 4 /* NSJSONWritingFragmentsAllowed */ error: NULL];
    [log appendFormat: @"json.fragment=%s\n", fragment ? "data" : "nil"];
    NSData *fragmentNumber = [NSJSONSerialization dataWithJSONObject: [NSNumber numberWithInt: 3] options: 4 error: NULL];
    [log appendFormat: @"json.fragmentNumber=%s\n", fragmentNumber ? "data" : "nil"];
    error = nil;
    id garbage = [NSJSONSerialization JSONObjectWithData: [@"{nope" dataUsingEncoding: NSUTF8StringEncoding] options: 0 error: &error];
    [log appendFormat: @"json.garbage=%s error=%s\n", garbage ? "object" : "nil", error ? [[error domain] UTF8String] : "none"];
    [log appendFormat: @"json.valid=%d,%d\n", [NSJSONSerialization isValidJSONObject: nested], [NSJSONSerialization isValidJSONObject: @"f"]];
    // NSURL: appending (an empty component included), URLs from strings relative and absolute, a nil base.
    NSURL *base = [NSURL URLWithString: @"https://example.com/dir/"];
    [log appendFormat: @"url.append=%@ %@ %@\n", [[base URLByAppendingPathComponent: @"a b"] absoluteString],
                      [[base URLByAppendingPathComponent: @"c" isDirectory: YES] absoluteString],
                      [[base URLByAppendingPathComponent: @""] absoluteString]];
    NSURL *relative = CSS_APPLE_AUTORELEASE([[NSURL alloc] initWithString: @"x/y?q=1" relativeToURL: base]);
    NSURL *absolute = CSS_APPLE_AUTORELEASE([[NSURL alloc] initWithString: @"https://example.org/z" relativeToURL: nil]);
    NSURL *plain = CSS_APPLE_AUTORELEASE([[NSURL alloc] initWithString: @"mailto:a@b.c"]);
    // (`+URLWithString:nil` answers nil on Apple before any initializer runs; GNUstep's reaches
    // `initWithString:relativeToURL:`, so under Apple's rules emulated here it would be reported: not tried.)
    [log appendFormat: @"url.init=%@ %@ %@ %@\n", [relative absoluteString], [absolute absoluteString],
                      [plain absoluteString], [[NSURL URLWithString: @"k" relativeToURL: base] absoluteString]];
    // NSFileManager: a real file moved, copied, enumerated and removed in a fresh directory; failures with paths.
    NSFileManager *manager = [NSFileManager defaultManager];
    NSString *directory = [NSTemporaryDirectory() stringByAppendingPathComponent:
                           [NSString stringWithFormat: @"crashshield-apple-%d", (int)getpid()]];
    [manager removeItemAtPath: directory error: NULL];
    [manager createDirectoryAtPath: directory withIntermediateDirectories: YES attributes: nil error: NULL];
    NSString *fileA = [directory stringByAppendingPathComponent: @"a"], *fileB = [directory stringByAppendingPathComponent: @"b"];
    NSString *fileC = [directory stringByAppendingPathComponent: @"c"], *fileD = [directory stringByAppendingPathComponent: @"d"];
    [[@"data" dataUsingEncoding: NSUTF8StringEncoding] writeToFile: fileA atomically: NO];
    BOOL moved = [manager moveItemAtPath: fileA toPath: fileB error: NULL];
    BOOL copied = [manager copyItemAtPath: fileB toPath: fileC error: NULL];
    BOOL movedURL = [manager moveItemAtURL: [NSURL fileURLWithPath: fileC] toURL: [NSURL fileURLWithPath: fileD] error: NULL];
    BOOL copiedURL = [manager copyItemAtURL: [NSURL fileURLWithPath: fileD] toURL: [NSURL fileURLWithPath: fileA] error: NULL];
    NSError *missing = nil;
    BOOL movedMissing = [manager moveItemAtPath: [directory stringByAppendingPathComponent: @"none"] toPath: fileC error: &missing];
    NSUInteger entries = 0;
    for (NSURL *entry in [manager enumeratorAtURL: [NSURL fileURLWithPath: directory] includingPropertiesForKeys: nil
                                           options: 0 errorHandler: NULL]) {
        (void)entry;
        entries++;
    }
    [log appendFormat: @"files=%d%d%d%d %d missingError=%s entries=%lu exist=%d%d%d%d\n", moved, copied, movedURL, copiedURL,
                      movedMissing, missing ? "yes" : "no", (unsigned long)entries, [manager fileExistsAtPath: fileA],
                      [manager fileExistsAtPath: fileB], [manager fileExistsAtPath: fileC], [manager fileExistsAtPath: fileD]];
    [manager removeItemAtPath: directory error: NULL];
    // NSRegularExpression: every matching method, ranges up to the end, an empty string, a template.
    NSRegularExpression *regex = wordRegex();
    NSString *text = @"ab cd ef";
    NSRange all = NSMakeRange(0, [text length]);
    NSUInteger enumerated = countMatches(regex, text, NSMakeRange(3, 5));
    NSUInteger detected = countMatches(detector(), @"see example.com or https://example.org/x", NSMakeRange(4, 36));
    NSUInteger detectedToEnd = countMatches(detector(), @"example.com", NSMakeRange(11, 0));
    NSRange first = [regex rangeOfFirstMatchInString: text options: 0 range: NSMakeRange(2, 6)];
    NSMutableString *replaced = [NSMutableString stringWithString: text];
    NSUInteger replacements = [regex replaceMatchesInString: replaced options: 0 range: all withTemplate: @"<$0>"];
    [log appendFormat: @"regex=%lu %lu %lu {%lu,%lu} %@ %@ %lu %@ %lu\n", (unsigned long)enumerated,
                      (unsigned long)[[regex matchesInString: text options: 0 range: all] count],
                      (unsigned long)[regex numberOfMatchesInString: text options: 0 range: NSMakeRange(8, 0)],
                      (unsigned long)first.location, (unsigned long)first.length,
                      [text substringWithRange: [[regex firstMatchInString: text options: 0 range: all] range]],
                      [regex stringByReplacingMatchesInString: text options: 0 range: all withTemplate: @"[$0]"],
                      (unsigned long)replacements, replaced,
                      (unsigned long)[regex numberOfMatchesInString: @"" options: 0 range: NSMakeRange(0, 0)]];
    [log appendFormat: @"detector=%lu %lu\n", (unsigned long)detected, (unsigned long)detectedToEnd];
    return [log UTF8String];
}

void css_cache_set_nil_object_for_nil_key(bool withCost) {
    NSCache *cache = css_opaque(CSS_APPLE_AUTORELEASE([NSCache new]));
    if (withCost) [cache setObject: css_opaque(nil) forKey: css_opaque(nil) cost: 1];
    else [cache setObject: css_opaque(nil) forKey: css_opaque(nil)];
}

// MARK: Apple's branches of calls both Foundations take (the guards choose by FoundationRules at run time)

const char *css_ordered_set_read_at_2_32(void) {
    NSOrderedSet *o = css_opaque([NSOrderedSet orderedSetWithObjects: @"a", nil]);
    id element = [o objectAtIndex: css_opaque_index((NSUInteger)1 << 32)];
    return element ? [element UTF8String] : "nil";
}

const char *css_ordered_set_insert_past_count(void) {
    NSMutableOrderedSet *o = css_opaque([NSMutableOrderedSet orderedSetWithObjects: @"a", @"b", nil]);
    [o insertObject: @"x" atIndex: css_opaque_index(5)];
    return css_ordered_set_contents(o);
}

const char *css_mutable_set_with_nil(void) {
    id objects[] = { @"a", css_opaque(nil), @"b" };
    return css_set_contents([NSMutableSet setWithObjects: objects count: 3]);
}

const char *css_set_value_for_nil_key(void) {
    NSObject *object = css_opaque(CSS_APPLE_AUTORELEASE([NSObject new]));
    [object setValue: @"x" forKey: css_opaque(nil)];
    return "set";
}

const char *css_attributes_at_length(void) {
    NSAttributedString *s = css_opaque(CSS_APPLE_AUTORELEASE([[NSAttributedString alloc] initWithString: @"ab"]));
    NSRange effective = NSMakeRange(7, 7);
    NSDictionary *attributes = [s attributesAtIndex: css_opaque_index([s length]) effectiveRange: &effective];
    return css_format("%s {%lu,%lu}", attributes ? "attributes" : "nil", (unsigned long)effective.location,
                      (unsigned long)effective.length);
}
