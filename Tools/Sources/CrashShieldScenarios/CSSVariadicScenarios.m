// CSSVariadicScenarios.m: variadic calls that crash without CrashShield (a nil format, a nil key in an
// objects-and-keys list) and NSUserDefaults with a nil key; and the valid calls of the same methods, for the
// differential test (identical text with and without CrashShield).
#import <Foundation/Foundation.h>
#include <limits.h>
#include <objc/runtime.h>
#include "CSSFamilies.h"

#if __has_feature(objc_arc)
#define CSS_VA_AUTORELEASE(...) (__VA_ARGS__)
#else
#define CSS_VA_AUTORELEASE(...) [(__VA_ARGS__) autorelease]
#endif

static const char *bracketed(NSString *string) { return string ? css_format("[%s]", [string UTF8String]) : "nil"; }
static NSMutableString *mutableAB(void) { return css_opaque([NSMutableString stringWithString: @"ab"]); }

/// GNUstep raises "[NSString+stringWithFormat:]: NULL format" in the method itself; Apple from
/// `initWithFormat:locale:arguments:`, where the string guard stops it.
static const char *stringWithFormatNil(void) { return bracketed([NSString stringWithFormat: css_opaque(nil), 1]); }
/// A nil key in the second pair: the list ends there (the pairs after it are never read).
static const char *dictionaryWithObjectsAndKeysNilKey(void) {
    return css_dictionary_contents([NSDictionary dictionaryWithObjectsAndKeys: @"v", @"k", @"w", css_opaque(nil),
                                                                               @"x", @"k3", nil]);
}
static const char *mutableDictionaryWithObjectsAndKeysNilKey(void) {
    NSMutableDictionary *d = [NSMutableDictionary dictionaryWithObjectsAndKeys: @"v", css_opaque(nil), nil];
    [d setObject: @"mutable" forKey: @"m"];   // the empty dictionary the caller gets is mutable, as asked
    return css_dictionary_contents(d);
}
static const char *initWithObjectsAndKeysNilKey(void) {
    return css_dictionary_contents(CSS_VA_AUTORELEASE([[NSDictionary alloc] initWithObjectsAndKeys:
        @"v", @"k", @"w", css_opaque(nil), nil]));
}
/// The last key forgotten: the terminating nil falls on a key.
static const char *mutableInitWithObjectsAndKeysMissingKey(void) {
    return css_dictionary_contents(CSS_VA_AUTORELEASE([[NSMutableDictionary alloc] initWithObjectsAndKeys:
        @"v", @"k", css_opaque(@"w"), nil]));
}
static NSUserDefaults *defaults(void) { return css_opaque([NSUserDefaults standardUserDefaults]); }
static const char *defaultsSetObjectNilKey(void) {
    NSUserDefaults *d = defaults();
    [d setObject: @"v" forKey: css_opaque(nil)];
    return css_format("stored=%s", css_describe([d objectForKey: @"CrashShieldUnsetKey"]));
}
#if !defined(__APPLE__)
/// GNUstep's typed setters send `setObject:forKey:` (Apple's path is closed source: GNUstep only).
static const char *defaultsSetIntegerNilKey(void) {
    NSUserDefaults *d = defaults();
    [d setInteger: 3 forKey: css_opaque(nil)];
    return css_format("stored=%s", css_describe([d objectForKey: @"CrashShieldUnsetKey"]));
}
#endif
static const char *appendFormatNil(void) {
    NSMutableString *m = mutableAB();
    [m appendFormat: css_opaque(nil), 1];
    return bracketed(m);
}

static const CSSScenario css_variadic_table[] = {
#if defined(__APPLE__)
    { "string.stringWithFormat.nil", "string", "initWithFormat:locale:arguments:", "NSInvalidArgumentException", "[]", 1, stringWithFormatNil },
    { "mutableString.appendFormat.nil", "string", "appendFormat:", "NSInvalidArgumentException", "[ab]", 1, appendFormatNil },
#else
    { "string.stringWithFormat.nil", "string", "stringWithFormat:", "NSInvalidArgumentException", "[]", 1, stringWithFormatNil },
#endif
    { "dictionary.dictionaryWithObjectsAndKeys.nilKey", "container", "dictionaryWithObjectsAndKeys:", "NSInvalidArgumentException", "{k=v}", 1, dictionaryWithObjectsAndKeysNilKey },
    { "mutableDictionary.dictionaryWithObjectsAndKeys.nilKey", "container", "dictionaryWithObjectsAndKeys:", "NSInvalidArgumentException", "{m=mutable}", 1, mutableDictionaryWithObjectsAndKeysNilKey },
    { "dictionary.initWithObjectsAndKeys.nilKey", "container", "initWithObjectsAndKeys:", "NSInvalidArgumentException", "{k=v}", 1, initWithObjectsAndKeysNilKey },
    { "mutableDictionary.initWithObjectsAndKeys.missingKey", "container", "initWithObjectsAndKeys:", "NSInvalidArgumentException", "{k=v}", 1, mutableInitWithObjectsAndKeysMissingKey },
    { "userDefaults.setObjectForKey.nilKey", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=nil", 1, defaultsSetObjectNilKey },
#if !defined(__APPLE__)
    { "userDefaults.setInteger.nilKey", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=nil", 1, defaultsSetIntegerNilKey },
#endif
};

const CSSScenario *css_variadic_scenarios(int *count) {
    *count = (int)(sizeof css_variadic_table / sizeof css_variadic_table[0]);
    return css_variadic_table;
}

// MARK: Apple's rules, emulated on GNUstep

/// Every row above that Apple raises for, plus `appendFormat:nil` (only Apple raises), with Apple's reason
/// (unverified on a device): the Apple-rules tests run them on GNUstep.
static const CSSScenario css_variadic_apple_table[] = {
    { "string.stringWithFormat.nil", "string", "stringWithFormat:", "NSInvalidArgumentException", "[]", 1, stringWithFormatNil },
    { "mutableString.appendFormat.nil", "string", "appendFormat:", "NSInvalidArgumentException", "[ab]", 1, appendFormatNil },
    { "dictionary.dictionaryWithObjectsAndKeys.nilKey", "container", "dictionaryWithObjectsAndKeys:", "NSInvalidArgumentException", "{k=v}", 1, dictionaryWithObjectsAndKeysNilKey },
    { "dictionary.initWithObjectsAndKeys.nilKey", "container", "initWithObjectsAndKeys:", "NSInvalidArgumentException", "{k=v}", 1, initWithObjectsAndKeysNilKey },
    { "userDefaults.setObjectForKey.nilKey", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=nil", 1, defaultsSetObjectNilKey },
};
static const char *const css_variadic_apple_reasons[] = {
    "*** -[NSPlaceholderString initWithFormat:locale:arguments:]: nil argument",
    "*** -[__NSCFString appendFormat:]: nil argument",
    "+[NSDictionary dictionaryWithObjectsAndKeys:]: second object of each pair must be non-nil.  Or, did you forget to nil-terminate your parameter list?",
    "-[__NSPlaceholderDictionary initWithObjectsAndKeys:]: second object of each pair must be non-nil.  Or, did you forget to nil-terminate your parameter list?",
    "*** -[NSUserDefaults setObject:forKey:]: attempt to insert nil key",
};
_Static_assert(sizeof css_variadic_apple_table / sizeof css_variadic_apple_table[0]
               == sizeof css_variadic_apple_reasons / sizeof css_variadic_apple_reasons[0], "one reason per row");

const CSSScenario *css_variadic_apple_rules_scenarios(int *count) {
    *count = (int)(sizeof css_variadic_apple_table / sizeof css_variadic_apple_table[0]);
    return css_variadic_apple_table;
}

const char *css_variadic_apple_rules_reason(int scenario) {
    int count = 0;
    css_variadic_apple_rules_scenarios(&count);
    return scenario >= 0 && scenario < count ? css_variadic_apple_reasons[scenario] : NULL;
}

// MARK: Valid calls

/// A result and its class, one line.
static void logResult(NSMutableString *log, const char *label, id result) {
    [log appendString: [NSString stringWithFormat: @"%s=%@ <%s>\n", label, result ? [result description] : @"nil",
                        result ? object_getClassName(result) : "nil"]];
}

/// Formats and arguments, applied to each format method by `X(label, format, arguments...)`: every conversion both
/// Foundations' formatters share, positional arguments, widths from arguments, objects (nil included), C strings,
/// unichars, non-ASCII text, formats without conversions, and a long format and argument (GNUstep switches to heap
/// buffers past 1024 characters). Uses `longText` and `longFormat` from the calling scope.
#define CSS_FORMATS(X)                                                                                              \
    X("plain", @"no conversions")                                                                                   \
    X("empty", @"")                                                                                                 \
    X("percent", @"100%% %d%%", 5)                                                                                  \
    X("ints", @"%d %i %ld %lld %hd %hhd %u %lu %llu", -1, 2, -3L, 4LL, (short)-5, (char)6, 7u, 8UL, 9ULL)           \
    X("limits", @"%ld %lu %d", LONG_MIN, ULONG_MAX, INT_MAX)                                                        \
    X("hex", @"%x %X %o %#x %08x", 255u, 255u, 8u, 16u, 0xbeefu)                                                    \
    X("floats", @"%f %.2f %5.1f %e %g %G", 3.14159, 2.5, -1.25, 12345.678, 0.0001, 1e20)                            \
    X("width", @"[%5d] [%-5d] [%*d] [%.*f]", 42, 42, 6, 7, 3, 1.23456)                                              \
    X("cStrings", @"%s|%10s|%-4s|%.2s", "c-string", "right", "l", "truncate")                                       \
    X("objects", @"%@ %@ %@ %@ %@", @"text", [NSNumber numberWithInt: 42], [NSArray arrayWithObject: @"a"],         \
      [NSDictionary dictionaryWithObject: @"v" forKey: @"k"], nil)                                                  \
    X("characters", @"%c%c %C", 'o', 'k', (unichar)0x2603)                                                          \
    X("positional", @"%2$@ %1$d %2$@ %3$s", 7, @"two", "three")                                                     \
    X("unicode", @"\u00e9t\u00e9 %@ \u2713 %d", @"\u65e5\u672c", 3)                                                 \
    X("pointer", @"%p", (void *)0x1234)                                                                             \
    X("longArgument", @"<%@>", longText)                                                                            \
    X("longFormat", longFormat, 99, @"end")

#define CSS_STRING_WITH_FORMAT(label, ...) logResult(log, "stringWithFormat." label, [NSString stringWithFormat: __VA_ARGS__]);
#define CSS_MUTABLE_WITH_FORMAT(label, ...) logResult(log, "mutableStringWithFormat." label, [NSMutableString stringWithFormat: __VA_ARGS__]);
#define CSS_APPEND_FORMAT(label, ...) {                                                                             \
        NSMutableString *m = mutableAB();                                                                           \
        [m appendFormat: __VA_ARGS__];                                                                              \
        logResult(log, "appendFormat." label, m);                                                                   \
    }

static void validFormatCalls(NSMutableString *log) {
    NSString *longText = [@"" stringByPaddingToLength: 3000 withString: @"abc" startingAtIndex: 0];
    NSString *longFormat = [[@"" stringByPaddingToLength: 1500 withString: @"xy" startingAtIndex: 0]
                            stringByAppendingString: @" %d|%@"];
    CSS_FORMATS(CSS_STRING_WITH_FORMAT)
    CSS_FORMATS(CSS_MUTABLE_WITH_FORMAT)
    CSS_FORMATS(CSS_APPEND_FORMAT)
    NSMutableString *twice = mutableAB();
    [twice appendFormat: @"%@+%@", twice, css_opaque(twice)];   // the receiver as its own argument
    logResult(log, "appendFormat.self", twice);
}

/// 70 pairs (140 objects): past GNUstep's 128-object stack buffer and the trampoline's inline one.
#define CSS_PAIR(i) values[i], keys[i]
#define CSS_PAIRS10(b) CSS_PAIR(b), CSS_PAIR(b + 1), CSS_PAIR(b + 2), CSS_PAIR(b + 3), CSS_PAIR(b + 4),            \
    CSS_PAIR(b + 5), CSS_PAIR(b + 6), CSS_PAIR(b + 7), CSS_PAIR(b + 8), CSS_PAIR(b + 9)
#define CSS_PAIRS70 CSS_PAIRS10(0), CSS_PAIRS10(10), CSS_PAIRS10(20), CSS_PAIRS10(30), CSS_PAIRS10(40),             \
    CSS_PAIRS10(50), CSS_PAIRS10(60)

static void logDictionary(NSMutableString *log, const char *label, NSDictionary *dictionary) {
    [log appendFormat: @"%s=%s <%s>\n", label, css_dictionary_contents(dictionary),
                       dictionary ? object_getClassName(dictionary) : "nil"];
}

static void validObjectsAndKeysCalls(NSMutableString *log) {
    id keys[70], values[70];
    for (int i = 0; i < 70; i++) {
        keys[i] = [NSString stringWithFormat: @"k%02d", i];
        values[i] = [NSNumber numberWithInt: i];
    }
    id none = css_opaque(nil);
    Class classes[2] = { [NSDictionary class], [NSMutableDictionary class] };
    for (int c = 0; c < 2; c++) {
        Class cls = classes[c];
        [log appendFormat: @"-- %s\n", class_getName(cls)];
        logDictionary(log, "empty", [cls dictionaryWithObjectsAndKeys: none]);
        logDictionary(log, "one", [cls dictionaryWithObjectsAndKeys: @"v", @"k", nil]);
        logDictionary(log, "three", [cls dictionaryWithObjectsAndKeys: @"a", @"1", [NSNumber numberWithInt: 2], @"2",
                                                                        [NSNull null], @"3", nil]);
        logDictionary(log, "nilObjectEnds", [cls dictionaryWithObjectsAndKeys: @"v", @"k", none, @"k2", @"w", @"k3", nil]);
        logDictionary(log, "duplicateKey", [cls dictionaryWithObjectsAndKeys: @"first", @"k", @"second", @"k", nil]);
        logDictionary(log, "seventy", [cls dictionaryWithObjectsAndKeys: CSS_PAIRS70, nil]);
        logDictionary(log, "init.empty", CSS_VA_AUTORELEASE([[cls alloc] initWithObjectsAndKeys: none]));
        logDictionary(log, "init.two", CSS_VA_AUTORELEASE([[cls alloc] initWithObjectsAndKeys: @"v", @"k", @"w", @"k2", nil]));
        logDictionary(log, "init.nilObjectEnds", CSS_VA_AUTORELEASE([[cls alloc] initWithObjectsAndKeys: @"v", @"k", none, nil]));
        logDictionary(log, "init.seventy", CSS_VA_AUTORELEASE([[cls alloc] initWithObjectsAndKeys: CSS_PAIRS70, nil]));
    }
    NSMutableDictionary *grown = [NSMutableDictionary dictionaryWithObjectsAndKeys: @"v", @"k", nil];
    [grown setObject: @"w" forKey: @"k2"];
    logDictionary(log, "mutableIsMutable", grown);
}

static void validDefaultsCalls(NSMutableString *log) {
    NSUserDefaults *d = defaults();
    NSString *key = @"CrashShieldVariadicTestKey";
    [d setObject: @"v" forKey: key];
    [log appendFormat: @"defaults.set=%s\n", css_describe([d objectForKey: key])];
    [d setInteger: 7 forKey: key];
    [log appendFormat: @"defaults.setInteger=%ld\n", (long)[d integerForKey: key]];
    [d setObject: css_opaque(nil) forKey: key];   // removes
    [log appendFormat: @"defaults.setNil=%s\n", css_describe([d objectForKey: key])];
    [d setObject: css_opaque(nil) forKey: css_opaque(nil)];   // removes nothing, raises nowhere
    [d removeObjectForKey: key];
    [log appendFormat: @"defaults.removed=%s\n", css_describe([d objectForKey: key])];
}

const char *css_valid_variadic_calls(void) {
    NSMutableString *log = [NSMutableString string];
    validFormatCalls(log);
    validObjectsAndKeysCalls(log);
    validDefaultsCalls(log);
    return [log UTF8String];
}


unsigned long css_test_append_format_long(unsigned long pieces, char *out, unsigned long size) {
    unsigned long length = 0;
    @autoreleasepool {
        NSMutableString *text = [NSMutableString stringWithString: @"<"];
        NSString *piece = [@"" stringByPaddingToLength: 1024 withString: @"0123456789abcdef" startingAtIndex: 0];
        for (unsigned long i = 0; i < pieces; i++) {
            [text appendFormat: @"%lu:%@|%s|%@|%5.2f;", i, piece, "c-string", [NSNumber numberWithUnsignedLong: i * 7],
                                i / 4.0];
        }
        length = [text length];
        snprintf(out, size, "%s", [text UTF8String]);
    }
    return length;
}
