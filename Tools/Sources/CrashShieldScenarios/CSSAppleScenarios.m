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
    return [log UTF8String];
}

void css_cache_set_nil_object_for_nil_key(bool withCost) {
    NSCache *cache = css_opaque(CSS_APPLE_AUTORELEASE([NSCache new]));
    if (withCost) [cache setObject: css_opaque(nil) forKey: css_opaque(nil) cost: 1];
    else [cache setObject: css_opaque(nil) forKey: css_opaque(nil)];
}
