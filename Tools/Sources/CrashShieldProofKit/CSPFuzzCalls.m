// CSPFuzzCalls.m: the fuzzer's call table. Every method a container, string, KVC, NSNull or unrecognized-selector
// guard hooks, and the Foundation methods that reach them from inside (GNUstep's own convenience code), each made
// from Objective-C exactly as an app makes it, on a fresh receiver, inside @try.
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <string.h>
#include "CSPClasses.h"
#include "CSPFuzz.h"
#include "CSPFuzzReceivers.h"

// MARK: Results (what the caller got, described without addresses)

static void out_object(CSPText *out, id value) { csp_describe(out, value, true); }
static void out_uint(CSPText *out, NSUInteger value) { csp_text_appendf(out, "%lu", (unsigned long)value); }
static void out_int(CSPText *out, long long value) { csp_text_appendf(out, "%lld", value); }
static void out_bool(CSPText *out, BOOL value) { csp_text_append(out, value ? "YES" : "NO"); }
static void out_double(CSPText *out, double value) { csp_text_appendf(out, "%.17g", value); }
static void out_range(CSPText *out, NSRange range) {
    csp_text_appendf(out, "{%lu, %lu}", (unsigned long)range.location, (unsigned long)range.length);
}
static void out_void(CSPText *out) { csp_text_append(out, "void"); }
static void out_cstring(CSPText *out, const char *bytes) {
    if (bytes) csp_text_appendf(out, "C \"%s\"", bytes);
    else csp_text_append(out, "C NULL");
}

/// An out-parameter range starts as this, so a call that does not set it shows.
static const NSRange csp_unset_range = { 77, 77 };

#define CALL(name) static void name(id r, CSPArgs *a, CSPText *out)
#define O0 (a->object[0])
#define O1 (a->object[1])
#define O2 (a->object[2])
#define I0 (a->index[0])
#define I1 (a->index[1])
#define RANGE (a->range)

// MARK: NSArray

CALL(array_objectAtIndex) { out_object(out, [(NSArray *)r objectAtIndex: I0]); }
CALL(array_objectAtIndexedSubscript) { out_object(out, [(NSArray *)r objectAtIndexedSubscript: I0]); }
CALL(array_subarrayWithRange) { out_object(out, [(NSArray *)r subarrayWithRange: RANGE]); }
CALL(array_objectsAtIndexes) { out_object(out, [(NSArray *)r objectsAtIndexes: O0]); }
CALL(array_getObjectsRange) {
    NSUInteger size = [(NSArray *)r count] + 8;
    __unsafe_unretained id *buffer = (__unsafe_unretained id *)calloc(size, sizeof(id));
    for (NSUInteger i = 0; i < size; i++) buffer[i] = @"_";
    @try {
        [(NSArray *)r getObjects: buffer range: RANGE];
        for (NSUInteger i = 0; i < size; i++) { csp_describe(out, buffer[i], false); csp_text_append(out, " "); }
    } @finally {
        free(buffer);
    }
}
CALL(array_arrayByAddingObject) { out_object(out, [(NSArray *)r arrayByAddingObject: O0]); }
CALL(array_arrayByAddingObjectsFromArray) { out_object(out, [(NSArray *)r arrayByAddingObjectsFromArray: O0]); }
CALL(array_indexOfObjectInRange) { out_uint(out, [(NSArray *)r indexOfObject: O0 inRange: RANGE]); }
CALL(array_indexOfObjectIdenticalToInRange) { out_uint(out, [(NSArray *)r indexOfObjectIdenticalTo: O0 inRange: RANGE]); }
CALL(array_containsObject) { out_bool(out, [(NSArray *)r containsObject: O0]); }
CALL(array_indexOfObject) { out_uint(out, [(NSArray *)r indexOfObject: O0]); }
CALL(array_firstObject) { out_object(out, [(NSArray *)r firstObject]); }
CALL(array_lastObject) { out_object(out, [(NSArray *)r lastObject]); }
CALL(array_componentsJoined) { out_object(out, [(NSArray *)r componentsJoinedByString: O0]); }
CALL(array_isEqualToArray) { out_bool(out, [(NSArray *)r isEqualToArray: O0]); }

// MARK: NSMutableArray

CALL(marray_addObject) { [(NSMutableArray *)r addObject: O0]; out_void(out); }
CALL(marray_insertObjectAtIndex) { [(NSMutableArray *)r insertObject: O0 atIndex: I1]; out_void(out); }
CALL(marray_removeObjectAtIndex) { [(NSMutableArray *)r removeObjectAtIndex: I0]; out_void(out); }
CALL(marray_replaceObjectAtIndex) { [(NSMutableArray *)r replaceObjectAtIndex: I0 withObject: O1]; out_void(out); }
CALL(marray_removeObjectsInRange) { [(NSMutableArray *)r removeObjectsInRange: RANGE]; out_void(out); }
CALL(marray_exchange) { [(NSMutableArray *)r exchangeObjectAtIndex: I0 withObjectAtIndex: I1]; out_void(out); }
CALL(marray_setObjectAtIndexedSubscript) { [(NSMutableArray *)r setObject: O0 atIndexedSubscript: I1]; out_void(out); }
CALL(marray_insertObjectsAtIndexes) { [(NSMutableArray *)r insertObjects: O0 atIndexes: O1]; out_void(out); }
CALL(marray_removeObjectsAtIndexes) { [(NSMutableArray *)r removeObjectsAtIndexes: O0]; out_void(out); }
CALL(marray_replaceObjectsInRange) { [(NSMutableArray *)r replaceObjectsInRange: RANGE withObjectsFromArray: O1]; out_void(out); }
CALL(marray_replaceObjectsAtIndexes) { [(NSMutableArray *)r replaceObjectsAtIndexes: O0 withObjects: O1]; out_void(out); }
CALL(marray_removeLastObject) { [(NSMutableArray *)r removeLastObject]; out_void(out); }
CALL(marray_addObjectsFromArray) { [(NSMutableArray *)r addObjectsFromArray: O0]; out_void(out); }
CALL(marray_removeObject) { [(NSMutableArray *)r removeObject: O0]; out_void(out); }
CALL(marray_removeObjectInRange) { [(NSMutableArray *)r removeObject: O0 inRange: RANGE]; out_void(out); }
CALL(marray_removeObjectsInArray) { [(NSMutableArray *)r removeObjectsInArray: O0]; out_void(out); }
CALL(marray_setArray) { [(NSMutableArray *)r setArray: O0]; out_void(out); }
CALL(marray_removeAllObjects) { [(NSMutableArray *)r removeAllObjects]; out_void(out); }
CALL(marray_sortUsingSelector) { [(NSMutableArray *)r sortUsingSelector: @selector(compare:)]; out_void(out); }

// MARK: Array constructors (receiver: the class)

CALL(arrayc_withObjectsCount) { out_object(out, [(Class)r arrayWithObjects: a->objects count: a->count]); }
CALL(arrayc_withObject) { out_object(out, [(Class)r arrayWithObject: O0]); }
CALL(arrayc_withArray) { out_object(out, [(Class)r arrayWithArray: O0]); }
CALL(arrayc_initWithObjectsCount) {
    out_object(out, CSP_AUTORELEASE([[(Class)r alloc] initWithObjects: a->objects count: a->count]));
}
CALL(arrayc_initWithArray) { out_object(out, CSP_AUTORELEASE([(NSArray *)[(Class)r alloc] initWithArray: O0])); }

// MARK: NSDictionary and NSMutableDictionary

CALL(dict_objectForKey) { out_object(out, [(NSDictionary *)r objectForKey: O0]); }
CALL(dict_objectForKeyedSubscript) { out_object(out, [(NSDictionary *)r objectForKeyedSubscript: O0]); }
CALL(dict_allKeysForObject) { out_object(out, [[(NSDictionary *)r allKeysForObject: O0] sortedArrayUsingSelector: @selector(compare:)]); }
CALL(dict_objectsForKeys) { out_object(out, [(NSDictionary *)r objectsForKeys: O0 notFoundMarker: O1]); }

CALL(mdict_setObjectForKey) { [(NSMutableDictionary *)r setObject: O0 forKey: O1]; out_void(out); }
CALL(mdict_setObjectForKeyedSubscript) { [(NSMutableDictionary *)r setObject: O0 forKeyedSubscript: O1]; out_void(out); }
CALL(mdict_removeObjectForKey) { [(NSMutableDictionary *)r removeObjectForKey: O0]; out_void(out); }
CALL(mdict_setValueForKey) { [(NSMutableDictionary *)r setValue: O0 forKey: O1]; out_void(out); }
CALL(mdict_addEntries) { [(NSMutableDictionary *)r addEntriesFromDictionary: O0]; out_void(out); }
CALL(mdict_removeObjectsForKeys) { [(NSMutableDictionary *)r removeObjectsForKeys: O0]; out_void(out); }
CALL(mdict_setDictionary) { [(NSMutableDictionary *)r setDictionary: O0]; out_void(out); }
CALL(mdict_removeAllObjects) { [(NSMutableDictionary *)r removeAllObjects]; out_void(out); }

CALL(dictc_withObjectsForKeysCount) {
    out_object(out, [(Class)r dictionaryWithObjects: a->objects forKeys: (__unsafe_unretained id<NSCopying> *)a->keys count: a->count]);
}
CALL(dictc_withObjectForKey) { out_object(out, [(Class)r dictionaryWithObject: O0 forKey: O1]); }
CALL(dictc_withObjectsForKeys) { out_object(out, [(Class)r dictionaryWithObjects: O0 forKeys: O1]); }
CALL(dictc_initWithObjectsForKeysCount) {
    out_object(out, CSP_AUTORELEASE([(NSDictionary *)[(Class)r alloc] initWithObjects: a->objects
                                                                               forKeys: (__unsafe_unretained id<NSCopying> *)a->keys
                                                                                 count: a->count]));
}
CALL(dictc_withDictionary) { out_object(out, [(Class)r dictionaryWithDictionary: O0]); }

// MARK: NSSet, NSMutableSet

CALL(set_containsObject) { out_bool(out, [(NSSet *)r containsObject: O0]); }
CALL(set_member) { out_object(out, [(NSSet *)r member: O0]); }
CALL(set_setByAddingObject) { out_object(out, [(NSSet *)r setByAddingObject: O0]); }
CALL(set_setByAddingObjectsFromArray) { out_object(out, [(NSSet *)r setByAddingObjectsFromArray: O0]); }
CALL(set_anyObject) { out_object(out, [(NSSet *)r anyObject]); }

CALL(mset_addObject) { [(NSMutableSet *)r addObject: O0]; out_void(out); }
CALL(mset_removeObject) { [(NSMutableSet *)r removeObject: O0]; out_void(out); }
CALL(mset_addObjectsFromArray) { [(NSMutableSet *)r addObjectsFromArray: O0]; out_void(out); }
CALL(mset_unionSet) { [(NSMutableSet *)r unionSet: O0]; out_void(out); }
CALL(mset_minusSet) { [(NSMutableSet *)r minusSet: O0]; out_void(out); }
CALL(mset_intersectSet) { [(NSMutableSet *)r intersectSet: O0]; out_void(out); }
CALL(mset_setSet) { [(NSMutableSet *)r setSet: O0]; out_void(out); }
CALL(mset_removeAllObjects) { [(NSMutableSet *)r removeAllObjects]; out_void(out); }

CALL(setc_withObjectsCount) { out_object(out, [(Class)r setWithObjects: a->objects count: a->count]); }
CALL(setc_withObject) { out_object(out, [(Class)r setWithObject: O0]); }
CALL(setc_withArray) { out_object(out, [(Class)r setWithArray: O0]); }
CALL(setc_initWithObjectsCount) {
    out_object(out, CSP_AUTORELEASE([(NSSet *)[(Class)r alloc] initWithObjects: a->objects count: a->count]));
}

// MARK: NSOrderedSet, NSMutableOrderedSet

CALL(oset_objectAtIndex) { out_object(out, [(NSOrderedSet *)r objectAtIndex: I0]); }
CALL(oset_objectAtIndexedSubscript) { out_object(out, [(NSOrderedSet *)r objectAtIndexedSubscript: I0]); }
CALL(oset_objectsAtIndexes) { out_object(out, [(NSOrderedSet *)r objectsAtIndexes: O0]); }
CALL(oset_indexOfObject) { out_uint(out, [(NSOrderedSet *)r indexOfObject: O0]); }
CALL(oset_getObjectsRange) {
    NSUInteger size = [(NSOrderedSet *)r count] + 8;
    __unsafe_unretained id *buffer = (__unsafe_unretained id *)calloc(size, sizeof(id));
    for (NSUInteger i = 0; i < size; i++) buffer[i] = @"_";
    @try {
        [(NSOrderedSet *)r getObjects: buffer range: RANGE];
        for (NSUInteger i = 0; i < size; i++) { csp_describe(out, buffer[i], false); csp_text_append(out, " "); }
    } @finally {
        free(buffer);
    }
}
CALL(oset_containsObject) { out_bool(out, [(NSOrderedSet *)r containsObject: O0]); }
CALL(oset_firstObject) { out_object(out, [(NSOrderedSet *)r firstObject]); }
CALL(oset_lastObject) { out_object(out, [(NSOrderedSet *)r lastObject]); }
CALL(oset_array) { out_object(out, [(NSOrderedSet *)r array]); }

CALL(moset_addObject) { [(NSMutableOrderedSet *)r addObject: O0]; out_void(out); }
CALL(moset_insertObjectAtIndex) { [(NSMutableOrderedSet *)r insertObject: O0 atIndex: I1]; out_void(out); }
CALL(moset_removeObjectAtIndex) { [(NSMutableOrderedSet *)r removeObjectAtIndex: I0]; out_void(out); }
CALL(moset_replaceObjectAtIndex) { [(NSMutableOrderedSet *)r replaceObjectAtIndex: I0 withObject: O1]; out_void(out); }
CALL(moset_setObjectAtIndexedSubscript) { [(NSMutableOrderedSet *)r setObject: O0 atIndexedSubscript: I1]; out_void(out); }
CALL(moset_exchange) { [(NSMutableOrderedSet *)r exchangeObjectAtIndex: I0 withObjectAtIndex: I1]; out_void(out); }
CALL(moset_removeObject) { [(NSMutableOrderedSet *)r removeObject: O0]; out_void(out); }
CALL(moset_addObjectsFromArray) { [(NSMutableOrderedSet *)r addObjectsFromArray: O0]; out_void(out); }
CALL(moset_removeObjectsAtIndexes) { [(NSMutableOrderedSet *)r removeObjectsAtIndexes: O0]; out_void(out); }
CALL(moset_insertObjectsAtIndexes) { [(NSMutableOrderedSet *)r insertObjects: O0 atIndexes: O1]; out_void(out); }
CALL(moset_removeObjectsInRange) { [(NSMutableOrderedSet *)r removeObjectsInRange: RANGE]; out_void(out); }
CALL(moset_moveObjectsAtIndexes) { [(NSMutableOrderedSet *)r moveObjectsAtIndexes: O0 toIndex: I1]; out_void(out); }
CALL(moset_removeAllObjects) { [(NSMutableOrderedSet *)r removeAllObjects]; out_void(out); }

CALL(osetc_withObjectsCount) { out_object(out, [(Class)r orderedSetWithObjects: a->objects count: a->count]); }
CALL(osetc_withObject) { out_object(out, [(Class)r orderedSetWithObject: O0]); }
CALL(osetc_withArray) { out_object(out, [(Class)r orderedSetWithArray: O0]); }
CALL(osetc_initWithObjectsCount) {
    out_object(out, CSP_AUTORELEASE([(NSOrderedSet *)[(Class)r alloc] initWithObjects: a->objects count: a->count]));
}

// MARK: NSString, NSMutableString

CALL(string_characterAtIndex) { out_uint(out, [(NSString *)r characterAtIndex: I0]); }
CALL(string_substringFromIndex) { out_object(out, [(NSString *)r substringFromIndex: I0]); }
CALL(string_substringToIndex) { out_object(out, [(NSString *)r substringToIndex: I0]); }
CALL(string_substringWithRange) { out_object(out, [(NSString *)r substringWithRange: RANGE]); }
CALL(string_rangeOfString) { out_range(out, [(NSString *)r rangeOfString: O0]); }
CALL(string_hasPrefix) { out_bool(out, [(NSString *)r hasPrefix: O0]); }
CALL(string_hasSuffix) { out_bool(out, [(NSString *)r hasSuffix: O0]); }
CALL(string_rangeOfStringOptionsRange) { out_range(out, [(NSString *)r rangeOfString: O0 options: 0 range: RANGE]); }
CALL(string_getCharactersRange) {
    NSUInteger size = [(NSString *)r length] + 8;
    unichar *buffer = calloc(size, sizeof(unichar));
    for (NSUInteger i = 0; i < size; i++) buffer[i] = 0xFFFF;
    @try {
        [(NSString *)r getCharacters: buffer range: RANGE];
        for (NSUInteger i = 0; i < size; i++) csp_text_appendf(out, "%04x ", buffer[i]);
    } @finally {
        free(buffer);
    }
}
CALL(string_byAppending) { out_object(out, [(NSString *)r stringByAppendingString: O0]); }
CALL(string_isEqualToString) { out_bool(out, [(NSString *)r isEqualToString: O0]); }
CALL(string_byReplacingOccurrences) {
    out_object(out, [(NSString *)r stringByReplacingOccurrencesOfString: O0 withString: O1]);
}
CALL(string_byReplacingOccurrencesRange) {
    out_object(out, [(NSString *)r stringByReplacingOccurrencesOfString: O0 withString: O1 options: NSBackwardsSearch range: RANGE]);
}
CALL(string_componentsSeparated) { out_object(out, [(NSString *)r componentsSeparatedByString: O0]); }
CALL(string_lineRangeForRange) { out_range(out, [(NSString *)r lineRangeForRange: RANGE]); }
CALL(string_composedRange) { out_range(out, [(NSString *)r rangeOfComposedCharacterSequenceAtIndex: I0]); }
CALL(string_byReplacingCharactersInRange) {
    out_object(out, [(NSString *)r stringByReplacingCharactersInRange: RANGE withString: O1]);
}
CALL(string_compare) { out_int(out, [(NSString *)r compare: O0]); }
CALL(string_rangeOfStringOptions) {
    out_range(out, [(NSString *)r rangeOfString: O0 options: NSCaseInsensitiveSearch | NSBackwardsSearch]);
}
CALL(string_rangeOfStringAnchored) {
    out_range(out, [(NSString *)r rangeOfString: O0 options: NSAnchoredSearch | NSBackwardsSearch | NSLiteralSearch range: RANGE]);
}
CALL(string_rangeOfStringLocale) { out_range(out, [(NSString *)r rangeOfString: O0 options: NSCaseInsensitiveSearch range: RANGE locale: nil]); }
CALL(string_compareOptionsRange) { out_int(out, [(NSString *)r compare: O0 options: NSCaseInsensitiveSearch range: RANGE]); }
CALL(string_compareNumeric) { out_int(out, [(NSString *)r compare: O0 options: NSNumericSearch range: RANGE]); }
CALL(string_compareLocale) { out_int(out, [(NSString *)r compare: O0 options: 0 range: RANGE locale: nil]); }
CALL(string_rangeOfCharacter) { out_range(out, [(NSString *)r rangeOfCharacterFromSet: O0]); }
CALL(string_rangeOfCharacterRange) { out_range(out, [(NSString *)r rangeOfCharacterFromSet: O0 options: 0 range: RANGE]); }
CALL(string_rangeOfCharacterBackwards) {
    out_range(out, [(NSString *)r rangeOfCharacterFromSet: O0 options: NSBackwardsSearch range: RANGE]);
}
CALL(string_paragraphRangeForRange) { out_range(out, [(NSString *)r paragraphRangeForRange: RANGE]); }
CALL(string_getLineStart) {
    NSUInteger start = 77, end = 77, contentsEnd = 77;
    [(NSString *)r getLineStart: &start end: &end contentsEnd: &contentsEnd forRange: RANGE];
    csp_text_appendf(out, "%lu %lu %lu", (unsigned long)start, (unsigned long)end, (unsigned long)contentsEnd);
}
CALL(string_getParagraphStart) {
    NSUInteger start = 77, end = 77;
    [(NSString *)r getParagraphStart: &start end: &end contentsEnd: NULL forRange: RANGE];
    csp_text_appendf(out, "%lu %lu", (unsigned long)start, (unsigned long)end);
}
CALL(string_commonPrefix) { out_object(out, [(NSString *)r commonPrefixWithString: O0 options: 0]); }

CALL(mstring_insertStringAtIndex) { [(NSMutableString *)r insertString: O0 atIndex: I1]; out_void(out); }
CALL(mstring_replaceCharactersInRange) { [(NSMutableString *)r replaceCharactersInRange: RANGE withString: O1]; out_void(out); }
CALL(mstring_deleteCharactersInRange) { [(NSMutableString *)r deleteCharactersInRange: RANGE]; out_void(out); }
CALL(mstring_appendString) { [(NSMutableString *)r appendString: O0]; out_void(out); }
CALL(mstring_setString) { [(NSMutableString *)r setString: O0]; out_void(out); }
CALL(mstring_replaceOccurrences) {
    out_uint(out, [(NSMutableString *)r replaceOccurrencesOfString: O0 withString: O1 options: 0 range: RANGE]);
}
CALL(mstring_appendFormat) { [(NSMutableString *)r appendFormat: @"<%@>", O0]; out_void(out); }

CALL(stringc_withString) { out_object(out, [(Class)r stringWithString: O0]); }
CALL(stringc_withUTF8String) { out_object(out, [(Class)r stringWithUTF8String: a->cString]); }
CALL(stringc_initWithString) { out_object(out, CSP_AUTORELEASE([(NSString *)[(Class)r alloc] initWithString: O0])); }
CALL(stringc_initWithUTF8String) {
    out_object(out, CSP_AUTORELEASE([(NSString *)[(Class)r alloc] initWithUTF8String: a->cString]));
}
CALL(stringc_withCStringEncoding) { out_object(out, [(Class)r stringWithCString: a->cString encoding: NSISOLatin1StringEncoding]); }
CALL(stringc_initWithCStringEncoding) {
    out_object(out, CSP_AUTORELEASE([(NSString *)[(Class)r alloc] initWithCString: a->cString encoding: NSASCIIStringEncoding]));
}
/// NULL bytes with a length of 3 (GNUstep's GSMutableString reads them for a byte order mark in UTF-8 and UTF-16, a
/// crash without CrashShield too: ASCII and Latin-1 only here, the crash matrix has the other).
static void csp_init_with_bytes(id r, CSPArgs *a, CSPText *out, NSStringEncoding encoding) {
    NSUInteger length = a->cString ? strlen(a->cString) : 3;
    out_object(out, CSP_AUTORELEASE([(NSString *)[(Class)r alloc] initWithBytes: a->cString length: length encoding: encoding]));
}
CALL(stringc_initWithBytesASCII) { csp_init_with_bytes(r, a, out, NSASCIIStringEncoding); }
CALL(stringc_initWithBytesLatin1) { csp_init_with_bytes(r, a, out, NSISOLatin1StringEncoding); }
/// A new data object of the receiver's class from Base64 (a string or the string's UTF-8 data).
CALL(data_initWithBase64String) {
    out_object(out, CSP_AUTORELEASE([[[(id)r class] alloc] initWithBase64EncodedString: O0 options: 0]));
}
CALL(data_initWithBase64Data) {
    NSData *data = [O0 respondsToSelector: @selector(dataUsingEncoding:)] ? [O0 dataUsingEncoding: NSUTF8StringEncoding] : O0;
    out_object(out, CSP_AUTORELEASE([[[(id)r class] alloc] initWithBase64EncodedData: data options: 0]));
}
CALL(number_compare) { out_int(out, [(NSNumber *)r compare: O0]); }
CALL(number_isEqualToNumber) { out_bool(out, [(NSNumber *)r isEqualToNumber: O0]); }
CALL(date_compare) { out_int(out, [(NSDate *)r compare: O0]); }
/// The value stored under a key that held "kept": what the key holds after (the key removed again), so a skipped
/// write shows as "kept".
CALL(defaults_setObjectForKey) {
    NSUserDefaults *defaults = r;
    [defaults setObject: @"kept" forKey: @"CSPFuzzDefaultsKey"];
    [defaults setObject: O0 forKey: @"CSPFuzzDefaultsKey"];
    out_object(out, [defaults objectForKey: @"CSPFuzzDefaultsKey"]);
    [defaults removeObjectForKey: @"CSPFuzzDefaultsKey"];
}
/// A value wrapped in an array and a dictionary: the check walks into containers.
CALL(defaults_setNestedObjectForKey) {
    NSUserDefaults *defaults = r;
    id nested = O0 ? [NSArray arrayWithObjects: @"x", [NSDictionary dictionaryWithObject: O0 forKey: @"k"], nil] : nil;
    [defaults setObject: @"kept" forKey: @"CSPFuzzDefaultsKey"];
    [defaults setObject: nested forKey: @"CSPFuzzDefaultsKey"];
    out_object(out, [defaults objectForKey: @"CSPFuzzDefaultsKey"]);
    [defaults removeObjectForKey: @"CSPFuzzDefaultsKey"];
}
CALL(urlc_fileURLWithPath) { out_object(out, [[(Class)r fileURLWithPath: O0] absoluteString]); }
CALL(urlc_fileURLWithPathIsDirectory) { out_object(out, [[(Class)r fileURLWithPath: O0 isDirectory: YES] absoluteString]); }
CALL(urlc_initFileURLWithPath) { out_object(out, [CSP_AUTORELEASE([[(Class)r alloc] initFileURLWithPath: O0]) absoluteString]); }
// NSURL, NSFileManager and NSRegularExpression: guarded under Apple's rules only (GNUstep raises for none of their
// nil arguments), so here both runs must agree exactly; on Apple the hooks stop the nil and past-the-end calls.
/// A string argument as these methods take it: nil and strings as they are, any other object as a string (GNUstep's
/// ICU bridge reads an object that is not a string as one: a crash, not a precondition).
static id csp_string_or_nil(id object) {
    return object == nil || [object isKindOfClass: [NSString class]] ? object : [object description];
}
/// A path inside a directory that does not exist: nothing on disk is ever moved or copied (".." cannot climb out of a
/// directory that is not there).
static id csp_missing_path(id object) {
    id string = csp_string_or_nil(object);
    return string ? [@"/nonexistent-crashshield-fuzz" stringByAppendingPathComponent: string] : nil;
}
static id csp_missing_url(id object) {
    id path = csp_missing_path(object);
    return path ? [NSURL fileURLWithPath: path] : nil;
}
static void out_file_result(CSPText *out, BOOL ok, NSError *error) {
    csp_text_appendf(out, "%s error=%s %ld", ok ? "YES" : "NO", error ? [[error domain] UTF8String] : "none",
                     error ? (long)[error code] : 0L);
}
CALL(url_appendingPathComponent) { out_object(out, [(NSURL *)r URLByAppendingPathComponent: csp_string_or_nil(O0)]); }
CALL(url_appendingPathComponentIsDirectory) {
    out_object(out, [(NSURL *)r URLByAppendingPathComponent: csp_string_or_nil(O0) isDirectory: YES]);
}
CALL(urlc_initWithStringRelativeToURL) {
    NSURL *base = [NSURL URLWithString: @"https://example.com/dir/"];
    out_object(out, [CSP_AUTORELEASE([[(Class)r alloc] initWithString: csp_string_or_nil(O0) relativeToURL: base]) absoluteString]);
}
CALL(urlc_initWithString) {
    out_object(out, [CSP_AUTORELEASE([[(Class)r alloc] initWithString: csp_string_or_nil(O0)]) absoluteString]);
}
/// The receiver (a string) as a predicate format, as an app pastes user input into one; then with the array argument.
CALL(predicate_withFormat) { out_object(out, [[NSPredicate predicateWithFormat: r] predicateFormat]); }
CALL(predicate_withFormatArgumentArray) {
    NSArray *arguments = [O0 isKindOfClass: [NSArray class]] ? O0 : nil;
    out_object(out, [[NSPredicate predicateWithFormat: r argumentArray: arguments] predicateFormat]);
}
/// What unarchiving the data argument gave (deprecated on Apple, and still what apps call).
CALL(unarchiver_unarchiveObjectWithData) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    out_object(out, [(Class)r unarchiveObjectWithData: O0]);
#pragma clang diagnostic pop
}
/// A new unarchiver of the data argument, and the root object it decodes.
CALL(unarchiver_initForReadingWithData) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    NSKeyedUnarchiver *unarchiver = CSP_AUTORELEASE([[(Class)r alloc] initForReadingWithData: O0]);
#pragma clang diagnostic pop
    out_object(out, [unarchiver decodeObjectForKey: @"root"]);
}
CALL(fm_movePath) {
    NSError *error = nil;
    out_file_result(out, [(NSFileManager *)r moveItemAtPath: csp_missing_path(O0) toPath: csp_missing_path(O1) error: &error], error);
}
CALL(fm_copyPath) {
    NSError *error = nil;
    out_file_result(out, [(NSFileManager *)r copyItemAtPath: csp_missing_path(O0) toPath: csp_missing_path(O1) error: &error], error);
}
CALL(fm_moveURL) {
    NSError *error = nil;
    out_file_result(out, [(NSFileManager *)r moveItemAtURL: csp_missing_url(O0) toURL: csp_missing_url(O1) error: &error], error);
}
CALL(fm_copyURL) {
    out_bool(out, [(NSFileManager *)r copyItemAtURL: csp_missing_url(O0) toURL: csp_missing_url(O1) error: NULL]);
}
CALL(fm_enumeratorAtURL) {
    id enumerator = [(NSFileManager *)r enumeratorAtURL: csp_missing_url(O0) includingPropertiesForKeys: nil options: 0
                                           errorHandler: NULL];
    out_object(out, [enumerator nextObject]);
}
static NSRegularExpression *csp_regex(void) {
    return [NSRegularExpression regularExpressionWithPattern: @"[a-z]+" options: 0 error: NULL];
}
/// The string receiver searched with a range of the fuzzer's (Apple's conveniences reach the primitive).
CALL(regex_matchesInString) { out_uint(out, [[csp_regex() matchesInString: r options: 0 range: RANGE] count]); }
CALL(regex_numberOfMatches) { out_uint(out, [csp_regex() numberOfMatchesInString: r options: 0 range: RANGE]); }
CALL(regex_firstMatch) { out_range(out, [[csp_regex() firstMatchInString: r options: 0 range: RANGE] range]); }
CALL(regex_rangeOfFirstMatch) { out_range(out, [csp_regex() rangeOfFirstMatchInString: r options: 0 range: RANGE]); }
CALL(regex_replacing) {
    out_object(out, [csp_regex() stringByReplacingMatchesInString: r options: 0 range: RANGE
                                                      withTemplate: csp_string_or_nil(O0)]);
}
CALL(regex_replace) {
    out_uint(out, [csp_regex() replaceMatchesInString: r options: 0 range: RANGE withTemplate: csp_string_or_nil(O0)]);
}
/// The regular expression receiver given the fuzzer's string (nil included), searched whole.
CALL(regex_matchesInArgument) {
    id string = csp_string_or_nil(O0);
    out_object(out, [(NSRegularExpression *)r matchesInString: string options: 0 range: NSMakeRange(0, [string length])]);
}
CALL(regex_numberOfMatchesInArgument) {
    id string = csp_string_or_nil(O0);
    out_uint(out, [(NSRegularExpression *)r numberOfMatchesInString: string options: 0 range: NSMakeRange(0, [string length])]);
}
CALL(stringc_withFormat) { out_object(out, [(Class)r stringWithFormat: @"<%@>", O0]); }

// MARK: NSAttributedString, NSMutableAttributedString

/// The string argument as an attributed string when it is a string; anything else is passed as it is.
static id csp_attributed_argument(id string) {
    if (![string isKindOfClass: [NSString class]]) return string;
    return CSP_AUTORELEASE([[NSAttributedString alloc] initWithString: string]);
}

CALL(attr_substringFromRange) { out_object(out, [(NSAttributedString *)r attributedSubstringFromRange: RANGE]); }
CALL(attr_attributesAtIndex) {
    NSRange effective = csp_unset_range;
    out_object(out, [(NSAttributedString *)r attributesAtIndex: I0 effectiveRange: &effective]);
    out_range(out, effective);
}
CALL(attr_attributeAtIndex) {
    NSRange effective = csp_unset_range;
    out_object(out, [(NSAttributedString *)r attribute: O0 atIndex: I1 effectiveRange: &effective]);
    out_range(out, effective);
}
CALL(attr_attributesLongest) {
    NSRange effective = csp_unset_range;
    out_object(out, [(NSAttributedString *)r attributesAtIndex: I0 longestEffectiveRange: &effective inRange: RANGE]);
    out_range(out, effective);
}
CALL(attr_attributeLongest) {
    NSRange effective = csp_unset_range;
    out_object(out, [(NSAttributedString *)r attribute: O0 atIndex: I1 longestEffectiveRange: &effective inRange: RANGE]);
    out_range(out, effective);
}
CALL(attr_string) { out_object(out, [(NSAttributedString *)r string]); }

CALL(mattr_addAttribute) { [(NSMutableAttributedString *)r addAttribute: O0 value: O1 range: RANGE]; out_void(out); }
CALL(mattr_addAttributes) { [(NSMutableAttributedString *)r addAttributes: O0 range: RANGE]; out_void(out); }
CALL(mattr_setAttributes) { [(NSMutableAttributedString *)r setAttributes: O0 range: RANGE]; out_void(out); }
CALL(mattr_removeAttribute) { [(NSMutableAttributedString *)r removeAttribute: O0 range: RANGE]; out_void(out); }
CALL(mattr_replaceCharacters) {
    [(NSMutableAttributedString *)r replaceCharactersInRange: RANGE withString: O1];
    out_void(out);
}
CALL(mattr_deleteCharacters) { [(NSMutableAttributedString *)r deleteCharactersInRange: RANGE]; out_void(out); }
CALL(mattr_insertAttributed) {
    [(NSMutableAttributedString *)r insertAttributedString: csp_attributed_argument(O0) atIndex: I1];
    out_void(out);
}
CALL(mattr_appendAttributed) { [(NSMutableAttributedString *)r appendAttributedString: csp_attributed_argument(O0)]; out_void(out); }
CALL(mattr_setAttributed) { [(NSMutableAttributedString *)r setAttributedString: csp_attributed_argument(O0)]; out_void(out); }
CALL(mattr_replaceWithAttributed) {
    [(NSMutableAttributedString *)r replaceCharactersInRange: RANGE withAttributedString: csp_attributed_argument(O1)];
    out_void(out);
}

CALL(attrc_initWithString) { out_object(out, CSP_AUTORELEASE([(NSAttributedString *)[(Class)r alloc] initWithString: O0])); }
CALL(attrc_initWithAttributedString) {
    out_object(out, CSP_AUTORELEASE([(NSAttributedString *)[(Class)r alloc] initWithAttributedString: O0]));
}
CALL(attrc_initWithStringAttributes) {
    out_object(out, CSP_AUTORELEASE([(NSAttributedString *)[(Class)r alloc] initWithString: O0 attributes: O1]));
}

// MARK: NSData, NSMutableData

/// What `replaceBytesInRange:withBytes:` may read: a longer range that GNUstep does not raise for is not made
/// (`csp_foundation_fails`).
static const char csp_source_bytes[65] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/";
static const NSUInteger csp_source_length = 64;

CALL(data_subdataWithRange) { out_object(out, [(NSData *)r subdataWithRange: RANGE]); }
CALL(data_getBytesRange) {
    NSUInteger size = [(NSData *)r length] + 8;
    unsigned char *buffer = malloc(size);
    memset(buffer, '_', size);
    @try {
        [(NSData *)r getBytes: buffer range: RANGE];
        for (NSUInteger i = 0; i < size; i++) csp_text_appendf(out, "%02x", buffer[i]);
    } @finally {
        free(buffer);
    }
}
CALL(data_rangeOfData) { out_range(out, [(NSData *)r rangeOfData: O0 options: 0 range: RANGE]); }
CALL(data_rangeOfDataBackwards) {
    out_range(out, [(NSData *)r rangeOfData: O0 options: NSDataSearchBackwards | NSDataSearchAnchored range: RANGE]);
}
CALL(mdata_replaceBytes) { [(NSMutableData *)r replaceBytesInRange: RANGE withBytes: csp_source_bytes]; out_void(out); }
CALL(mdata_replaceBytesLength) { [(NSMutableData *)r replaceBytesInRange: RANGE withBytes: "xyz" length: 3]; out_void(out); }
CALL(mdata_deleteBytes) { [(NSMutableData *)r replaceBytesInRange: RANGE withBytes: NULL length: 0]; out_void(out); }
CALL(mdata_resetBytes) { [(NSMutableData *)r resetBytesInRange: RANGE]; out_void(out); }
CALL(mdata_appendData) { [(NSMutableData *)r appendData: O0]; out_void(out); }

// MARK: Key-value coding

CALL(kvc_valueForKey) { out_object(out, [r valueForKey: O0]); }
CALL(kvc_setValueForKey) { [r setValue: O0 forKey: O1]; out_void(out); }
CALL(kvc_valueForKeyPath) { out_object(out, [r valueForKeyPath: O0]); }
CALL(kvc_setValueForKeyPath) { [r setValue: O0 forKeyPath: O1]; out_void(out); }
CALL(kvc_setValuesForKeys) { [r setValuesForKeysWithDictionary: O0]; out_void(out); }
CALL(kvc_dictionaryWithValues) { out_object(out, [r dictionaryWithValuesForKeys: O0]); }
CALL(kvc_setNilValueForKey) { [r setNilValueForKey: O0]; out_void(out); }
CALL(kvc_valueForUndefinedKey) { out_object(out, [r valueForUndefinedKey: O0]); }
CALL(kvc_setValueForUndefinedKey) { [r setValue: O0 forUndefinedKey: O1]; out_void(out); }

// MARK: Messages code sends to the wrong type (NSNull, a number used as a string, ...)

CALL(any_length) { out_uint(out, [(id)r length]); }
CALL(any_count) { out_uint(out, [(id)r count]); }
CALL(any_integerValue) { out_int(out, [(id)r integerValue]); }
CALL(any_intValue) { out_int(out, [(id)r intValue]); }
CALL(any_boolValue) { out_bool(out, [(id)r boolValue]); }
CALL(any_doubleValue) { out_double(out, [(id)r doubleValue]); }
CALL(any_floatValue) { out_double(out, [(id)r floatValue]); }
CALL(any_unsignedLongLongValue) { out_int(out, (long long)[(id)r unsignedLongLongValue]); }
CALL(any_objectForKey) { out_object(out, [(id)r objectForKey: O0]); }
CALL(any_objectForKeyedSubscript) { out_object(out, [(id)r objectForKeyedSubscript: O0]); }
CALL(any_objectAtIndex) { out_object(out, [(id)r objectAtIndex: I0]); }
CALL(any_rangeOfString) { out_range(out, [(id)r rangeOfString: O0]); }
CALL(any_rangeValue) { out_range(out, [(id)r rangeValue]); }
CALL(any_UTF8String) { out_cstring(out, [(id)r UTF8String]); }
CALL(any_characterAtIndex) { out_uint(out, [(id)r characterAtIndex: I0]); }
CALL(any_stringValue) { out_object(out, [(id)r stringValue]); }
CALL(any_firstObject) { out_object(out, [(id)r firstObject]); }
CALL(any_allKeys) { out_object(out, [[(id)r allKeys] sortedArrayUsingSelector: @selector(compare:)]); }
CALL(any_lowercaseString) { out_object(out, [(id)r lowercaseString]); }
CALL(any_setObjectForKey) { [(id)r setObject: O0 forKey: O1]; out_void(out); }
CALL(any_addObject) { [(id)r addObject: O0]; out_void(out); }
CALL(any_isEqualToString) { out_bool(out, [(id)r isEqualToString: O0]); }
CALL(any_isEqual) { out_bool(out, [(id)r isEqual: O0]); }

// MARK: The table

typedef struct CSPEntry {
    const char *name;
    uint32_t receivers;   // CSPFamily bits: a receiver with any of them takes the call
    CSPArgKind arguments[3];
    void (*call)(id receiver, CSPArgs *args, CSPText *result);
    /// A guard hooks this method (or the forwarding path, or the KVC fallbacks it ends in): when it raises without
    /// CrashShield, it must be stopped. The others are Foundation methods that reach guarded ones from inside: when
    /// they raise, they must raise the same, unless a guard stopped the inner call (then the receiver must be
    /// unchanged and the stop reported).
    bool guarded;
} CSPEntry;

enum {
    FA = CSPFamilyArray, FMA = CSPFamilyMutableArray, FD = CSPFamilyDictionary, FMD = CSPFamilyMutableDictionary,
    FS = CSPFamilySet, FMS = CSPFamilyMutableSet, FO = CSPFamilyOrderedSet, FMO = CSPFamilyMutableOrderedSet,
    FT = CSPFamilyString, FMT = CSPFamilyMutableString, FR = CSPFamilyAttributed, FMR = CSPFamilyMutableAttributed,
    FK = CSPFamilyKVC, FNC = CSPFamilyNull | CSPFamilyConfused, FDA = CSPFamilyData, FMDA = CSPFamilyMutableData,
};
#define ARGS(...) { __VA_ARGS__ }
#define NONE ARGS(CSPArgNone)

static const CSPEntry csp_entries[] = {
    { "NSArray objectAtIndex:", FA, ARGS(CSPArgIndex), array_objectAtIndex, true },
    { "NSArray objectAtIndexedSubscript:", FA, ARGS(CSPArgIndex), array_objectAtIndexedSubscript, true },
    { "NSArray subarrayWithRange:", FA, ARGS(CSPArgRange), array_subarrayWithRange, true },
    { "NSArray objectsAtIndexes:", FA, ARGS(CSPArgIndexSet), array_objectsAtIndexes, true },
    { "NSArray getObjects:range:", FA, ARGS(CSPArgRange), array_getObjectsRange, true },
    { "NSArray arrayByAddingObject:", FA, ARGS(CSPArgObject), array_arrayByAddingObject, true },
    { "NSArray arrayByAddingObjectsFromArray:", FA, ARGS(CSPArgArray), array_arrayByAddingObjectsFromArray, false },
    { "NSArray indexOfObject:inRange:", FA, ARGS(CSPArgObject, CSPArgRange), array_indexOfObjectInRange, true },
    { "NSArray indexOfObjectIdenticalTo:inRange:", FA, ARGS(CSPArgObject, CSPArgRange), array_indexOfObjectIdenticalToInRange, true },
    { "NSArray containsObject:", FA, ARGS(CSPArgObject), array_containsObject, false },
    { "NSArray indexOfObject:", FA, ARGS(CSPArgObject), array_indexOfObject, false },
    { "NSArray firstObject", FA, NONE, array_firstObject, false },
    { "NSArray lastObject", FA, NONE, array_lastObject, false },
    { "NSArray componentsJoinedByString:", FA, ARGS(CSPArgString), array_componentsJoined, false },
    { "NSArray isEqualToArray:", FA, ARGS(CSPArgArray), array_isEqualToArray, false },
    { "NSMutableArray addObject:", FMA, ARGS(CSPArgObject), marray_addObject, true },
    { "NSMutableArray insertObject:atIndex:", FMA, ARGS(CSPArgObject, CSPArgIndex), marray_insertObjectAtIndex, true },
    { "NSMutableArray removeObjectAtIndex:", FMA, ARGS(CSPArgIndex), marray_removeObjectAtIndex, true },
    { "NSMutableArray replaceObjectAtIndex:withObject:", FMA, ARGS(CSPArgIndex, CSPArgObject), marray_replaceObjectAtIndex, true },
    { "NSMutableArray removeObjectsInRange:", FMA, ARGS(CSPArgRange), marray_removeObjectsInRange, true },
    { "NSMutableArray exchangeObjectAtIndex:withObjectAtIndex:", FMA, ARGS(CSPArgIndex, CSPArgIndex), marray_exchange, true },
    { "NSMutableArray setObject:atIndexedSubscript:", FMA, ARGS(CSPArgObject, CSPArgIndex), marray_setObjectAtIndexedSubscript, true },
    { "NSMutableArray insertObjects:atIndexes:", FMA, ARGS(CSPArgArray, CSPArgIndexSet), marray_insertObjectsAtIndexes, true },
    { "NSMutableArray removeObjectsAtIndexes:", FMA, ARGS(CSPArgIndexSet), marray_removeObjectsAtIndexes, true },
    { "NSMutableArray replaceObjectsInRange:withObjectsFromArray:", FMA, ARGS(CSPArgRange, CSPArgArray), marray_replaceObjectsInRange, true },
    { "NSMutableArray replaceObjectsAtIndexes:withObjects:", FMA, ARGS(CSPArgIndexSet, CSPArgArray), marray_replaceObjectsAtIndexes, true },
    { "NSMutableArray removeLastObject", FMA, NONE, marray_removeLastObject, true },
    { "NSMutableArray addObjectsFromArray:", FMA, ARGS(CSPArgArray), marray_addObjectsFromArray, false },
    { "NSMutableArray removeObject:", FMA, ARGS(CSPArgObject), marray_removeObject, false },
    { "NSMutableArray removeObject:inRange:", FMA, ARGS(CSPArgObject, CSPArgRange), marray_removeObjectInRange, false },
    { "NSMutableArray removeObjectsInArray:", FMA, ARGS(CSPArgArray), marray_removeObjectsInArray, false },
    { "NSMutableArray setArray:", FMA, ARGS(CSPArgArray), marray_setArray, false },
    { "NSMutableArray removeAllObjects", FMA, NONE, marray_removeAllObjects, false },
    { "NSMutableArray sortUsingSelector:", FMA, NONE, marray_sortUsingSelector, false },
    { "+arrayWithObjects:count:", CSPFamilyArrayClass, ARGS(CSPArgCObjects), arrayc_withObjectsCount, true },
    { "+arrayWithObject:", CSPFamilyArrayClass, ARGS(CSPArgObject), arrayc_withObject, true },
    { "+arrayWithArray:", CSPFamilyArrayClass, ARGS(CSPArgArray), arrayc_withArray, false },
    { "alloc, initWithObjects:count:", CSPFamilyArrayClass, ARGS(CSPArgCObjects), arrayc_initWithObjectsCount, true },
    { "alloc, initWithArray:", CSPFamilyArrayClass, ARGS(CSPArgArray), arrayc_initWithArray, false },
    { "NSDictionary objectForKey:", FD, ARGS(CSPArgKey), dict_objectForKey, false },
    { "NSDictionary objectForKeyedSubscript:", FD, ARGS(CSPArgKey), dict_objectForKeyedSubscript, false },
    { "NSDictionary allKeysForObject:", FD, ARGS(CSPArgObject), dict_allKeysForObject, false },
    { "NSDictionary objectsForKeys:notFoundMarker:", FD, ARGS(CSPArgArray, CSPArgObject), dict_objectsForKeys, false },
    { "NSMutableDictionary setObject:forKey:", FMD, ARGS(CSPArgObject, CSPArgKey), mdict_setObjectForKey, true },
    { "NSMutableDictionary setObject:forKeyedSubscript:", FMD, ARGS(CSPArgObject, CSPArgKey), mdict_setObjectForKeyedSubscript, true },
    { "NSMutableDictionary removeObjectForKey:", FMD, ARGS(CSPArgKey), mdict_removeObjectForKey, false },
    { "NSMutableDictionary setValue:forKey:", FMD, ARGS(CSPArgObject, CSPArgKey), mdict_setValueForKey, true },
    { "NSMutableDictionary addEntriesFromDictionary:", FMD, ARGS(CSPArgDictionary), mdict_addEntries, false },
    { "NSMutableDictionary removeObjectsForKeys:", FMD, ARGS(CSPArgArray), mdict_removeObjectsForKeys, false },
    { "NSMutableDictionary setDictionary:", FMD, ARGS(CSPArgDictionary), mdict_setDictionary, false },
    { "NSMutableDictionary removeAllObjects", FMD, NONE, mdict_removeAllObjects, false },
    { "+dictionaryWithObjects:forKeys:count:", CSPFamilyDictionaryClass, ARGS(CSPArgCPairs), dictc_withObjectsForKeysCount, true },
    { "+dictionaryWithObject:forKey:", CSPFamilyDictionaryClass, ARGS(CSPArgObject, CSPArgKey), dictc_withObjectForKey, true },
    { "+dictionaryWithObjects:forKeys:", CSPFamilyDictionaryClass, ARGS(CSPArgArray, CSPArgArray), dictc_withObjectsForKeys, true },
    { "alloc, initWithObjects:forKeys:count:", CSPFamilyDictionaryClass, ARGS(CSPArgCPairs), dictc_initWithObjectsForKeysCount, true },
    { "+dictionaryWithDictionary:", CSPFamilyDictionaryClass, ARGS(CSPArgDictionary), dictc_withDictionary, false },
    { "NSSet containsObject:", FS, ARGS(CSPArgObject), set_containsObject, false },
    { "NSSet member:", FS, ARGS(CSPArgObject), set_member, false },
    { "NSSet setByAddingObject:", FS, ARGS(CSPArgObject), set_setByAddingObject, true },
    { "NSSet setByAddingObjectsFromArray:", FS, ARGS(CSPArgArray), set_setByAddingObjectsFromArray, false },
    { "NSSet anyObject", FS, NONE, set_anyObject, false },
    { "NSMutableSet addObject:", FMS, ARGS(CSPArgObject), mset_addObject, true },
    { "NSMutableSet removeObject:", FMS, ARGS(CSPArgObject), mset_removeObject, false },
    { "NSMutableSet addObjectsFromArray:", FMS, ARGS(CSPArgArray), mset_addObjectsFromArray, false },
    { "NSMutableSet unionSet:", FMS, ARGS(CSPArgArray), mset_unionSet, false },
    { "NSMutableSet minusSet:", FMS, ARGS(CSPArgArray), mset_minusSet, false },
    { "NSMutableSet intersectSet:", FMS, ARGS(CSPArgArray), mset_intersectSet, false },
    { "NSMutableSet setSet:", FMS, ARGS(CSPArgArray), mset_setSet, false },
    { "NSMutableSet removeAllObjects", FMS, NONE, mset_removeAllObjects, false },
    { "+setWithObjects:count:", CSPFamilySetClass, ARGS(CSPArgCObjects), setc_withObjectsCount, true },
    { "+setWithObject:", CSPFamilySetClass, ARGS(CSPArgObject), setc_withObject, true },
    { "+setWithArray:", CSPFamilySetClass, ARGS(CSPArgArray), setc_withArray, false },
    { "alloc, initWithObjects:count: (set)", CSPFamilySetClass, ARGS(CSPArgCObjects), setc_initWithObjectsCount, true },
    { "NSOrderedSet objectAtIndex:", FO, ARGS(CSPArgIndex), oset_objectAtIndex, true },
    { "NSOrderedSet objectAtIndexedSubscript:", FO, ARGS(CSPArgIndex), oset_objectAtIndexedSubscript, true },
    { "NSOrderedSet objectsAtIndexes:", FO, ARGS(CSPArgIndexSet), oset_objectsAtIndexes, true },
    { "NSOrderedSet getObjects:range:", FO, ARGS(CSPArgRange), oset_getObjectsRange, true },
    { "NSOrderedSet indexOfObject:", FO, ARGS(CSPArgObject), oset_indexOfObject, false },
    { "NSOrderedSet containsObject:", FO, ARGS(CSPArgObject), oset_containsObject, false },
    { "NSOrderedSet firstObject", FO, NONE, oset_firstObject, false },
    { "NSOrderedSet lastObject", FO, NONE, oset_lastObject, false },
    { "NSOrderedSet array", FO, NONE, oset_array, false },
    { "NSMutableOrderedSet addObject:", FMO, ARGS(CSPArgObject), moset_addObject, true },
    { "NSMutableOrderedSet insertObject:atIndex:", FMO, ARGS(CSPArgObject, CSPArgIndex), moset_insertObjectAtIndex, true },
    { "NSMutableOrderedSet removeObjectAtIndex:", FMO, ARGS(CSPArgIndex), moset_removeObjectAtIndex, true },
    { "NSMutableOrderedSet replaceObjectAtIndex:withObject:", FMO, ARGS(CSPArgIndex, CSPArgObject), moset_replaceObjectAtIndex, true },
    { "NSMutableOrderedSet setObject:atIndexedSubscript:", FMO, ARGS(CSPArgObject, CSPArgIndex), moset_setObjectAtIndexedSubscript, true },
    { "NSMutableOrderedSet exchangeObjectAtIndex:withObjectAtIndex:", FMO, ARGS(CSPArgIndex, CSPArgIndex), moset_exchange, true },
    { "NSMutableOrderedSet removeObject:", FMO, ARGS(CSPArgObject), moset_removeObject, false },
    { "NSMutableOrderedSet addObjectsFromArray:", FMO, ARGS(CSPArgArray), moset_addObjectsFromArray, false },
    { "NSMutableOrderedSet removeObjectsAtIndexes:", FMO, ARGS(CSPArgIndexSet), moset_removeObjectsAtIndexes, false },
    { "NSMutableOrderedSet insertObjects:atIndexes:", FMO, ARGS(CSPArgArray, CSPArgIndexSet), moset_insertObjectsAtIndexes, false },
    { "NSMutableOrderedSet removeObjectsInRange:", FMO, ARGS(CSPArgRange), moset_removeObjectsInRange, false },
    { "NSMutableOrderedSet moveObjectsAtIndexes:toIndex:", FMO, ARGS(CSPArgIndexSet, CSPArgIndex), moset_moveObjectsAtIndexes, false },
    { "NSMutableOrderedSet removeAllObjects", FMO, NONE, moset_removeAllObjects, false },
    { "+orderedSetWithObjects:count:", CSPFamilyOrderedSetClass, ARGS(CSPArgCObjects), osetc_withObjectsCount, true },
    { "+orderedSetWithObject:", CSPFamilyOrderedSetClass, ARGS(CSPArgObject), osetc_withObject, true },
    { "+orderedSetWithArray:", CSPFamilyOrderedSetClass, ARGS(CSPArgArray), osetc_withArray, false },
    { "alloc, initWithObjects:count: (ordered set)", CSPFamilyOrderedSetClass, ARGS(CSPArgCObjects), osetc_initWithObjectsCount, true },
    { "NSString characterAtIndex:", FT, ARGS(CSPArgIndex), string_characterAtIndex, true },
    { "NSString substringFromIndex:", FT, ARGS(CSPArgIndex), string_substringFromIndex, true },
    { "NSString substringToIndex:", FT, ARGS(CSPArgIndex), string_substringToIndex, true },
    { "NSString substringWithRange:", FT, ARGS(CSPArgRange), string_substringWithRange, true },
    { "NSString rangeOfString:", FT, ARGS(CSPArgString), string_rangeOfString, true },
    { "NSString hasPrefix:", FT, ARGS(CSPArgString), string_hasPrefix, true },
    { "NSString hasSuffix:", FT, ARGS(CSPArgString), string_hasSuffix, true },
    { "NSString rangeOfString:options:range:", FT, ARGS(CSPArgString, CSPArgRange), string_rangeOfStringOptionsRange, true },
    { "NSString rangeOfString:options:", FT, ARGS(CSPArgString), string_rangeOfStringOptions, true },
    { "NSString rangeOfString:options:range: (anchored, backwards)", FT, ARGS(CSPArgString, CSPArgRange), string_rangeOfStringAnchored, true },
    { "NSString rangeOfString:options:range:locale:", FT, ARGS(CSPArgString, CSPArgRange), string_rangeOfStringLocale, true },
    { "NSString compare:options:range:", FT, ARGS(CSPArgString, CSPArgRange), string_compareOptionsRange, true },
    { "NSString compare:options:range: (numeric)", FT, ARGS(CSPArgString, CSPArgRange), string_compareNumeric, true },
    { "NSString compare:options:range:locale:", FT, ARGS(CSPArgString, CSPArgRange), string_compareLocale, true },
    { "NSString rangeOfCharacterFromSet:", FT, ARGS(CSPArgCharacterSet), string_rangeOfCharacter, true },
    { "NSString rangeOfCharacterFromSet:options:range:", FT, ARGS(CSPArgCharacterSet, CSPArgRange), string_rangeOfCharacterRange, true },
    { "NSString rangeOfCharacterFromSet:options:range: (backwards)", FT, ARGS(CSPArgCharacterSet, CSPArgRange), string_rangeOfCharacterBackwards, true },
    { "NSString paragraphRangeForRange:", FT, ARGS(CSPArgRange), string_paragraphRangeForRange, true },
    { "NSString getLineStart:end:contentsEnd:forRange:", FT, ARGS(CSPArgRange), string_getLineStart, true },
    { "NSString getParagraphStart:end:contentsEnd:forRange:", FT, ARGS(CSPArgRange), string_getParagraphStart, true },
    { "NSString getCharacters:range:", FT, ARGS(CSPArgRange), string_getCharactersRange, true },
    { "NSString stringByAppendingString:", FT, ARGS(CSPArgString), string_byAppending, false },
    { "NSString isEqualToString:", FT, ARGS(CSPArgString), string_isEqualToString, false },
    { "NSString stringByReplacingOccurrencesOfString:withString:", FT, ARGS(CSPArgString, CSPArgString), string_byReplacingOccurrences, true },
    { "NSString stringByReplacingOccurrencesOfString:withString:options:range:", FT, ARGS(CSPArgString, CSPArgString, CSPArgRange), string_byReplacingOccurrencesRange, true },
    { "NSString componentsSeparatedByString:", FT, ARGS(CSPArgString), string_componentsSeparated, false },
    { "NSString lineRangeForRange:", FT, ARGS(CSPArgRange), string_lineRangeForRange, true },
    { "NSString rangeOfComposedCharacterSequenceAtIndex:", FT, ARGS(CSPArgIndex), string_composedRange, false },
    { "NSString stringByReplacingCharactersInRange:withString:", FT, ARGS(CSPArgRange, CSPArgString), string_byReplacingCharactersInRange, false },
    { "NSString compare:", FT, ARGS(CSPArgString), string_compare, true },
    { "NSString commonPrefixWithString:options:", FT, ARGS(CSPArgString), string_commonPrefix, false },
    { "NSMutableString insertString:atIndex:", FMT, ARGS(CSPArgString, CSPArgIndex), mstring_insertStringAtIndex, true },
    { "NSMutableString replaceCharactersInRange:withString:", FMT, ARGS(CSPArgRange, CSPArgString), mstring_replaceCharactersInRange, true },
    { "NSMutableString deleteCharactersInRange:", FMT, ARGS(CSPArgRange), mstring_deleteCharactersInRange, true },
    { "NSMutableString appendString:", FMT, ARGS(CSPArgString), mstring_appendString, false },
    { "NSMutableString setString:", FMT, ARGS(CSPArgString), mstring_setString, false },
    { "NSMutableString replaceOccurrencesOfString:withString:options:range:", FMT, ARGS(CSPArgString, CSPArgString, CSPArgRange), mstring_replaceOccurrences, true },
    { "NSMutableString appendFormat:", FMT, ARGS(CSPArgObject), mstring_appendFormat, false },
    { "+stringWithString:", CSPFamilyStringClass, ARGS(CSPArgString), stringc_withString, true },
    { "+stringWithUTF8String:", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_withUTF8String, true },
    { "alloc, initWithString:", CSPFamilyStringClass, ARGS(CSPArgString), stringc_initWithString, true },
    { "alloc, initWithUTF8String:", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_initWithUTF8String, true },
    { "+stringWithCString:encoding:", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_withCStringEncoding, true },
    { "alloc, initWithCString:encoding:", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_initWithCStringEncoding, true },
    { "alloc, initWithBytes:length:encoding: (ASCII)", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_initWithBytesASCII, true },
    { "alloc, initWithBytes:length:encoding: (Latin-1)", CSPFamilyStringClass, ARGS(CSPArgCString), stringc_initWithBytesLatin1, true },
    { "+stringWithFormat:", CSPFamilyStringClass, ARGS(CSPArgObject), stringc_withFormat, false },
    { "alloc, initWithBase64EncodedString:options:", FDA, ARGS(CSPArgString), data_initWithBase64String, true },
    { "alloc, initWithBase64EncodedData:options:", FDA, ARGS(CSPArgString), data_initWithBase64Data, true },
    { "NSNumber compare:", CSPFamilyNumber, ARGS(CSPArgObject), number_compare, true },
    { "NSNumber isEqualToNumber:", CSPFamilyNumber, ARGS(CSPArgObject), number_isEqualToNumber, true },
    { "NSDate compare:", CSPFamilyDate, ARGS(CSPArgObject), date_compare, true },
    { "NSUserDefaults setObject:forKey:", CSPFamilyUserDefaults, ARGS(CSPArgObject), defaults_setObjectForKey, true },
    { "NSUserDefaults setObject:forKey: (dictionaries)", CSPFamilyUserDefaults, ARGS(CSPArgDictionary), defaults_setObjectForKey, true },
    { "NSUserDefaults setObject:forKey: (nested)", CSPFamilyUserDefaults, ARGS(CSPArgObject), defaults_setNestedObjectForKey, true },
    { "NSURL fileURLWithPath:", CSPFamilyURLClass, ARGS(CSPArgString), urlc_fileURLWithPath, true },
    { "NSURL fileURLWithPath:isDirectory:", CSPFamilyURLClass, ARGS(CSPArgString), urlc_fileURLWithPathIsDirectory, true },
    { "alloc, initFileURLWithPath:", CSPFamilyURLClass, ARGS(CSPArgString), urlc_initFileURLWithPath, true },
    { "NSURL URLByAppendingPathComponent:", CSPFamilyURL, ARGS(CSPArgString), url_appendingPathComponent, true },
    { "NSURL URLByAppendingPathComponent:isDirectory:", CSPFamilyURL, ARGS(CSPArgString), url_appendingPathComponentIsDirectory, true },
    { "alloc, initWithString:relativeToURL: (URL)", CSPFamilyURLClass, ARGS(CSPArgString), urlc_initWithStringRelativeToURL, true },
    { "alloc, initWithString: (URL)", CSPFamilyURLClass, ARGS(CSPArgString), urlc_initWithString, false },
    { "NSPredicate predicateWithFormat:<receiver>", CSPFamilyString, ARGS(), predicate_withFormat, true },
    { "NSPredicate predicateWithFormat:<receiver> argumentArray:", CSPFamilyString, ARGS(CSPArgArray), predicate_withFormatArgumentArray, true },
    { "+unarchiveObjectWithData:, which sends initForReadingWithData:", CSPFamilyUnarchiverClass, ARGS(CSPArgData), unarchiver_unarchiveObjectWithData, true },
    { "alloc, initForReadingWithData:", CSPFamilyUnarchiverClass, ARGS(CSPArgData), unarchiver_initForReadingWithData, true },
    { "NSFileManager moveItemAtPath:toPath:error:", CSPFamilyFileManager, ARGS(CSPArgString, CSPArgString), fm_movePath, true },
    { "NSFileManager copyItemAtPath:toPath:error:", CSPFamilyFileManager, ARGS(CSPArgString, CSPArgString), fm_copyPath, true },
    { "NSFileManager moveItemAtURL:toURL:error:", CSPFamilyFileManager, ARGS(CSPArgString, CSPArgString), fm_moveURL, true },
    { "NSFileManager copyItemAtURL:toURL:error:", CSPFamilyFileManager, ARGS(CSPArgString, CSPArgString), fm_copyURL, true },
    { "NSFileManager enumeratorAtURL:includingPropertiesForKeys:options:errorHandler:", CSPFamilyFileManager, ARGS(CSPArgString), fm_enumeratorAtURL, true },
    { "NSRegularExpression matchesInString:options:range:", FT, ARGS(CSPArgRange), regex_matchesInString, false },
    { "NSRegularExpression numberOfMatchesInString:options:range:", FT, ARGS(CSPArgRange), regex_numberOfMatches, false },
    { "NSRegularExpression firstMatchInString:options:range:", FT, ARGS(CSPArgRange), regex_firstMatch, false },
    { "NSRegularExpression rangeOfFirstMatchInString:options:range:", FT, ARGS(CSPArgRange), regex_rangeOfFirstMatch, false },
    { "NSRegularExpression stringByReplacingMatchesInString:options:range:withTemplate:", FT, ARGS(CSPArgRange, CSPArgString), regex_replacing, true },
    { "NSRegularExpression replaceMatchesInString:options:range:withTemplate:", FMT, ARGS(CSPArgRange, CSPArgString), regex_replace, true },
    { "NSRegularExpression matchesInString:options:range: (string argument)", CSPFamilyRegex, ARGS(CSPArgString), regex_matchesInArgument, false },
    { "NSRegularExpression numberOfMatchesInString:options:range: (string argument)", CSPFamilyRegex, ARGS(CSPArgString), regex_numberOfMatchesInArgument, false },
    { "NSAttributedString attributedSubstringFromRange:", FR, ARGS(CSPArgRange), attr_substringFromRange, true },
    { "NSAttributedString attributesAtIndex:effectiveRange:", FR, ARGS(CSPArgIndex), attr_attributesAtIndex, true },
    { "NSAttributedString attribute:atIndex:effectiveRange:", FR, ARGS(CSPArgAttributeName, CSPArgIndex), attr_attributeAtIndex, true },
    { "NSAttributedString attributesAtIndex:longestEffectiveRange:inRange:", FR, ARGS(CSPArgIndex, CSPArgRange), attr_attributesLongest, true },
    { "NSAttributedString attribute:atIndex:longestEffectiveRange:inRange:", FR, ARGS(CSPArgAttributeName, CSPArgIndex, CSPArgRange), attr_attributeLongest, true },
    { "NSAttributedString string", FR, NONE, attr_string, false },
    { "NSMutableAttributedString addAttribute:value:range:", FMR, ARGS(CSPArgAttributeName, CSPArgObject, CSPArgRange), mattr_addAttribute, true },
    { "NSMutableAttributedString addAttributes:range:", FMR, ARGS(CSPArgAttributes, CSPArgRange), mattr_addAttributes, true },
    { "NSMutableAttributedString setAttributes:range:", FMR, ARGS(CSPArgAttributes, CSPArgRange), mattr_setAttributes, true },
    { "NSMutableAttributedString removeAttribute:range:", FMR, ARGS(CSPArgAttributeName, CSPArgRange), mattr_removeAttribute, true },
    { "NSMutableAttributedString replaceCharactersInRange:withString:", FMR, ARGS(CSPArgRange, CSPArgString), mattr_replaceCharacters, true },
    { "NSMutableAttributedString deleteCharactersInRange:", FMR, ARGS(CSPArgRange), mattr_deleteCharacters, true },
    { "NSMutableAttributedString insertAttributedString:atIndex:", FMR, ARGS(CSPArgString, CSPArgIndex), mattr_insertAttributed, false },
    { "NSMutableAttributedString appendAttributedString:", FMR, ARGS(CSPArgString), mattr_appendAttributed, false },
    { "NSMutableAttributedString setAttributedString:", FMR, ARGS(CSPArgString), mattr_setAttributed, false },
    { "NSMutableAttributedString replaceCharactersInRange:withAttributedString:", FMR, ARGS(CSPArgRange, CSPArgString), mattr_replaceWithAttributed, false },
    { "alloc, initWithString: (attributed)", CSPFamilyAttributedClass, ARGS(CSPArgString), attrc_initWithString, true },
    { "alloc, initWithString:attributes:", CSPFamilyAttributedClass, ARGS(CSPArgString, CSPArgAttributes), attrc_initWithStringAttributes, true },
    { "alloc, initWithAttributedString:", CSPFamilyAttributedClass, ARGS(CSPArgObject), attrc_initWithAttributedString, true },
    { "NSData subdataWithRange:", FDA, ARGS(CSPArgRange), data_subdataWithRange, true },
    { "NSData getBytes:range:", FDA, ARGS(CSPArgRange), data_getBytesRange, true },
    { "NSData rangeOfData:options:range:", FDA, ARGS(CSPArgData, CSPArgRange), data_rangeOfData, true },
    { "NSData rangeOfData:options:range: (backwards, anchored)", FDA, ARGS(CSPArgData, CSPArgRange), data_rangeOfDataBackwards, true },
    { "NSMutableData replaceBytesInRange:withBytes:", FMDA, ARGS(CSPArgRange), mdata_replaceBytes, true },
    { "NSMutableData replaceBytesInRange:withBytes:length:", FMDA, ARGS(CSPArgRange), mdata_replaceBytesLength, true },
    { "NSMutableData replaceBytesInRange:withBytes:length: (NULL, 0)", FMDA, ARGS(CSPArgRange), mdata_deleteBytes, true },
    { "NSMutableData resetBytesInRange:", FMDA, ARGS(CSPArgRange), mdata_resetBytes, true },
    { "NSMutableData appendData:", FMDA, ARGS(CSPArgData), mdata_appendData, false },
    { "KVC valueForKey:", FK, ARGS(CSPArgKVCKey), kvc_valueForKey, true },
    { "KVC setValue:forKey:", FK, ARGS(CSPArgKVCValue, CSPArgKVCKey), kvc_setValueForKey, true },
    { "KVC valueForKeyPath:", FK, ARGS(CSPArgKVCKey), kvc_valueForKeyPath, true },
    { "KVC setValue:forKeyPath:", FK, ARGS(CSPArgKVCValue, CSPArgKVCKey), kvc_setValueForKeyPath, true },
    { "KVC setValuesForKeysWithDictionary:", FK, ARGS(CSPArgKVCDictionary), kvc_setValuesForKeys, true },
    { "KVC dictionaryWithValuesForKeys:", FK, ARGS(CSPArgKeyArray), kvc_dictionaryWithValues, true },
    { "KVC setNilValueForKey:", FK, ARGS(CSPArgKVCKey), kvc_setNilValueForKey, true },
    { "KVC valueForUndefinedKey:", FK, ARGS(CSPArgKVCKey), kvc_valueForUndefinedKey, true },
    { "KVC setValue:forUndefinedKey:", FK, ARGS(CSPArgKVCValue, CSPArgKVCKey), kvc_setValueForUndefinedKey, true },
    { "any length", FNC, NONE, any_length, true },
    { "any count", FNC, NONE, any_count, true },
    { "any integerValue", FNC, NONE, any_integerValue, true },
    { "any intValue", FNC, NONE, any_intValue, true },
    { "any boolValue", FNC, NONE, any_boolValue, true },
    { "any doubleValue", FNC, NONE, any_doubleValue, true },
    { "any floatValue", FNC, NONE, any_floatValue, true },
    { "any unsignedLongLongValue", FNC, NONE, any_unsignedLongLongValue, true },
    { "any objectForKey:", FNC, ARGS(CSPArgKey), any_objectForKey, true },
    { "any objectForKeyedSubscript:", FNC, ARGS(CSPArgKey), any_objectForKeyedSubscript, true },
    { "any objectAtIndex:", FNC, ARGS(CSPArgIndex), any_objectAtIndex, true },
    { "any rangeOfString:", FNC, ARGS(CSPArgString), any_rangeOfString, true },
    { "any rangeValue", FNC, NONE, any_rangeValue, true },
    { "any UTF8String", FNC, NONE, any_UTF8String, true },
    { "any characterAtIndex:", FNC, ARGS(CSPArgIndex), any_characterAtIndex, true },
    { "any stringValue", FNC, NONE, any_stringValue, true },
    { "any firstObject", FNC, NONE, any_firstObject, true },
    { "any allKeys", FNC, NONE, any_allKeys, true },
    { "any lowercaseString", FNC, NONE, any_lowercaseString, true },
    { "any setObject:forKey:", FNC, ARGS(CSPArgObject, CSPArgKey), any_setObjectForKey, true },
    { "any addObject:", FNC, ARGS(CSPArgObject), any_addObject, true },
    { "any isEqualToString:", FNC, ARGS(CSPArgString), any_isEqualToString, true },
    { "any isEqual:", FNC, ARGS(CSPArgObject), any_isEqual, true },
};

static const uint32_t csp_entry_total = (uint32_t)(sizeof csp_entries / sizeof csp_entries[0]);

uint32_t csp_fuzz_entry_count(void) { return csp_entry_total; }

const char *csp_fuzz_entry_name(uint32_t entry) { return entry < csp_entry_total ? csp_entries[entry].name : "?"; }

// MARK: Generating

/// SplitMix64: small, fast, and the same on every platform.
static uint64_t csp_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// The receiver kinds an entry takes (global kind indexes), built once.
static uint32_t *csp_candidates[sizeof csp_entries / sizeof csp_entries[0]];
static uint32_t csp_candidate_counts[sizeof csp_entries / sizeof csp_entries[0]];
static pthread_once_t csp_candidates_once = PTHREAD_ONCE_INIT;

/// Each entry's selector, from its name ("NSMutableArray insertObject:atIndex:", "+arrayWithObject:",
/// "alloc, initWithObjects:count: (set)").
static char *csp_selectors[sizeof csp_entries / sizeof csp_entries[0]];

static char *csp_selector_of(const char *name) {
    char *copy = strdup(name);
    char *paren = strstr(copy, " (");
    if (paren) *paren = 0;
    char *last = strrchr(copy, ' ');
    char *selector = strdup(last ? last + 1 : copy);
    free(copy);
    if (selector[0] == '+') memmove(selector, selector + 1, strlen(selector));
    return selector;
}

static void csp_build_candidates(void) {
    for (uint32_t entry = 0; entry < csp_entry_total; entry++) csp_selectors[entry] = csp_selector_of(csp_entries[entry].name);
    uint32_t kinds = 0;
    const CSPReceiverKind *table = csp_receiver_kinds(&kinds);
    for (uint32_t entry = 0; entry < csp_entry_total; entry++) {
        csp_candidates[entry] = calloc(kinds, sizeof(uint32_t));
        for (uint32_t kind = 0; kind < kinds; kind++) {
            if (table[kind].families & csp_entries[entry].receivers) {
                csp_candidates[entry][csp_candidate_counts[entry]++] = kind;
            }
        }
    }
}

/// The range argument of `call` (in position `slot`) for its receiver; whether its end passes 2^64. `length`: the
/// receiver's count or length.
static bool csp_call_range(const CSPCall *call, int slot, NSRange *range, NSUInteger *length);

/// GNUstep's `addAttributes:range:` loops for ever when a range's end wraps past 2^64 to a point after the start of
/// the run at its location (the location's low 32 bits) and the location itself lies past that run.
static bool csp_add_attributes_hangs(const CSPCall *call);

/// GNUstep's `resetBytesInRange:` raises NSInternalInconsistencyException ("missing bytes") for any range its check
/// passes when the data object has no buffer yet (an empty one): not a range failure, outside the guards' scope.
static bool csp_reset_bytes_has_no_buffer(const CSPCall *call);

/// Whether a nil set reaches NULL: the receiver uses NSString's generic implementation or the constant string's (the
/// fuzzer's constant strings and app subclasses), and the range (`ranged`: argument 1; else the whole string) passes
/// the range check and is not empty.
static bool csp_nil_set_reads_null(const CSPCall *call, bool ranged);

/// Calls GNUstep itself cannot survive, with or without CrashShield: never generated (the fuzzer compares
/// outcomes, and these have none). Found by the fuzzer's own child processes; each one is GNUstep 1.28's.
static bool csp_foundation_fails(const CSPCall *call) {
    const CSPEntry *entry = &csp_entries[call->entry];
    // objectsAtIndexes: loops forever on a nil index set and on {NSNotFound-1} (its index walk never ends).
    if (entry->call == array_objectsAtIndexes || entry->call == oset_objectsAtIndexes) {
        return call->arguments[0] == 0 || call->arguments[0] == 9;
    }
    NSRange range;
    NSUInteger length;
    // replaceOccurrencesOfString:withString:options:range: checks location + length after it overflows, then reads
    // far past the string (SIGSEGV) for a range whose end is past 2^64 (CrashShield stops it: the crash matrix's
    // mutableString.replaceOccurrences.wrappingRange); stringByReplacingOccurrences...range: calls it.
    if (entry->call == mstring_replaceOccurrences || entry->call == string_byReplacingOccurrencesRange) {
        return csp_call_range(call, 2, &range, &length);
    }
    if (entry->call == mattr_addAttributes) return csp_add_attributes_hangs(call);
    // NSMutableData checks only the location: past it, replaceBytesInRange:withBytes: copies range.length bytes
    // (past the caller's buffer when longer; an end past 2^64 also past the data's: SIGSEGV), and the length form
    // moves the tail from the range's end (any end past the end: past the data's buffer). CrashShield stops the
    // second kind (the crash matrix proves it); neither can be made here without CrashShield.
    if (entry->call == mdata_replaceBytes) {
        bool wraps = csp_call_range(call, 0, &range, &length);
        return range.location <= length && (wraps || range.length > csp_source_length);
    }
    if (entry->call == mdata_replaceBytesLength || entry->call == mdata_deleteBytes) {
        csp_call_range(call, 0, &range, &length);
        return range.location <= length && range.location + range.length > length;
    }
    if (entry->call == mdata_resetBytes) return csp_reset_bytes_has_no_buffer(call);
    // NSString's generic rangeOfCharacterFromSet:options:range: and the constant string's call NULL for a nil set at
    // the first character they read (CrashShield stops it: the crash matrix's constantString.rangeOfCharacterFromSet.nilSet).
    if (entry->call == string_rangeOfCharacter || entry->call == string_rangeOfCharacterRange
        || entry->call == string_rangeOfCharacterBackwards) {
        return call->arguments[0] == 0 && csp_nil_set_reads_null(call, entry->call != string_rangeOfCharacter);
    }
    return false;
}

void csp_fuzz_generate(uint64_t *random, CSPCall *call) {
    pthread_once(&csp_candidates_once, csp_build_candidates);
    do {
        memset(call, 0, sizeof *call);
        call->entry = (uint32_t)(csp_next(random) % csp_entry_total);
        uint32_t candidates = csp_candidate_counts[call->entry];
        call->receiver = candidates ? csp_candidates[call->entry][csp_next(random) % candidates] : 0;
        for (int i = 0; i < 3; i++) {
            CSPArgKind kind = csp_entries[call->entry].arguments[i];
            call->arguments[i] = kind == CSPArgNone ? 0 : (uint32_t)(csp_next(random) % csp_arg_choices(kind));
        }
    } while (csp_foundation_fails(call));
}

uint64_t csp_fuzz_key(const CSPCall *call) {
    uint64_t key = call->entry;
    for (int i = 0; i < 3; i++) key = key * 256 + call->arguments[i];
    return key;
}

static const CSPReceiverKind *csp_kind(const CSPCall *call) {
    uint32_t kinds = 0;
    const CSPReceiverKind *table = csp_receiver_kinds(&kinds);
    return &table[call->receiver < kinds ? call->receiver : 0];
}

const char *csp_fuzz_receiver_name(const CSPCall *call) { return csp_kind(call)->name; }

static bool csp_call_range(const CSPCall *call, int slot, NSRange *range, NSUInteger *length) {
    bool wraps = false;
    CSP_POOL_BEGIN
    *length = csp_size_of(csp_kind(call)->make());
    wraps = csp_arg_range_value(call->arguments[slot], *length, range);
    CSP_POOL_END
    return wraps;
}

static bool csp_reset_bytes_has_no_buffer(const CSPCall *call) {
    bool raises = false;
    CSP_POOL_BEGIN
    NSMutableData *receiver = csp_kind(call)->make();
    NSRange range;
    csp_arg_range_value(call->arguments[0], [receiver length], &range);
    raises = [receiver mutableBytes] == NULL && range.location <= [receiver length] && range.length <= [receiver length] - range.location;
    CSP_POOL_END
    return raises;
}

static bool csp_nil_set_reads_null(const CSPCall *call, bool ranged) {
    bool reads = false;
    CSP_POOL_BEGIN
    NSString *receiver = csp_kind(call)->make();
    NSUInteger length = [receiver length];
    NSRange range = NSMakeRange(0, length);
    if (ranged) csp_arg_range_value(call->arguments[1], length, &range);
    bool generic = [receiver isKindOfClass: [@"" class]] || [receiver isKindOfClass: [CSPString class]]
        || [receiver isKindOfClass: [CSPMutableString class]];
    reads = generic && range.length > 0 && range.location <= length && range.length <= length - range.location;
    CSP_POOL_END
    return reads;
}

static bool csp_add_attributes_hangs(const CSPCall *call) {
    bool hangs = false;
    CSP_POOL_BEGIN
    NSAttributedString *receiver = csp_kind(call)->make();
    NSUInteger length = [receiver length];
    NSRange range;
    if (csp_arg_range_value(call->arguments[1], length, &range) && (uint32_t)range.location <= length) {
        NSRange run;
        [receiver attributesAtIndex: range.location effectiveRange: &run];
        hangs = run.location < range.location + range.length && range.location > NSMaxRange(run);
    }
    CSP_POOL_END
    return hangs;
}

bool csp_fuzz_in_scope(const CSPCall *call) { return csp_kind(call)->inScope; }

const char *csp_fuzz_selector(const CSPCall *call) {
    pthread_once(&csp_candidates_once, csp_build_candidates);
    return csp_selectors[call->entry < csp_entry_total ? call->entry : 0];
}

bool csp_fuzz_expects_recovery(const CSPCall *call) {
    if (!csp_kind(call)->inScope || call->entry >= csp_entry_total || !csp_entries[call->entry].guarded) return false;
    // GNUstep's replaceOccurrencesOfString:withString:options:range: (the replacing family's funnel) raises "bad
    // search string" / "bad replace string" for a nil argument (the guard's) and for one that is not a string
    // (Foundation's own, left to it): which one it is, the arguments say.
    void (*function)(id, CSPArgs *, CSPText *) = csp_entries[call->entry].call;
    if ((function == mstring_replaceOccurrences || function == string_byReplacingOccurrences
         || function == string_byReplacingOccurrencesRange)
        && (csp_arg_string_is_foreign(call->arguments[0]) || csp_arg_string_is_foreign(call->arguments[1]))) {
        return false;
    }
    if (!(csp_entries[call->entry].receivers & FNC)) return true;
    // A message to the wrong type is the guards' only when nothing implements it (a method that exists and raises,
    // like NSNumber's -rangeValue, is that class's own failure).
    bool responds = false;
    CSP_POOL_BEGIN
    responds = [csp_kind(call)->make() respondsToSelector: sel_registerName(csp_fuzz_selector(call))];
    CSP_POOL_END
    return !responds;
}

// MARK: Running

static char *csp_copy_string(NSString *string) {
    const char *bytes = [string UTF8String];
    return strdup(bytes ? bytes : "");
}

/// The receiver's description, or what went wrong describing it.
static char *csp_describe_receiver(id receiver) {
    @try {
        return csp_describe_copy(receiver, true);
    } @catch (NSException *exception) {
        return csp_copy_string([NSString stringWithFormat: @"<describing raised %@>", [exception name]]);
    }
}

void csp_fuzz_run(const CSPCall *call, CSPOutcome *outcome) {
    memset(outcome, 0, sizeof *outcome);
    const CSPEntry *entry = &csp_entries[call->entry < csp_entry_total ? call->entry : 0];
    CSP_POOL_BEGIN
    NSMutableArray *keep = [NSMutableArray array];
    id receiver = csp_kind(call)->make();
    NSUInteger size = csp_size_of(receiver);
    CSPArgs args;
    memset(&args, 0, sizeof args);
    outcome->before = csp_describe_receiver(receiver);
    CSPText result = {0};
    @try {
        for (int i = 0; i < 3; i++) csp_arg_realize(entry->arguments[i], call->arguments[i], i, size, &args, keep);
        entry->call(receiver, &args, &result);
    } @catch (NSException *exception) {
        outcome->exceptionName = csp_copy_string([exception name]);
        outcome->exceptionReason = csp_copy_string([exception reason]);
    } @catch (id other) {
        outcome->exceptionName = strdup("(not an NSException)");
        outcome->exceptionReason = strdup("");
    }
    outcome->result = csp_text_take(&result);
    outcome->after = csp_describe_receiver(receiver);
    CSP_POOL_END
}

void csp_outcome_free(CSPOutcome *outcome) {
    free(outcome->result);
    free(outcome->before);
    free(outcome->after);
    free(outcome->exceptionName);
    free(outcome->exceptionReason);
    memset(outcome, 0, sizeof *outcome);
}

char *csp_fuzz_describe(const CSPCall *call) {
    const CSPEntry *entry = &csp_entries[call->entry < csp_entry_total ? call->entry : 0];
    CSPText text = {0};
    CSP_POOL_BEGIN
    id receiver = csp_kind(call)->make();
    NSUInteger size = csp_size_of(receiver);
    csp_text_appendf(&text, "%s on %s = ", entry->name, csp_kind(call)->name);
    csp_describe(&text, receiver, true);
    for (int i = 0; i < 3 && entry->arguments[i] != CSPArgNone; i++) {
        csp_text_append(&text, i ? "; " : " with ");
        csp_arg_describe(entry->arguments[i], call->arguments[i], size, &text);
    }
    CSP_POOL_END
    return csp_text_take(&text);
}
