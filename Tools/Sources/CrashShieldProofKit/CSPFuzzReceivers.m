// CSPFuzzReceivers.m: every concrete class-cluster member the fuzzer can produce (literal-style constructors,
// alloc/init, copies, mutable copies, empty and single-object forms, the app's own subclasses), plus KVC models,
// NSNull, the objects code confuses with each other, and the classes themselves (for constructors).
#import <Foundation/Foundation.h>
#include "CSPClasses.h"
#include "CSPFuzzReceivers.h"

static NSArray *csp_strings3(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return [NSArray arrayWithObjects: objects count: 3];
}

static NSArray *csp_strings40(void) {
    NSMutableArray *items = [NSMutableArray arrayWithCapacity: 40];
    for (int i = 0; i < 40; i++) [items addObject: [NSString stringWithFormat: @"i%02d", i]];
    return items;
}

static NSDictionary *csp_pairs3(void) {
    id keys[3] = { @"k1", @"k2", @"k3" };
    id values[3] = { @"v1", @"v2", @"v3" };
    return [NSDictionary dictionaryWithObjects: values forKeys: keys count: 3];
}

// MARK: Arrays

static id array_empty(void) { return [NSArray array]; }
static id array_single(void) { return [NSArray arrayWithObject: @"a"]; }
static id array_objects3(void) { return csp_strings3(); }
static id array_init(void) { return CSP_AUTORELEASE([[NSArray alloc] initWithArray: csp_strings3()]); }
static id array_copy(void) { return CSP_AUTORELEASE([[NSMutableArray arrayWithArray: csp_strings3()] copy]); }
static id array_subarray(void) {
    id objects[5] = { @"z", @"a", @"b", @"c", @"y" };
    return [[NSArray arrayWithObjects: objects count: 5] subarrayWithRange: NSMakeRange(1, 3)];
}
static id array_split(void) { return [@"a,b,c" componentsSeparatedByString: @","]; }
static id array_sorted(void) {
    id objects[3] = { @"c", @"a", @"b" };
    return [[NSArray arrayWithObjects: objects count: 3] sortedArrayUsingSelector: @selector(compare:)];
}
static id array_large(void) { return [NSArray arrayWithArray: csp_strings40()]; }
static id array_subclass(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return CSP_AUTORELEASE([[CSPArray alloc] initWithObjects: objects count: 3]);
}
static id array_nulls(void) {
    id objects[2] = { [NSNull null], @"a" };
    return [NSArray arrayWithObjects: objects count: 2];
}

static id marray_empty(void) { return [NSMutableArray array]; }
static id marray_capacity(void) {
    NSMutableArray *array = [NSMutableArray arrayWithCapacity: 8];
    [array addObject: @"a"];
    [array addObject: @"b"];
    return array;
}
static id marray_objects3(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return [NSMutableArray arrayWithObjects: objects count: 3];
}
static id marray_mutable_copy(void) { return CSP_AUTORELEASE([csp_strings3() mutableCopy]); }
static id marray_single(void) { return [NSMutableArray arrayWithObject: @"a"]; }
static id marray_large(void) { return csp_strings40(); }
static id marray_subclass(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return CSP_AUTORELEASE([[CSPMutableArray alloc] initWithObjects: objects count: 3]);
}

// MARK: Dictionaries

static id dict_empty(void) { return [NSDictionary dictionary]; }
static id dict_single(void) { return [NSDictionary dictionaryWithObject: @"v1" forKey: @"k1"]; }
static id dict_objects3(void) { return csp_pairs3(); }
static id dict_init(void) { return CSP_AUTORELEASE([[NSDictionary alloc] initWithDictionary: csp_pairs3()]); }
static id dict_copy(void) { return CSP_AUTORELEASE([[NSMutableDictionary dictionaryWithDictionary: csp_pairs3()] copy]); }
static id dict_subclass(void) {
    id keys[2] = { @"k1", @"k2" };
    id values[2] = { @"v1", @"v2" };
    return CSP_AUTORELEASE([[CSPDictionary alloc] initWithObjects: values forKeys: keys count: 2]);
}

static id mdict_empty(void) { return [NSMutableDictionary dictionary]; }
static id mdict_capacity(void) {
    NSMutableDictionary *dictionary = [NSMutableDictionary dictionaryWithCapacity: 8];
    [dictionary setObject: @"v1" forKey: @"k1"];
    return dictionary;
}
static id mdict_objects3(void) { return [NSMutableDictionary dictionaryWithDictionary: csp_pairs3()]; }
static id mdict_mutable_copy(void) { return CSP_AUTORELEASE([csp_pairs3() mutableCopy]); }
static id mdict_subclass(void) {
    id keys[2] = { @"k1", @"k2" };
    id values[2] = { @"v1", @"v2" };
    return CSP_AUTORELEASE([[CSPMutableDictionary alloc] initWithObjects: values forKeys: keys count: 2]);
}

// MARK: Sets and ordered sets

static id set_empty(void) { return [NSSet set]; }
static id set_single(void) { return [NSSet setWithObject: @"a"]; }
static id set_objects3(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return [NSSet setWithObjects: objects count: 3];
}
static id set_from_array(void) { return [NSSet setWithArray: csp_strings3()]; }
static id set_copy(void) { return CSP_AUTORELEASE([[NSMutableSet setWithArray: csp_strings3()] copy]); }

static id mset_empty(void) { return [NSMutableSet set]; }
static id mset_objects3(void) { return [NSMutableSet setWithArray: csp_strings3()]; }
static id mset_mutable_copy(void) { return CSP_AUTORELEASE([[NSSet setWithArray: csp_strings3()] mutableCopy]); }
static id mset_counted(void) {
    NSCountedSet *set = CSP_AUTORELEASE([[NSCountedSet alloc] initWithArray: csp_strings3()]);
    [set addObject: @"a"];
    return set;
}

static id oset_empty(void) { return [NSOrderedSet orderedSet]; }
static id oset_single(void) { return [NSOrderedSet orderedSetWithObject: @"a"]; }
static id oset_objects3(void) {
    id objects[3] = { @"a", @"b", @"c" };
    return [NSOrderedSet orderedSetWithObjects: objects count: 3];
}
static id oset_from_array(void) { return [NSOrderedSet orderedSetWithArray: csp_strings3()]; }
static id oset_copy(void) { return CSP_AUTORELEASE([[NSMutableOrderedSet orderedSetWithArray: csp_strings3()] copy]); }

static id moset_empty(void) { return [NSMutableOrderedSet orderedSet]; }
static id moset_objects3(void) { return [NSMutableOrderedSet orderedSetWithArray: csp_strings3()]; }
static id moset_mutable_copy(void) { return CSP_AUTORELEASE([[NSOrderedSet orderedSetWithArray: csp_strings3()] mutableCopy]); }
static id moset_capacity(void) {
    NSMutableOrderedSet *set = [NSMutableOrderedSet orderedSetWithCapacity: 8];
    [set addObject: @"a"];
    [set addObject: @"b"];
    return set;
}

// MARK: Strings

static id string_constant(void) { return @"hello"; }
static id string_constant_empty(void) { return @""; }
static id string_utf8(void) { return [NSString stringWithUTF8String: "hello"]; }
static id string_unicode(void) { return [NSString stringWithUTF8String: "h\xc3\xa9llo w\xc3\xb6rld"]; }
static id string_format(void) { return [NSString stringWithFormat: @"%s-%d", "he", 42]; }
static id string_substring(void) { return [[NSString stringWithUTF8String: "xxhelloxx"] substringWithRange: NSMakeRange(2, 5)]; }
static id string_empty(void) { return [NSString string]; }
static id string_copy(void) { return CSP_AUTORELEASE([[NSMutableString stringWithString: @"hello"] copy]); }
static id string_long(void) {
    NSMutableString *text = [NSMutableString string];
    for (int i = 0; i < 10; i++) [text appendString: @"0123456789"];
    return [NSString stringWithString: text];
}
static id string_subclass(void) { return CSP_AUTORELEASE([[CSPString alloc] initWithString: @"hello"]); }
static id string_characters(void) {
    unichar characters[3] = { 0x3b1, 0x3b2, 0x3b3 };
    return [NSString stringWithCharacters: characters length: 3];
}

static id mstring_empty(void) { return [NSMutableString string]; }
static id mstring_with_string(void) { return [NSMutableString stringWithString: @"hello"]; }
static id mstring_mutable_copy(void) { return CSP_AUTORELEASE([@"hello" mutableCopy]); }
static id mstring_capacity(void) {
    NSMutableString *text = [NSMutableString stringWithCapacity: 16];
    [text appendString: @"abc"];
    return text;
}
static id mstring_unicode(void) { return [NSMutableString stringWithUTF8String: "h\xc3\xa9llo"]; }
static id mstring_subclass(void) { return CSP_AUTORELEASE([[CSPMutableString alloc] initWithString: @"hello"]); }

// MARK: Attributed strings

static NSDictionary *csp_attributes(NSString *name, id value) { return [NSDictionary dictionaryWithObject: value forKey: name]; }

static NSMutableAttributedString *csp_runs(void) {
    NSMutableAttributedString *text = CSP_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello world"]);
    [text addAttribute: @"A" value: @"1" range: NSMakeRange(0, 5)];
    [text addAttribute: @"B" value: @"2" range: NSMakeRange(6, 5)];
    return text;
}

static id attr_plain(void) { return CSP_AUTORELEASE([[NSAttributedString alloc] initWithString: @"hello"]); }
static id attr_attributes(void) {
    return CSP_AUTORELEASE([[NSAttributedString alloc] initWithString: @"hello" attributes: csp_attributes(@"A", @"1")]);
}
static id attr_empty(void) { return CSP_AUTORELEASE([[NSAttributedString alloc] initWithString: @""]); }
static id attr_copy(void) { return CSP_AUTORELEASE([csp_runs() copy]); }

static id mattr_plain(void) { return CSP_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello"]); }
static id mattr_runs(void) { return csp_runs(); }
static id mattr_empty(void) { return CSP_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @""]); }
static id mattr_mutable_copy(void) { return CSP_AUTORELEASE([attr_attributes() mutableCopy]); }

// MARK: Data

static id data_empty(void) { return [NSData data]; }
static id data_bytes(void) { return [NSData dataWithBytes: "hello" length: 5]; }
static id data_no_copy(void) { return [NSData dataWithBytesNoCopy: (void *)"hello world" length: 11 freeWhenDone: NO]; }
static id data_subdata(void) { return [[NSData dataWithBytes: "xxhelloxx" length: 9] subdataWithRange: NSMakeRange(2, 5)]; }
static id data_copy(void) { return CSP_AUTORELEASE([[NSMutableData dataWithBytes: "hello" length: 5] copy]); }
static id mdata_empty(void) { return [NSMutableData data]; }
static id number_int(void) { return [NSNumber numberWithInt: 3]; }
static id number_unsigned(void) { return [NSNumber numberWithUnsignedLongLong: ~0ULL]; }
static id number_double(void) { return [NSNumber numberWithDouble: 2.5]; }
static id number_zero_float(void) { return [NSNumber numberWithFloat: 0]; }
static id number_bool(void) { return [NSNumber numberWithBool: YES]; }
static id date_fixed(void) { return [NSDate dateWithTimeIntervalSince1970: 3]; }
static id date_distant_past(void) { return [NSDate distantPast]; }
static id defaults_standard(void) { return [NSUserDefaults standardUserDefaults]; }
static id url_class(void) { return [NSURL class]; }
static id url_web_directory(void) { return [NSURL URLWithString: @"https://example.com/dir/"]; }
static id url_file_directory(void) {
    return [NSURL fileURLWithPath: @"/nonexistent-crashshield-fuzz/dir" isDirectory: YES];
}
static id file_manager_default(void) { return [NSFileManager defaultManager]; }
static id keyed_unarchiver_class(void) { return [NSKeyedUnarchiver class]; }
static id regex_words(void) { return [NSRegularExpression regularExpressionWithPattern: @"[a-z]+" options: 0 error: NULL]; }
static id mdata_bytes(void) { return [NSMutableData dataWithBytes: "hello" length: 5]; }
static id mdata_capacity(void) {
    NSMutableData *data = [NSMutableData dataWithCapacity: 64];
    [data appendBytes: "abc" length: 3];
    return data;
}
static id mdata_mutable_copy(void) { return CSP_AUTORELEASE([[NSData dataWithBytes: "hello world" length: 11] mutableCopy]); }

// MARK: Key-value coding

static CSPModel *csp_model(Class cls) {
    CSPModel *model = CSP_AUTORELEASE([[cls alloc] init]);
    [model setName: @"m"];
    [model setLevel: 1];
    [model setChild: [CSPModel modelNamed: @"c" level: 2]];
    id items[2] = { @"x", @"yy" };
    [model setItems: [NSArray arrayWithObjects: items count: 2]];
    return model;
}

static id kvc_model(void) { return csp_model([CSPModel class]); }
static id kvc_bare(void) { return CSP_AUTORELEASE([[CSPModel alloc] init]); }
static id kvc_lenient(void) { return csp_model([CSPLenientModel class]); }
static id kvc_legacy(void) { return csp_model([CSPLegacyModel class]); }
static id kvc_object(void) { return CSP_AUTORELEASE([[NSObject alloc] init]); }
static id kvc_models(void) {
    id models[2] = { [CSPModel modelNamed: @"p" level: 3], [CSPModel modelNamed: @"q" level: 4] };
    return [NSArray arrayWithObjects: models count: 2];
}
static id kvc_strings(void) {
    id strings[2] = { @"ab", @"c" };
    return [NSArray arrayWithObjects: strings count: 2];
}
static id kvc_dictionary(void) {
    id keys[2] = { @"name", @"level" };
    id values[2] = { @"d", [NSNumber numberWithInt: 4] };
    return [NSDictionary dictionaryWithObjects: values forKeys: keys count: 2];
}
static id kvc_mutable_dictionary(void) { return [NSMutableDictionary dictionaryWithDictionary: kvc_dictionary()]; }
static id kvc_set(void) { return [NSSet setWithArray: kvc_models()]; }
static id kvc_number(void) { return [NSNumber numberWithInt: 5]; }
static id kvc_string(void) { return @"str"; }

// MARK: NSNull and confused types

static id null_null(void) { return [NSNull null]; }
static id conf_number_double(void) { return [NSNumber numberWithDouble: 2.5]; }
static id conf_plain(void) { return CSP_AUTORELEASE([[CSPPlain alloc] init]); }
static id conf_plain_class(void) { return [CSPPlain class]; }
static id conf_string_class(void) { return [NSString class]; }
static id conf_date(void) { return [NSDate dateWithTimeIntervalSince1970: 0]; }
static id conf_data(void) { return [NSData dataWithBytes: "ab" length: 2]; }

// MARK: Classes (constructors)

static id class_array(void) { return [NSArray class]; }
static id class_mutable_array(void) { return [NSMutableArray class]; }
static id class_subclass_array(void) { return [CSPArray class]; }
static id class_subclass_mutable_array(void) { return [CSPMutableArray class]; }
static id class_dictionary(void) { return [NSDictionary class]; }
static id class_mutable_dictionary(void) { return [NSMutableDictionary class]; }
static id class_subclass_dictionary(void) { return [CSPDictionary class]; }
static id class_subclass_mutable_dictionary(void) { return [CSPMutableDictionary class]; }
static id class_set(void) { return [NSSet class]; }
static id class_mutable_set(void) { return [NSMutableSet class]; }
static id class_counted_set(void) { return [NSCountedSet class]; }
static id class_ordered_set(void) { return [NSOrderedSet class]; }
static id class_mutable_ordered_set(void) { return [NSMutableOrderedSet class]; }
static id class_string(void) { return [NSString class]; }
static id class_mutable_string(void) { return [NSMutableString class]; }
static id class_attributed(void) { return [NSAttributedString class]; }
static id class_mutable_attributed(void) { return [NSMutableAttributedString class]; }

enum {
    A = CSPFamilyArray, MA = CSPFamilyArray | CSPFamilyMutableArray,
    D = CSPFamilyDictionary, MD = CSPFamilyDictionary | CSPFamilyMutableDictionary,
    S = CSPFamilySet, MS = CSPFamilySet | CSPFamilyMutableSet,
    O = CSPFamilyOrderedSet, MO = CSPFamilyOrderedSet | CSPFamilyMutableOrderedSet,
    T = CSPFamilyString, MT = CSPFamilyString | CSPFamilyMutableString,
    R = CSPFamilyAttributed, MR = CSPFamilyAttributed | CSPFamilyMutableAttributed,
    DA = CSPFamilyData, MDA = CSPFamilyData | CSPFamilyMutableData,
    K = CSPFamilyKVC, N = CSPFamilyNull, C = CSPFamilyConfused,
};

/// Every receiver kind. `inScope` is false only where the guards must leave a raising call alone by design.
static const CSPReceiverKind csp_receivers[] = {
    { "array.empty", A | C, array_empty, true },
    { "array.single", A, array_single, true },
    { "array.objects3", A | C, array_objects3, true },
    { "array.initWithArray", A, array_init, true },
    { "array.copyOfMutable", A, array_copy, true },
    { "array.subarray", A, array_subarray, true },
    { "array.componentsSeparated", A, array_split, true },
    { "array.sorted", A, array_sorted, true },
    { "array.large40", A, array_large, true },
    { "array.subclass", A, array_subclass, true },
    { "array.withNull", A, array_nulls, true },
    { "marray.empty", MA, marray_empty, true },
    { "marray.capacity", MA, marray_capacity, true },
    { "marray.objects3", MA | C, marray_objects3, true },
    { "marray.mutableCopy", MA, marray_mutable_copy, true },
    { "marray.single", MA, marray_single, true },
    { "marray.large40", MA, marray_large, true },
    { "marray.subclass", MA, marray_subclass, true },
    { "dict.empty", D, dict_empty, true },
    { "dict.single", D, dict_single, true },
    { "dict.objects3", D | C, dict_objects3, true },
    { "dict.initWithDictionary", D, dict_init, true },
    { "dict.copyOfMutable", D, dict_copy, true },
    { "dict.subclass", D, dict_subclass, true },
    { "mdict.empty", MD, mdict_empty, true },
    { "mdict.capacity", MD, mdict_capacity, true },
    { "mdict.objects3", MD | C, mdict_objects3, true },
    { "mdict.mutableCopy", MD, mdict_mutable_copy, true },
    { "mdict.subclass", MD, mdict_subclass, true },
    { "set.empty", S, set_empty, true },
    { "set.single", S, set_single, true },
    { "set.objects3", S, set_objects3, true },
    { "set.fromArray", S, set_from_array, true },
    { "set.copyOfMutable", S, set_copy, true },
    { "mset.empty", MS, mset_empty, true },
    { "mset.objects3", MS, mset_objects3, true },
    { "mset.mutableCopy", MS, mset_mutable_copy, true },
    { "mset.counted", MS, mset_counted, true },
    { "oset.empty", O, oset_empty, true },
    { "oset.single", O, oset_single, true },
    { "oset.objects3", O, oset_objects3, true },
    { "oset.fromArray", O, oset_from_array, true },
    { "oset.copyOfMutable", O, oset_copy, true },
    { "moset.empty", MO, moset_empty, true },
    { "moset.objects3", MO, moset_objects3, true },
    { "moset.mutableCopy", MO, moset_mutable_copy, true },
    { "moset.capacity", MO, moset_capacity, true },
    { "string.constant", T | C, string_constant, true },
    { "string.constantEmpty", T, string_constant_empty, true },
    { "string.utf8", T | C, string_utf8, true },
    { "string.unicode", T, string_unicode, true },
    { "string.format", T, string_format, true },
    { "string.substring", T, string_substring, true },
    { "string.empty", T, string_empty, true },
    { "string.copyOfMutable", T, string_copy, true },
    { "string.long100", T, string_long, true },
    { "string.subclass", T, string_subclass, true },
    { "string.characters", T, string_characters, true },
    { "mstring.empty", MT, mstring_empty, true },
    { "mstring.withString", MT | C, mstring_with_string, true },
    { "mstring.mutableCopy", MT, mstring_mutable_copy, true },
    { "mstring.capacity", MT, mstring_capacity, true },
    { "mstring.unicode", MT, mstring_unicode, true },
    { "mstring.subclass", MT, mstring_subclass, true },
    { "attr.plain", R, attr_plain, true },
    { "attr.attributes", R, attr_attributes, true },
    { "attr.empty", R, attr_empty, true },
    { "attr.copyOfRuns", R, attr_copy, true },
    { "mattr.plain", MR, mattr_plain, true },
    { "mattr.runs", MR, mattr_runs, true },
    { "mattr.empty", MR, mattr_empty, true },
    { "mattr.mutableCopy", MR, mattr_mutable_copy, true },
    { "data.empty", DA, data_empty, true },
    { "data.bytes5", DA, data_bytes, true },
    { "data.noCopy", DA, data_no_copy, true },
    { "data.subdata", DA, data_subdata, true },
    { "data.copyOfMutable", DA, data_copy, true },
    { "mdata.empty", MDA, mdata_empty, true },
    { "mdata.bytes5", MDA, mdata_bytes, true },
    { "mdata.capacity", MDA, mdata_capacity, true },
    { "mdata.mutableCopy", MDA, mdata_mutable_copy, true },
    { "kvc.model", K, kvc_model, true },
    { "kvc.bareModel", K, kvc_bare, true },
    { "kvc.lenientModel", K, kvc_lenient, true },
    { "kvc.legacyModel", K, kvc_legacy, true },
    { "kvc.object", K, kvc_object, true },
    { "kvc.arrayOfModels", K, kvc_models, true },
    { "kvc.arrayOfStrings", K, kvc_strings, true },
    { "kvc.dictionary", K, kvc_dictionary, true },
    { "kvc.mutableDictionary", K, kvc_mutable_dictionary, true },
    { "kvc.setOfModels", K, kvc_set, true },
    { "kvc.number", K | C, kvc_number, true },
    { "kvc.string", K, kvc_string, true },
    { "null", N, null_null, true },
    { "confused.double", C, conf_number_double, true },
    { "confused.appObject", C, conf_plain, true },
    { "confused.appClass", C, conf_plain_class, true },
    { "confused.stringClass", C, conf_string_class, true },
    { "confused.NSObject", C, kvc_object, true },   // a plain NSObject (a placeholder): protected by default
    // Outside the unrecognized-selector guard's default scope: their messages must raise exactly as before.
    { "confused.NSDate", C, conf_date, false },
    { "confused.NSData", C, conf_data, false },
    { "class.NSArray", CSPFamilyArrayClass, class_array, true },
    { "class.NSMutableArray", CSPFamilyArrayClass, class_mutable_array, true },
    { "class.CSPArray", CSPFamilyArrayClass, class_subclass_array, true },
    { "class.CSPMutableArray", CSPFamilyArrayClass, class_subclass_mutable_array, true },
    { "class.NSDictionary", CSPFamilyDictionaryClass, class_dictionary, true },
    { "class.NSMutableDictionary", CSPFamilyDictionaryClass, class_mutable_dictionary, true },
    { "class.CSPDictionary", CSPFamilyDictionaryClass, class_subclass_dictionary, true },
    { "class.CSPMutableDictionary", CSPFamilyDictionaryClass, class_subclass_mutable_dictionary, true },
    { "class.NSSet", CSPFamilySetClass, class_set, true },
    { "class.NSMutableSet", CSPFamilySetClass, class_mutable_set, true },
    { "class.NSCountedSet", CSPFamilySetClass, class_counted_set, true },
    { "class.NSOrderedSet", CSPFamilyOrderedSetClass, class_ordered_set, true },
    { "class.NSMutableOrderedSet", CSPFamilyOrderedSetClass, class_mutable_ordered_set, true },
    { "class.NSString", CSPFamilyStringClass, class_string, true },
    { "class.NSMutableString", CSPFamilyStringClass, class_mutable_string, true },
    { "class.NSAttributedString", CSPFamilyAttributedClass, class_attributed, true },
    { "class.NSMutableAttributedString", CSPFamilyAttributedClass, class_mutable_attributed, true },
    { "number.int", CSPFamilyNumber, number_int, true },
    { "number.unsignedLongLong", CSPFamilyNumber, number_unsigned, true },
    { "number.double", CSPFamilyNumber, number_double, true },
    { "number.zeroFloat", CSPFamilyNumber, number_zero_float, true },
    { "number.bool", CSPFamilyNumber, number_bool, true },
    { "date.fixed", CSPFamilyDate, date_fixed, true },
    { "date.distantPast", CSPFamilyDate, date_distant_past, true },
    { "userDefaults.standard", CSPFamilyUserDefaults, defaults_standard, true },
    { "urlClass", CSPFamilyURLClass, url_class, true },
    { "url.webDirectory", CSPFamilyURL, url_web_directory, true },
    { "url.fileDirectory", CSPFamilyURL, url_file_directory, true },
    { "fileManager.default", CSPFamilyFileManager, file_manager_default, true },
    { "regex.words", CSPFamilyRegex, regex_words, true },
    { "keyedUnarchiverClass", CSPFamilyUnarchiverClass, keyed_unarchiver_class, true },
};

const CSPReceiverKind *csp_receiver_kinds(uint32_t *count) {
    *count = (uint32_t)(sizeof csp_receivers / sizeof csp_receivers[0]);
    return csp_receivers;
}
