// CSSKVCScenarios.m: key-value coding calls that crash without CrashShield.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

#if __has_feature(objc_arc)
#define CSS_KVC_AUTORELEASE(x) (x)
#define CSS_KVC_RETAIN(x) (x)
#define CSS_KVC_RELEASE(x) ((void)0)
#else
#define CSS_KVC_AUTORELEASE(x) [(x) autorelease]
#define CSS_KVC_RETAIN(x) [(x) retain]
#define CSS_KVC_RELEASE(x) [(x) release]
#endif

/// An app model: an object property and a scalar one, with accessors (KVC finds them by name).
@interface CSSKVCPerson : NSObject {
    NSString *name;
    int age;
}
- (NSString *)name;
- (void)setName:(NSString *)value;
- (int)age;
- (void)setAge:(int)value;
@end

@implementation CSSKVCPerson
- (NSString *)name { return name; }
- (void)setName:(NSString *)value { id old = name; name = CSS_KVC_RETAIN(value); CSS_KVC_RELEASE(old); }
- (int)age { return age; }
- (void)setAge:(int)value { age = value; }
#if !__has_feature(objc_arc)
- (void)dealloc { [name release]; [super dealloc]; }
#endif
@end

/// A class that handles undefined keys itself: its answers must survive the guard.
@interface CSSKVCLenient : NSObject {
    NSString *lastKey;
}
@end

@implementation CSSKVCLenient
- (id)valueForUndefinedKey:(NSString *)key { return [NSString stringWithFormat: @"lenient:%@", key]; }
- (void)setValue:(id)value forUndefinedKey:(NSString *)key {
    id old = lastKey;
    lastKey = CSS_KVC_RETAIN(key);
    CSS_KVC_RELEASE(old);
}
- (void)setNilValueForKey:(NSString *)key { [self setValue: @"nil" forUndefinedKey: key]; }
- (NSString *)lastKey { return lastKey; }
#if !__has_feature(objc_arc)
- (void)dealloc { [lastKey release]; [super dealloc]; }
#endif
@end

/// Overrides valueForUndefinedKey: and calls super for keys it does not know: it asked for NSObject's exception.
@interface CSSKVCStrictOverride : CSSKVCPerson
@end

@implementation CSSKVCStrictOverride
- (id)valueForUndefinedKey:(NSString *)key {
    if ([key isEqual: @"alias"]) return @"known";
    return [super valueForUndefinedKey: key];
}
@end

static CSSKVCPerson *ann(void) {
    CSSKVCPerson *person = CSS_KVC_AUTORELEASE([[CSSKVCPerson alloc] init]);
    [person setName: @"Ann"];
    [person setAge: 30];
    return css_opaque(person);
}

static const char *describePerson(CSSKVCPerson *person) {
    return css_format("%s,%d", [[person name] UTF8String], [person age]);
}

static NSString *nilKey(void) { return css_opaque(nil); }

static const char *setUndefinedKey(void) { CSSKVCPerson *p = ann(); [p setValue: @"x" forKey: @"nickname"]; return describePerson(p); }
static const char *valueUndefinedKey(void) { return css_describe([ann() valueForKey: @"nickname"]); }
static const char *setKeyPathUndefined(void) { CSSKVCPerson *p = ann(); [p setValue: @"x" forKeyPath: @"nickname.first"]; return describePerson(p); }
static const char *valueKeyPathUndefined(void) { return css_describe([ann() valueForKeyPath: @"nickname.first"]); }
static const char *setNilKey(void) { CSSKVCPerson *p = ann(); [p setValue: @"x" forKey: nilKey()]; return describePerson(p); }
static const char *valueNilKey(void) { return css_describe([ann() valueForKey: nilKey()]); }
static const char *valueKeyPathNilKey(void) { return css_describe([ann() valueForKeyPath: nilKey()]); }
static const char *setNilScalar(void) { CSSKVCPerson *p = ann(); [p setValue: css_opaque(nil) forKey: @"age"]; return describePerson(p); }
static const char *setNilScalarKeyPath(void) { CSSKVCPerson *p = ann(); [p setValue: css_opaque(nil) forKeyPath: @"age"]; return describePerson(p); }
static const char *setValuesUnknownKeys(void) {
    CSSKVCPerson *p = ann();
    id keys[3] = { @"name", @"age", @"nickname" };
    id values[3] = { @"Bob", [NSNumber numberWithInt: 41], @"Bobby" };
    // A JSON object with a field the model lacks: the known keys are set, the unknown one is reported.
    [p setValuesForKeysWithDictionary: [NSDictionary dictionaryWithObjects: values forKeys: keys count: 3]];
    return describePerson(p);
}
static const char *dictionaryWithValuesUnknownKey(void) {
    NSDictionary *values = [ann() dictionaryWithValuesForKeys: [NSArray arrayWithObjects: @"name", @"nickname", nil]];
    return css_dictionary_contents(values);
}

static NSArray *annTwice(void) { return css_opaque([NSArray arrayWithObjects: ann(), ann(), ann(), nil]); }
/// GNUstep's -valueForKeyPath: takes a nil path for one with a dot ([nil rangeOfString:] leaves a register's value in
/// the range's length) and evaluates [[self valueForKey:nil] valueForKeyPath:nil]: the element's exception ends it.
static const char *arrayValueKeyPathNil(void) { return css_describe([css_opaque([NSArray arrayWithObject: @"s0"]) valueForKeyPath: nilKey()]); }
/// Every element fails; Foundation's exception ends the call at the first.
static const char *arrayValueUndefinedKey(void) { return css_describe([annTwice() valueForKey: @"nickname"]); }
static const char *arrayUnionOfUndefinedKey(void) { return css_describe([annTwice() valueForKeyPath: @"@unionOfObjects.nickname"]); }
static const char *arraySetUndefinedKey(void) {
    NSArray *people = annTwice();
    [people setValue: @"x" forKey: @"nickname"];
    return describePerson([people objectAtIndex: 2]);
}

static const CSSScenario css_kvc_table[] = {
    { "kvc.setValueForKey.undefinedKey", "kvc", "setValue:forUndefinedKey:", "NSUnknownKeyException", "Ann,30", 1, setUndefinedKey },
    { "kvc.valueForKey.undefinedKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, valueUndefinedKey },
    { "kvc.setValueForKeyPath.undefinedKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "Ann,30", 1, setKeyPathUndefined },
    { "kvc.valueForKeyPath.undefinedKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, valueKeyPathUndefined },
    { "kvc.setValueForKey.nilKey", "kvc", "setValue:forUndefinedKey:", "NSUnknownKeyException", "Ann,30", 1, setNilKey },
    // GNUstep's -valueForKey: copies a nil key into a stack buffer that [nil getCString:...] never fills, so the key
    // in its message is whatever bytes were there: the reason text is undefined, everything else is checked.
    { "kvc.valueForKey.nilKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, valueNilKey, true },
    { "kvc.valueForKeyPath.nilKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, valueKeyPathNilKey, true },
    { "kvc.setValueForKey.nilScalar", "kvc", "setNilValueForKey:", "NSInvalidArgumentException", "Ann,30", 1, setNilScalar },
    { "kvc.setValueForKeyPath.nilScalar", "kvc", "setNilValueForKey:", "NSInvalidArgumentException", "Ann,30", 1, setNilScalarKeyPath },
    { "kvc.setValuesForKeys.unknownKey", "kvc", "setValue:forUndefinedKey:", "NSUnknownKeyException", "Bob,41", 1, setValuesUnknownKeys },
    { "kvc.array.valueForKeyPath.nilKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, arrayValueKeyPathNil, true },
    { "kvc.array.valueForKey.undefinedKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, arrayValueUndefinedKey },
    { "kvc.array.unionOfObjects.undefinedKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "nil", 1, arrayUnionOfUndefinedKey },
    { "kvc.array.setValueForKey.undefinedKey", "kvc", "setValue:forUndefinedKey:", "NSUnknownKeyException", "Ann,30", 1, arraySetUndefinedKey },
    { "kvc.dictionaryWithValuesForKeys.unknownKey", "kvc", "valueForUndefinedKey:", "NSUnknownKeyException", "{name=Ann,nickname=<null>}", 1, dictionaryWithValuesUnknownKey },
};

const CSSScenario *css_kvc_scenarios(int *count) {
    *count = (int)(sizeof css_kvc_table / sizeof css_kvc_table[0]);
    return css_kvc_table;
}

// MARK: Valid KVC calls (the differential test)

static void line(NSMutableString *log, const char *label, id value) {
    [log appendFormat: @"%s=%@\n", label, value ? [value description] : @"nil"];
}

const char *css_valid_kvc_calls(void) {
    NSMutableString *log = [NSMutableString string];
    CSSKVCPerson *p = ann();
    line(log, "valueForKey:name", [p valueForKey: @"name"]);
    line(log, "valueForKey:age", [p valueForKey: @"age"]);
    [p setValue: @"Cy" forKey: @"name"];
    [p setValue: [NSNumber numberWithInt: 7] forKey: @"age"];
    [p setValue: css_opaque(nil) forKey: @"name"];                       // nil for an object property: legal
    line(log, "after sets", [NSString stringWithUTF8String: describePerson(p)]);
    id keys[2] = { @"name", @"age" };
    id values[2] = { @"Di", [NSNull null] };
    [p setValue: [NSNumber numberWithInt: 9] forKey: @"age"];
    [p setValuesForKeysWithDictionary: [NSDictionary dictionaryWithObjects: values forKeys: keys count: 1]];
    line(log, "setValuesForKeysWithDictionary", [NSString stringWithUTF8String: describePerson(p)]);
    line(log, "valueForKeyPath:name.length", [p valueForKeyPath: @"name.length"]);
    [p setName: nil];
    line(log, "valueForKeyPath:through nil", [p valueForKeyPath: @"name.whatever"]);   // nil along the path: nil
    // Dictionaries: valueForKey: is objectForKey:, setValue:nil forKey: removes.
    NSMutableDictionary *d = [NSMutableDictionary dictionary];
    [d setValue: @"v" forKey: @"k"];
    [d setValue: @"w" forKey: @"gone"];
    line(log, "dictionary valueForKey:", [d valueForKey: @"k"]);
    line(log, "dictionary valueForKey:missing", [d valueForKey: @"missing"]);
    line(log, "dictionary valueForKey:nil", [d valueForKey: nilKey()]);
    [d setValue: css_opaque(nil) forKey: @"gone"];
    line(log, "dictionary after setValue:nil", [NSString stringWithUTF8String: css_dictionary_contents(d)]);
    line(log, "dictionary valueForKeyPath:", [[NSDictionary dictionaryWithObject: d forKey: @"inner"] valueForKeyPath: @"inner.k"]);
    line(log, "immutable dictionary valueForKey:", [[NSDictionary dictionaryWithObject: @"x" forKey: @"y"] valueForKey: @"y"]);
    line(log, "array valueForKey:", [[NSArray arrayWithObjects: ann(), ann(), nil] valueForKey: @"name"]);
    // A class that handles undefined keys itself keeps its behaviour.
    CSSKVCLenient *lenient = CSS_KVC_AUTORELEASE([[CSSKVCLenient alloc] init]);
    line(log, "lenient valueForKey:", [lenient valueForKey: @"anything"]);
    [lenient setValue: @"v" forKey: @"unknown"];
    line(log, "lenient setValue:forKey:", [lenient lastKey]);
    line(log, "strict override known", [CSS_KVC_AUTORELEASE([[CSSKVCStrictOverride alloc] init]) valueForKey: @"alias"]);
    return [log UTF8String];
}

const char *css_kvc_lenient_value(const char *key) {
    CSSKVCLenient *lenient = CSS_KVC_AUTORELEASE([[CSSKVCLenient alloc] init]);
    return css_describe([lenient valueForKey: [NSString stringWithUTF8String: key]]);
}

const char *css_kvc_strict_override_value(const char *key) {
    CSSKVCStrictOverride *strict = CSS_KVC_AUTORELEASE([[CSSKVCStrictOverride alloc] init]);
    return css_describe([strict valueForKey: [NSString stringWithUTF8String: key]]);
}

// MARK: Differential probes: classes with their own (pre-10.3) undefined-key handlers, collections of models

/// Handles undefined keys through the older handlers GNUstep's NSObject still calls from `valueForUndefinedKey:`
/// and `setValue:forUndefinedKey:`; Foundation raises nothing for it. Describes itself without its address.
@interface CSSKVCLegacyHandler : NSObject {
    NSString *lastKey;
}
@end

@implementation CSSKVCLegacyHandler
- (id)handleQueryWithUnboundKey:(NSString *)key { return [NSString stringWithFormat: @"legacy:%@", key]; }
- (void)handleTakeValue:(id)value forUnboundKey:(NSString *)key {
    id old = lastKey;
    NSString *entry = [NSString stringWithFormat: @"%@=%@", key, value];
    lastKey = CSS_KVC_RETAIN(entry);
    CSS_KVC_RELEASE(old);
}
- (NSString *)description { return [NSString stringWithFormat: @"legacy(%@)", lastKey]; }
#if !__has_feature(objc_arc)
- (void)dealloc { [lastKey release]; [super dealloc]; }
#endif
@end

/// A model with one property that describes itself without its address (reasons quote it).
@interface CSSKVCModel : NSObject {
    NSString *title;
}
- (NSString *)title;
- (void)setTitle:(NSString *)value;
@end

@implementation CSSKVCModel
- (NSString *)title { return title; }
- (void)setTitle:(NSString *)value { id old = title; title = CSS_KVC_RETAIN(value); CSS_KVC_RELEASE(old); }
- (NSString *)description { return [NSString stringWithFormat: @"model(%@)", title]; }
- (NSComparisonResult)compare:(CSSKVCModel *)other { return [title compare: [other title]]; }
#if !__has_feature(objc_arc)
- (void)dealloc { [title release]; [super dealloc]; }
#endif
@end

static CSSKVCModel *model(NSString *title) {
    CSSKVCModel *m = CSS_KVC_AUTORELEASE([[CSSKVCModel alloc] init]);
    [m setTitle: title];
    return m;
}
static id freshLegacy(void) { return CSS_KVC_AUTORELEASE([[CSSKVCLegacyHandler alloc] init]); }
static id freshModels(void) { return [NSArray arrayWithObjects: model(@"m0"), model(@"m1"), model(@"m2"), nil]; }
/// Alike, so that the first one a set enumerates (the one Foundation names) is described the same in every run.
static id freshModelSet(void) { return [NSSet setWithObjects: model(@"m"), model(@"m"), nil]; }
static id freshModelOrderedSet(void) { return [NSOrderedSet orderedSetWithObjects: model(@"m0"), model(@"m1"), nil]; }

static id pLegacyValue(id o, NSUInteger i) { return [o valueForKey: @"missing"]; }
static id pLegacyValueKeyPath(id o, NSUInteger i) { return [o valueForKeyPath: @"missing.length"]; }
static id pLegacySet(id o, NSUInteger i) { [o setValue: @"v" forKey: @"missing"]; return nil; }
static id pLegacySetKeyPath(id o, NSUInteger i) { [o setValue: @"v" forKeyPath: @"missing"]; return nil; }
static id pValueUndefined(id c, NSUInteger i) { return [c valueForKey: @"nickname"]; }
static id pValueKeyPathUndefined(id c, NSUInteger i) { return [c valueForKeyPath: @"nickname"]; }
static id pValueKeyPathSum(id c, NSUInteger i) { return [c valueForKeyPath: @"@sum.nickname"]; }
static id pValueKeyPathUnion(id c, NSUInteger i) { return [c valueForKeyPath: @"@unionOfObjects.nickname"]; }
static id pSetValueUndefined(id c, NSUInteger i) { [c setValue: @"x" forKey: @"nickname"]; return nil; }

static const CSSProbe css_kvc_probe_table[] = {
    { "kvc.legacyHandler.valueForKey:", -1, freshLegacy, pLegacyValue },
    { "kvc.legacyHandler.valueForKeyPath:", -1, freshLegacy, pLegacyValueKeyPath },
    { "kvc.legacyHandler.setValue:forKey:", -1, freshLegacy, pLegacySet },
    { "kvc.legacyHandler.setValue:forKeyPath:", -1, freshLegacy, pLegacySetKeyPath },
    { "kvc.array.valueForKey:undefined", -1, freshModels, pValueUndefined },
    { "kvc.array.valueForKeyPath:undefined", -1, freshModels, pValueKeyPathUndefined },
    { "kvc.array.valueForKeyPath:@sum.undefined", -1, freshModels, pValueKeyPathSum },
    { "kvc.array.valueForKeyPath:@unionOfObjects.undefined", -1, freshModels, pValueKeyPathUnion },
    { "kvc.array.setValue:forKey:undefined", -1, freshModels, pSetValueUndefined },
    { "kvc.set.valueForKey:undefined", -1, freshModelSet, pValueUndefined },
    { "kvc.set.valueForKeyPath:@sum.undefined", -1, freshModelSet, pValueKeyPathSum },
    { "kvc.set.setValue:forKey:undefined", -1, freshModelSet, pSetValueUndefined },
    { "kvc.orderedSet.valueForKey:undefined", -1, freshModelOrderedSet, pValueUndefined },
    { "kvc.orderedSet.setValue:forKey:undefined", -1, freshModelOrderedSet, pSetValueUndefined },
};

const CSSProbe *css_kvc_probes(int *count) {
    *count = (int)(sizeof css_kvc_probe_table / sizeof css_kvc_probe_table[0]);
    return css_kvc_probe_table;
}
