// CSPFuzzArguments.m: the fuzzer's argument kinds (see CSPFuzz.h): each choice is realized afresh for every run.
#import <Foundation/Foundation.h>
#include "CSPClasses.h"
#include "CSPFuzz.h"

#define CSP_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))

// MARK: Indexes and ranges (relative to the receiver's size)

static const char *const csp_index_names[] = {
    "0", "1", "count-1", "count", "count+1", "NSNotFound", "2^31", "2^32", "2^32+1", "UInt.max",
};

static NSUInteger csp_index_value(uint32_t choice, NSUInteger size) {
    switch (choice) {
    case 0: return 0;
    case 1: return 1;
    case 2: return size - 1;   // UInt.max for an empty receiver
    case 3: return size;
    case 4: return size + 1;
    case 5: return NSNotFound;
    case 6: return (NSUInteger)1 << 31;
    case 7: return (NSUInteger)1 << 32;
    case 8: return ((NSUInteger)1 << 32) + 1;
    default: return NSUIntegerMax;
    }
}

static const char *const csp_location_names[] = {
    "0", "1", "count-1", "count", "count+1", "NSNotFound", "2^32", "2^63", "UInt.max",
};
static const char *const csp_length_names[] = {
    "0", "1", "2", "count", "count+1", "count-location", "2^32", "2^63", "UInt.max", "2^64-location (wraps to 0)",
    "2^64-location+1 (wraps to 1)", "2^64-location+count (wraps to count)",
};

static NSUInteger csp_location_value(uint32_t choice, NSUInteger size) {
    switch (choice) {
    case 6: return (NSUInteger)1 << 32;
    case 7: return (NSUInteger)1 << 63;
    case 8: return NSUIntegerMax;
    default: return csp_index_value(choice, size);   // 0, 1, count-1, count, count+1, NSNotFound: the index choices
    }
}

static NSRange csp_range_value(uint32_t choice, NSUInteger size) {
    uint32_t lengths = CSP_COUNT(csp_length_names);
    NSUInteger location = csp_location_value(choice / lengths, size);
    NSUInteger length;
    switch (choice % lengths) {
    case 0: length = 0; break;
    case 1: length = 1; break;
    case 2: length = 2; break;
    case 3: length = size; break;
    case 4: length = size + 1; break;
    case 5: length = location <= size ? size - location : 0; break;
    case 6: length = (NSUInteger)1 << 32; break;
    case 7: length = (NSUInteger)1 << 63; break;
    case 8: length = NSUIntegerMax; break;
    // location + length passes 2^64 and wraps to exactly 0, 1, count: within what checks made in C's wrapping
    // arithmetic (GNUstep's `NSMaxRange(range) > length`) let through.
    case 9: length = (NSUInteger)0 - location; break;
    case 10: length = (NSUInteger)1 - location; break;
    default: length = size - location; break;
    }
    NSRange range;   // not NSMakeRange: GNUstep's raises for a range whose end overflows, and those are wanted here
    range.location = location;
    range.length = length;
    return range;
}

bool csp_arg_range_value(uint32_t choice, NSUInteger size, NSRange *range) {
    *range = csp_range_value(choice, size);
    return range->location + range->length < range->location;
}

// MARK: Objects

static NSIndexSet *csp_index_set(NSUInteger first, NSUInteger second) {
    NSMutableIndexSet *set = [NSMutableIndexSet indexSet];
    [set addIndex: first];
    if (second != NSNotFound) [set addIndex: second];
    return set;
}

static NSArray *csp_array2(id first, id second) {
    id objects[2] = { first, second };
    return [NSArray arrayWithObjects: objects count: second ? 2 : 1];
}

static NSDictionary *csp_dictionary1(id key, id value) { return [NSDictionary dictionaryWithObject: value forKey: key]; }

static CSPArray *csp_subclass_array(id object) {
    id objects[1] = { object };
    return CSP_AUTORELEASE([[CSPArray alloc] initWithObjects: objects count: 1]);
}

static NSNumber *csp_number(long value) { return [NSNumber numberWithLong: value]; }

static const char *const csp_object_names[] = {
    "nil", "\"x\"", "\"a\" (an element)", "number 7", "NSNull", "a CSPPlain", "array (\"z\")", "dictionary {k=v}",
    "mutable string \"m\"", "a CSPModel",
};

static id csp_object_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return @"x";
    case 2: return @"a";
    case 3: return csp_number(7);
    case 4: return [NSNull null];
    case 5: return CSP_AUTORELEASE([[CSPPlain alloc] init]);
    case 6: return csp_array2(@"z", nil);
    case 7: return csp_dictionary1(@"k", @"v");
    case 8: return [NSMutableString stringWithString: @"m"];
    default: return [CSPModel modelNamed: @"arg" level: 3];
    }
}

static const char *const csp_string_names[] = {
    "nil", "\"\"", "\"lo\"", "\"x\"", "\"é\"", "\"hello\"", "number 7 (not a string)", "NSNull (not a string)",
    "mutable string \"ll\"", "CSPString \"he\"",
};

bool csp_arg_string_is_foreign(uint32_t choice) { return choice == 6 || choice == 7; }

static id csp_string_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return @"";
    case 2: return @"lo";
    case 3: return @"x";
    case 4: return [NSString stringWithUTF8String: "\xc3\xa9"];
    case 5: return @"hello";
    case 6: return csp_number(7);
    case 7: return [NSNull null];
    case 8: return [NSMutableString stringWithString: @"ll"];
    default: return CSP_AUTORELEASE([[CSPString alloc] initWithString: @"he"]);
    }
}

static const char *const csp_array_names[] = {
    "nil", "()", "(\"z\")", "(\"p\",\"q\")", "(\"a\") (an element)", "string \"str\" (not an array)",
    "NSNull (not an array)", "mutable (\"m\")", "CSPArray (\"s\")", "(NSNull)",
};

static id csp_array_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return [NSArray array];
    case 2: return csp_array2(@"z", nil);
    case 3: return csp_array2(@"p", @"q");
    case 4: return csp_array2(@"a", nil);
    case 5: return @"str";
    case 6: return [NSNull null];
    case 7: return [NSMutableArray arrayWithObject: @"m"];
    case 8: return csp_subclass_array(@"s");
    default: return csp_array2([NSNull null], nil);
    }
}

static const char *const csp_index_set_names[] = {
    "nil", "{}", "{0}", "{count-1}", "{count}", "{count,count+1}", "{0..count-1}", "{0,2^32}", "{2^32}",
    "{NSNotFound-1}", "string \"1\" (not an index set)", "array (\"a\") (not an index set)",
};

static id csp_index_set_value(uint32_t choice, NSUInteger size) {
    NSUInteger last = size ? size - 1 : 0;
    switch (choice) {
    case 0: return nil;
    case 1: return [NSIndexSet indexSet];
    case 2: return [NSIndexSet indexSetWithIndex: 0];
    case 3: return [NSIndexSet indexSetWithIndex: last];
    case 4: return [NSIndexSet indexSetWithIndex: size];
    case 5: return csp_index_set(size, size + 1);
    case 6: return [NSIndexSet indexSetWithIndexesInRange: NSMakeRange(0, size)];
    case 7: return csp_index_set(0, (NSUInteger)1 << 32);
    case 8: return [NSIndexSet indexSetWithIndex: (NSUInteger)1 << 32];
    case 9: return [NSIndexSet indexSetWithIndex: NSNotFound - 1];
    case 10: return @"1";
    default: return csp_array2(@"a", nil);
    }
}

static const char *const csp_key_names[] = {
    "nil", "\"k1\" (present)", "\"new\"", "number 7", "NSNull", "mutable string \"k2\"",
    "a CSPPlain (not NSCopying)",
};

static id csp_key_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return @"k1";
    case 2: return @"new";
    case 3: return csp_number(7);
    case 4: return [NSNull null];
    case 5: return [NSMutableString stringWithString: @"k2"];
    default: return CSP_AUTORELEASE([[CSPPlain alloc] init]);
    }
}

static const char *const csp_data_names[] = {
    "nil", "data \"l\"", "data \"\"", "data \"hello\"", "string \"l\" (not a data object)", "NSNull (not a data object)",
    "a keyed archive of [\"a\", 1]", "that archive without its last 8 bytes",
    "bytes 00 01 ae (GNUstep's old serialized format, cut short)",
};

static id csp_data_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return [NSData dataWithBytes: "l" length: 1];
    case 2: return [NSData data];
    case 3: return [NSData dataWithBytes: "hello" length: 5];
    case 4: return @"l";
    case 5: return [NSNull null];
    case 8: return [NSData dataWithBytes: "\0\1\xae" length: 3];
    default: {
        NSArray *array = [NSArray arrayWithObjects: @"a", [NSNumber numberWithInt: 1], nil];
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
        NSData *archive = [NSKeyedArchiver archivedDataWithRootObject: array];
#pragma clang diagnostic pop
        return choice == 6 ? archive : [archive subdataWithRange: NSMakeRange(0, [archive length] - 8)];
    }
    }
}

static const char *const csp_character_set_names[] = {
    "nil", "set \"lo\"", "letters", "empty set", "string \"l\" (not a set)", "NSNull (not a set)",
};

static id csp_character_set_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return [NSCharacterSet characterSetWithCharactersInString: @"lo"];
    case 2: return [NSCharacterSet letterCharacterSet];
    case 3: return [NSCharacterSet characterSetWithCharactersInString: @""];
    case 4: return @"l";
    default: return [NSNull null];
    }
}

static const char *const csp_kvc_keys[] = {
    "name", "level", "child", "items", "nope", "", "child.name", "child.level", "child.nope", "items.@count", "@count",
    "name.length", "items.name", "items.@sum.length", "level.nope", ".", "a..b", "@unknownOperator.x",
};

static id csp_kvc_key_value(uint32_t choice) {
    uint32_t named = CSP_COUNT(csp_kvc_keys);
    if (choice < named) return csp_string(csp_kvc_keys[choice]);
    return choice == named ? nil : (id)csp_number(7);
}

static const char *const csp_kvc_value_names[] = {
    "nil", "\"v\"", "number 9", "NSNull", "array (\"a\")", "a CSPModel", "\"12\"",
};

static id csp_kvc_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return @"v";
    case 2: return csp_number(9);
    case 3: return [NSNull null];
    case 4: return csp_array2(@"a", nil);
    case 5: return [CSPModel modelNamed: @"kid" level: 5];
    default: return @"12";
    }
}

static const char *const csp_kvc_dictionary_names[] = {
    "nil", "{}", "{name=n}", "{level=3}", "{nope=1}", "{name=n,nope=1}", "{level=NSNull}", "string (not a dictionary)",
};

static id csp_kvc_dictionary_value(uint32_t choice) {
    id twoKeys[2] = { @"name", @"nope" };
    id twoValues[2] = { @"n", csp_number(1) };
    switch (choice) {
    case 0: return nil;
    case 1: return [NSDictionary dictionary];
    case 2: return csp_dictionary1(@"name", @"n");
    case 3: return csp_dictionary1(@"level", csp_number(3));
    case 4: return csp_dictionary1(@"nope", csp_number(1));
    case 5: return [NSDictionary dictionaryWithObjects: twoValues forKeys: twoKeys count: 2];
    case 6: return csp_dictionary1(@"level", [NSNull null]);
    default: return @"str";
    }
}

static const char *const csp_key_array_names[] = {
    "nil", "()", "(name)", "(name,nope)", "(level)", "string (not an array)",
};

static id csp_key_array_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return [NSArray array];
    case 2: return csp_array2(@"name", nil);
    case 3: return csp_array2(@"name", @"nope");
    case 4: return csp_array2(@"level", nil);
    default: return @"str";
    }
}

/// Attribute dictionaries are only ever dictionaries: GNUstep's attributed strings copy them while holding their
/// attribute cache's lock, and a non-dictionary raises there and leaves the lock held, so every later attributed
/// string call of the process deadlocks (without CrashShield too). `CSPArgDictionary` adds the wrong types.
static const char *const csp_attributes_names[] = {
    "nil", "{}", "{A=1}", "{B=number 2}", "{A=NSNull}", "string (not a dictionary)", "NSNull",
};
static const uint32_t csp_attribute_dictionaries = 5;

static id csp_attributes_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return [NSDictionary dictionary];
    case 2: return csp_dictionary1(@"A", @"1");
    case 3: return csp_dictionary1(@"B", csp_number(2));
    case 4: return csp_dictionary1(@"A", [NSNull null]);
    case 5: return @"str";
    default: return [NSNull null];
    }
}

static const char *const csp_attribute_name_names[] = { "nil", "\"A\"", "\"B\"", "\"none\"", "number 7" };

static id csp_attribute_name_value(uint32_t choice) {
    switch (choice) {
    case 0: return nil;
    case 1: return @"A";
    case 2: return @"B";
    case 3: return @"none";
    default: return csp_number(7);
    }
}

// MARK: C arrays and C strings

/// Objects (and keys) per choice: "a" marks an object, "-" a nil slot; NULL arrays for the first choice.
static const char *const csp_cobjects_patterns[] = { "NULL", "a", "-", "aaa", "a-a", "-aa", "---", "an" };
static const char *const csp_cpairs_patterns[] = {
    // objects / keys
    "NULL", "a/a", "a/-", "-/a", "aaa/aaa", "aaa/a-a", "aa-/aaa", "-a/-a", "an/aa",
};

static id csp_pattern_object(char mark, NSUInteger i, bool key) {
    if (mark == '-') return nil;
    if (mark == 'n') return [NSNull null];
    static NSString *const objects[] = { @"o0", @"o1", @"o2", @"o3" };
    static NSString *const keys[] = { @"k0", @"k1", @"k2", @"k3" };
    return key ? keys[i] : objects[i];
}

static void csp_realize_cobjects(const char *pattern, CSPArgs *args, bool pairs) {
    if (strcmp(pattern, "NULL") == 0) {
        args->objects = args->keys = NULL;
        args->count = 0;
        return;
    }
    const char *keys = pairs ? strchr(pattern, '/') + 1 : NULL;
    NSUInteger count = pairs ? (NSUInteger)(keys - 1 - pattern) : strlen(pattern);
    for (NSUInteger i = 0; i < count; i++) {
        args->cObjects[i] = csp_pattern_object(pattern[i], i, false);
        if (pairs) args->cKeys[i] = csp_pattern_object(keys[i], i, true);
    }
    args->objects = args->cObjects;
    args->keys = pairs ? args->cKeys : NULL;
    args->count = count;
}

static const char *const csp_cstring_values[] = { NULL, "abc", "", "\xc3\xa9", "\xff\xfe" };
static const char *const csp_cstring_names[] = { "NULL", "\"abc\"", "\"\"", "UTF-8 \"é\"", "invalid UTF-8 FF FE" };

// MARK: The kinds

/// An object-valued kind: its choice names and its value.
static id csp_object_for(CSPArgKind kind, uint32_t choice, NSUInteger size) {
    switch (kind) {
    case CSPArgObject: return csp_object_value(choice);
    case CSPArgString: return csp_string_value(choice);
    case CSPArgArray: return csp_array_value(choice);
    case CSPArgIndexSet: return csp_index_set_value(choice, size);
    case CSPArgKey: return csp_key_value(choice);
    case CSPArgKVCKey: return csp_kvc_key_value(choice);
    case CSPArgKVCValue: return csp_kvc_value(choice);
    case CSPArgKVCDictionary: return csp_kvc_dictionary_value(choice);
    case CSPArgKeyArray: return csp_key_array_value(choice);
    case CSPArgAttributes: case CSPArgDictionary: return csp_attributes_value(choice);
    case CSPArgAttributeName: return csp_attribute_name_value(choice);
    case CSPArgData: return csp_data_value(choice);
    case CSPArgCharacterSet: return csp_character_set_value(choice);
    default: return nil;
    }
}

uint32_t csp_arg_choices(CSPArgKind kind) {
    switch (kind) {
    case CSPArgIndex: return CSP_COUNT(csp_index_names);
    case CSPArgRange: return CSP_COUNT(csp_location_names) * CSP_COUNT(csp_length_names);
    case CSPArgObject: return CSP_COUNT(csp_object_names);
    case CSPArgString: return CSP_COUNT(csp_string_names);
    case CSPArgArray: return CSP_COUNT(csp_array_names);
    case CSPArgIndexSet: return CSP_COUNT(csp_index_set_names);
    case CSPArgKey: return CSP_COUNT(csp_key_names);
    case CSPArgKVCKey: return CSP_COUNT(csp_kvc_keys) + 2;   // + nil, + a number
    case CSPArgKVCValue: return CSP_COUNT(csp_kvc_value_names);
    case CSPArgKVCDictionary: return CSP_COUNT(csp_kvc_dictionary_names);
    case CSPArgKeyArray: return CSP_COUNT(csp_key_array_names);
    case CSPArgAttributes: return csp_attribute_dictionaries;
    case CSPArgDictionary: return CSP_COUNT(csp_attributes_names);
    case CSPArgAttributeName: return CSP_COUNT(csp_attribute_name_names);
    case CSPArgCObjects: return CSP_COUNT(csp_cobjects_patterns);
    case CSPArgCPairs: return CSP_COUNT(csp_cpairs_patterns);
    case CSPArgCString: return CSP_COUNT(csp_cstring_values);
    case CSPArgData: return CSP_COUNT(csp_data_names);
    case CSPArgCharacterSet: return CSP_COUNT(csp_character_set_names);
    default: return 1;
    }
}

void csp_arg_realize(CSPArgKind kind, uint32_t choice, int slot, NSUInteger size, CSPArgs *args, NSMutableArray *keep) {
    switch (kind) {
    case CSPArgNone: return;
    case CSPArgIndex: args->index[slot] = csp_index_value(choice, size); return;
    case CSPArgRange: args->range = csp_range_value(choice, size); return;
    case CSPArgCObjects: csp_realize_cobjects(csp_cobjects_patterns[choice], args, false); return;
    case CSPArgCPairs: csp_realize_cobjects(csp_cpairs_patterns[choice], args, true); return;
    case CSPArgCString: args->cString = csp_cstring_values[choice]; return;
    default: {
        id object = csp_object_for(kind, choice, size);
        if (object) [keep addObject: object];
        args->object[slot] = object;
        return;
    }
    }
}

static const char *csp_choice_name(CSPArgKind kind, uint32_t choice) {
    switch (kind) {
    case CSPArgObject: return csp_object_names[choice];
    case CSPArgString: return csp_string_names[choice];
    case CSPArgArray: return csp_array_names[choice];
    case CSPArgIndexSet: return csp_index_set_names[choice];
    case CSPArgKey: return csp_key_names[choice];
    case CSPArgKVCValue: return csp_kvc_value_names[choice];
    case CSPArgKVCDictionary: return csp_kvc_dictionary_names[choice];
    case CSPArgKeyArray: return csp_key_array_names[choice];
    case CSPArgAttributes: case CSPArgDictionary: return csp_attributes_names[choice];
    case CSPArgAttributeName: return csp_attribute_name_names[choice];
    case CSPArgCString: return csp_cstring_names[choice];
    case CSPArgData: return csp_data_names[choice];
    case CSPArgCharacterSet: return csp_character_set_names[choice];
    default: return NULL;
    }
}

void csp_arg_describe(CSPArgKind kind, uint32_t choice, NSUInteger size, CSPText *text) {
    switch (kind) {
    case CSPArgIndex:
        csp_text_appendf(text, "%s (%lu)", csp_index_names[choice], (unsigned long)csp_index_value(choice, size));
        return;
    case CSPArgRange: {
        NSRange range = csp_range_value(choice, size);
        uint32_t lengths = CSP_COUNT(csp_length_names);
        csp_text_appendf(text, "{%s, %s} = {%lu, %lu}", csp_location_names[choice / lengths], csp_length_names[choice % lengths],
                         (unsigned long)range.location, (unsigned long)range.length);
        return;
    }
    case CSPArgKVCKey: {
        uint32_t named = CSP_COUNT(csp_kvc_keys);
        if (choice < named) csp_text_appendf(text, "@\"%s\"", csp_kvc_keys[choice]);
        else csp_text_append(text, choice == named ? "nil" : "number 7 (not a string)");
        return;
    }
    case CSPArgCObjects:
    case CSPArgCPairs: {
        const char *pattern = kind == CSPArgCObjects ? csp_cobjects_patterns[choice] : csp_cpairs_patterns[choice];
        csp_text_appendf(text, "C arrays %s (a: object, -: nil, n: NSNull)", pattern);
        return;
    }
    default: {
        const char *name = csp_choice_name(kind, choice);
        csp_text_append(text, name ? name : "?");
        return;
    }
    }
}
