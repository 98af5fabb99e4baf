// CSSAppleScenarios.m: calls that Apple's Foundation raises for and GNUstep's accepts. On Apple they are part of the
// catalog (the matrix sees them crash for real); on GNUstep the Apple-rules tests run them with
// `FoundationRules.current = .apple` and check the report against Apple's reason below.
//
// Apple's reasons are checked against public crash logs where one was found (Docs/AppleRuntime.md §13), with the class an
// iOS app gets; none is verified on a device (Docs/AppleRuntime.md §9, "Crashes only Apple raises"). A test
// compares everything but the class name, which is the receiver's own.
#import <Foundation/Foundation.h>
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

static const CSSScenario css_apple_table[] = {
    { "mutableDictionary.removeObjectForKey.nilKey", "container", "removeObjectForKey:", "NSInvalidArgumentException", "{k=v}", 1, removeObjectForNilKey },
    { "mutableDictionary.subscriptSet.nilKeyNilObject", "container", "setObject:forKeyedSubscript:", "NSInvalidArgumentException", "{k=v}", 1, subscriptRemoveNilKey },
    { "mutableSet.removeObject.nil", "container", "removeObject:", "NSInvalidArgumentException", "{a,b}", 1, setRemoveNil },
    { "mutableString.appendString.nil", "string", "appendString:", "NSInvalidArgumentException", "[ab]", 1, appendStringNil },
    { "string.stringByAppendingString.nil", "string", "stringByAppendingString:", "NSInvalidArgumentException", "[ab] receiver=[ab]", 1, stringByAppendingNil },
    { "cache.setObjectForKey.nilObject", "container", "setObject:forKey:", "NSInvalidArgumentException", "k=v", 1, cacheSetNilObject },
    { "cache.setObjectForKeyCost.nilObject", "container", "setObject:forKey:cost:", "NSInvalidArgumentException", "k=nil", 1, cacheSetNilObjectWithCost },
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
    [log appendFormat: @"format=%@ %@ %@\n", [NSString stringWithFormat: @"%d-%s-%@", 5, "x", @"y"],
                      [NSMutableString stringWithFormat: @"%@ %ld", @"z", 3L], [@"ab" stringByAppendingFormat: @"%d%@", 7, @"!"]];
    NSCache *cache = CSS_APPLE_AUTORELEASE([NSCache new]);
    [cache setObject: @"v" forKey: @"k"];
    [cache setObject: @"w" forKey: @"k2" cost: 3];
    [log appendFormat: @"cache=%@,%@\n", [cache objectForKey: @"k"], [cache objectForKey: @"k2"]];
    return [log UTF8String];
}

void css_cache_set_nil_object_for_nil_key(bool withCost) {
    NSCache *cache = css_opaque(CSS_APPLE_AUTORELEASE([NSCache new]));
    if (withCost) [cache setObject: css_opaque(nil) forKey: css_opaque(nil) cost: 1];
    else [cache setObject: css_opaque(nil) forKey: css_opaque(nil)];
}
