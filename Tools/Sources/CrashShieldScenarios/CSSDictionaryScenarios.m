// CSSDictionaryScenarios.m: NSDictionary / NSMutableDictionary calls that crash without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

static NSMutableDictionary *mutableOne(void) {
    return css_opaque([NSMutableDictionary dictionaryWithObject: @"v" forKey: @"k"]);
}

static const char *literalNilValue(void) {
    id missing = css_opaque(nil);
    id keys[3] = { @"k1", @"k2", @"k3" };
    id values[3] = { @"v1", missing, @"v3" };
    // what @{ @"k1": @"v1", @"k2": missing, @"k3": @"v3" } compiles to
    return css_dictionary_contents([NSDictionary dictionaryWithObjects: values forKeys: keys count: 3]);
}
static const char *literalNilKey(void) {
    id missing = css_opaque(nil);
    id keys[2] = { missing, @"k2" };
    id values[2] = { @"v1", @"v2" };
    // what @{ missing: @"v1", @"k2": @"v2" } compiles to
    return css_dictionary_contents([NSDictionary dictionaryWithObjects: values forKeys: keys count: 2]);
}
static const char *dictionaryWithNilObject(void) {
    return css_dictionary_contents([NSDictionary dictionaryWithObject: css_opaque(nil) forKey: @"k"]);
}
static const char *dictionaryWithNilKey(void) {
    return css_dictionary_contents([NSDictionary dictionaryWithObject: @"v" forKey: css_opaque(nil)]);
}
static const char *mutableLiteralNilValue(void) {
    id keys[3] = { @"k1", @"k2", @"k3" };
    id values[3] = { @"v1", css_opaque(nil), @"v3" };
    return css_dictionary_contents([NSMutableDictionary dictionaryWithObjects: values forKeys: keys count: 3]);
}
static const char *objectsForKeysCountMismatch(void) {
    NSArray *objects = css_opaque([NSArray arrayWithObjects: @"a", @"b", nil]);
    NSArray *keys = css_opaque([NSArray arrayWithObject: @"k1"]);
    return css_dictionary_contents([NSDictionary dictionaryWithObjects: objects forKeys: keys]);
}

static const char *setNilValue(void) { NSMutableDictionary *d = mutableOne(); [d setObject: css_opaque(nil) forKey: @"k2"]; return css_dictionary_contents(d); }
static const char *setNilKey(void) { NSMutableDictionary *d = mutableOne(); [d setObject: @"x" forKey: css_opaque(nil)]; return css_dictionary_contents(d); }
static const char *subscriptSetNilKey(void) {
    NSMutableDictionary *d = mutableOne();
    [d setObject: @"x" forKeyedSubscript: css_opaque(nil)];   // d[nil] = x
    return css_dictionary_contents(d);
}
static const char *setValueNilKey(void) { NSMutableDictionary *d = mutableOne(); [d setValue: @"x" forKey: css_opaque(nil)]; return css_dictionary_contents(d); }

static const CSSScenario css_dictionary_table[] = {
    { "dictionary.literal.nilValue", "container", "initWithObjects:forKeys:count:", "NSInvalidArgumentException", "{k1=v1,k3=v3}", 1, literalNilValue },
    { "dictionary.literal.nilKey", "container", "initWithObjects:forKeys:count:", "NSInvalidArgumentException", "{k2=v2}", 1, literalNilKey },
    { "dictionary.dictionaryWithObject.nilValue", "container", "initWithObjects:forKeys:count:", "NSInvalidArgumentException", "{}", 1, dictionaryWithNilObject },
    { "dictionary.dictionaryWithObject.nilKey", "container", "initWithObjects:forKeys:count:", "NSInvalidArgumentException", "{}", 1, dictionaryWithNilKey },
    { "dictionary.objectsForKeys.countMismatch", "container", "initWithObjects:forKeys:", "NSInvalidArgumentException", "{k1=a}", 1, objectsForKeysCountMismatch },
    { "mutableDictionary.literal.nilValue", "container", "initWithObjects:forKeys:count:", "NSInvalidArgumentException", "{k1=v1,k3=v3}", 1, mutableLiteralNilValue },
    { "mutableDictionary.setObjectForKey.nilValue", "container", "setObject:forKey:", "NSInvalidArgumentException", "{k=v}", 1, setNilValue },
    { "mutableDictionary.setObjectForKey.nilKey", "container", "setObject:forKey:", "NSInvalidArgumentException", "{k=v}", 1, setNilKey },
    { "mutableDictionary.subscriptSet.nilKey", "container", "setObject:forKeyedSubscript:", "NSInvalidArgumentException", "{k=v}", 1, subscriptSetNilKey },
    { "mutableDictionary.setValueForKey.nilKey", "container", "setObject:forKey:", "NSInvalidArgumentException", "{k=v}", 1, setValueNilKey },
};

const CSSScenario *css_dictionary_scenarios(int *count) {
    *count = (int)(sizeof css_dictionary_table / sizeof css_dictionary_table[0]);
    return css_dictionary_table;
}
