// CSSFoundationScenarios.m: everyday Foundation calls beyond the first families (issue 24) that crash without
// CrashShield: NSString's C-string and byte constructors given NULL, `getCharacters:range:` past the end. Each row
// is what the running Foundation raises (GNUstep's source cited at the guard); the probes below try the valid and
// invalid edges of each call against Foundation itself (the differential tests).
#import <Foundation/Foundation.h>
#include <stdint.h>
#include <string.h>
#include "CSSFamilies.h"
#include "CSSMemory.h"

static const char *bracketed(NSString *string) { return string ? css_format("[%s]", [string UTF8String]) : "nil"; }
static const char *nullCString(void) { return (const char *)(uintptr_t)css_opaque_index(0); }

// MARK: C-string and byte constructors given NULL

static const char *stringWithCStringEncodingNull(void) {
    return bracketed([NSString stringWithCString: nullCString() encoding: NSISOLatin1StringEncoding]);
}
static const char *initWithCStringEncodingNull(void) {
    return bracketed(CSS_AUTORELEASE([[NSString alloc] initWithCString: nullCString() encoding: NSASCIIStringEncoding]));
}
static const char *mutableInitWithCStringEncodingNull(void) {
    return bracketed(CSS_AUTORELEASE([[NSMutableString alloc] initWithCString: nullCString() encoding: NSUTF8StringEncoding]));
}
static const char *initWithBytesNull(void) {
    return bracketed(CSS_AUTORELEASE([[NSString alloc] initWithBytes: nullCString() length: css_opaque_index(3) encoding: NSUTF8StringEncoding]));
}
static const char *mutableInitWithBytesNull(void) {
    return bracketed(CSS_AUTORELEASE([[NSMutableString alloc] initWithBytes: nullCString() length: css_opaque_index(4)
                                                                  encoding: NSASCIIStringEncoding]));
}
/// GNUstep's GSMutableString looks for a byte order mark in the NULL bytes first (SIGSEGV).
static const char *mutableInitWithBytesNullUnicode(void) {
    return bracketed(CSS_AUTORELEASE([[NSMutableString alloc] initWithBytes: nullCString() length: css_opaque_index(4)
                                                                  encoding: NSUnicodeStringEncoding]));
}

// MARK: getCharacters:range:

/// The buffer after the call: 8 characters, '.' where nothing was written.
static const char *buffered(NSString *string, NSRange range) {
    unichar buffer[8] = { '.', '.', '.', '.', '.', '.', '.', '.' };
    [string getCharacters: buffer range: range];
    return [[NSString stringWithCharacters: buffer length: 8] UTF8String];
}
static const char *getCharactersPastEnd(void) {
    return buffered(css_opaque([NSString stringWithUTF8String: "hello"]), NSMakeRange(3, css_opaque_index(3)));
}
static const char *constantGetCharactersNotFound(void) {
    return buffered(css_opaque(@"hello"), NSMakeRange(css_opaque_index(NSNotFound), 0));
}
static const char *mutableGetCharactersWrappingRange(void) {
    return buffered(css_opaque([NSMutableString stringWithString: @"hello"]), css_range(css_opaque_index(2), NSUIntegerMax));
}

// MARK: Attributed strings

static NSDictionary *kv(void) { return [NSDictionary dictionaryWithObject: @"v" forKey: @"k"]; }
/// The text and the attributes of each run: "[hello] {k=v}@0+5".
static const char *runs(NSAttributedString *a) {
    if (!a) return "nil";
    NSMutableString *text = [NSMutableString stringWithFormat: @"[%@]", [a string]];
    NSUInteger at = 0;
    while (at < [a length]) {
        NSRange run;
        NSDictionary *attributes = [a attributesAtIndex: at effectiveRange: &run];
        [text appendFormat: @" %s@%lu+%lu", css_dictionary_contents(attributes), (unsigned long)run.location, (unsigned long)run.length];
        at = run.location + run.length;
    }
    return [text UTF8String];
}
static const char *attributedInitWithStringAttributesNil(void) {
    return runs(CSS_AUTORELEASE([[NSAttributedString alloc] initWithString: css_opaque(nil) attributes: kv()]));
}
static const char *mutableAttributedInitWithAttributedStringNil(void) {
    return runs(CSS_AUTORELEASE([[NSMutableAttributedString alloc] initWithAttributedString: css_opaque(nil)]));
}
static const char *insertAttributedStringPastEnd(void) {
    NSMutableAttributedString *a = css_opaque(CSS_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello" attributes: kv()]));
    NSAttributedString *x = CSS_AUTORELEASE([[NSAttributedString alloc] initWithString: @"x"]);
    [a insertAttributedString: x atIndex: css_opaque_index(6)];
    return runs(a);
}

// MARK: Base64 and numbers

static const char *describedObject(id object) { return object ? css_describe(object) : "nil"; }
static const char *dataInitWithBase64StringNil(void) {
    return describedObject(CSS_AUTORELEASE([[NSData alloc] initWithBase64EncodedString: css_opaque(nil) options: 0]));
}
static const char *mutableDataInitWithBase64DataNil(void) {
    return describedObject(CSS_AUTORELEASE([[NSMutableData alloc] initWithBase64EncodedData: css_opaque(nil)
                                                                              options: NSDataBase64DecodingIgnoreUnknownCharacters]));
}
static const char *numberCompareNil(void) {
    return css_format("%ld", (long)[css_opaque([NSNumber numberWithInt: 42]) compare: css_opaque(nil)]);
}
static const char *numberIsEqualToNumberNil(void) {
    return [css_opaque([NSNumber numberWithUnsignedLongLong: 7]) isEqualToNumber: css_opaque(nil)] ? "YES" : "NO";
}

// MARK: NSMutableArray

static NSMutableArray *abc(void) { return css_opaque([NSMutableArray arrayWithObjects: @"a", @"b", @"c", nil]); }
static const char *contents(NSArray *array) { return [[array componentsJoinedByString: @","] UTF8String]; }
/// GNUstep replaces index 1, then raises at 5: protected, nothing is replaced.
static const char *replaceObjectsAtIndexesPastEnd(void) {
    NSMutableArray *a = abc();
    [a replaceObjectsAtIndexes: css_index_set_pair(1, css_opaque_index(5)) withObjects: [NSArray arrayWithObjects: @"x", @"y", nil]];
    return contents(a);
}

// MARK: NSURL

static const char *fileURLWithPathNil(void) { return describedObject([NSURL fileURLWithPath: css_opaque(nil)]); }
static const char *initFileURLWithPathIsDirectoryNil(void) {
    return describedObject(CSS_AUTORELEASE([[NSURL alloc] initFileURLWithPath: css_opaque(nil) isDirectory: YES]));
}

// MARK: NSDate (GNUstep raises; Apple does not)

#if !defined(__APPLE__)
static const char *dateCompareNil(void) {
    return css_format("%ld", (long)[css_opaque([NSDate dateWithTimeIntervalSince1970: 0]) compare: css_opaque(nil)]);
}
static const char *distantPastCompareNil(void) { return css_format("%ld", (long)[css_opaque([NSDate distantPast]) compare: css_opaque(nil)]); }
#endif

// MARK: NSUserDefaults values that are not property lists

static NSString *const css_plist_key = @"CrashShieldPlistKey";
/// Stores "kept" under the key, then `value`; describes what the key holds after (the key removed again).
static const char *defaultsAfterSetting(id value) {
    NSUserDefaults *d = css_opaque([NSUserDefaults standardUserDefaults]);
    [d setObject: @"kept" forKey: css_plist_key];
    [d setObject: css_opaque(value) forKey: css_plist_key];
    const char *stored = css_format("stored=%s", css_describe([d objectForKey: css_plist_key]));
    [d removeObjectForKey: css_plist_key];
    return stored;
}
static NSURL *exampleURL(void) { return [NSURL URLWithString: @"https://example.com/a"]; }
static const char *defaultsSetNullInDictionary(void) {
    return defaultsAfterSetting([NSDictionary dictionaryWithObject: [NSNull null] forKey: @"a"]);
}
static const char *defaultsSetNestedNull(void) {
    NSDictionary *inner = [NSDictionary dictionaryWithObject: [NSArray arrayWithObjects: @"x", [NSNull null], nil] forKey: @"b"];
    return defaultsAfterSetting([NSArray arrayWithObjects: [NSNumber numberWithInt: 1], inner, nil]);
}
static const char *defaultsSetURL(void) { return defaultsAfterSetting(exampleURL()); }

// MARK: Keyed archives

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static NSData *textData(const char *text) { return [NSData dataWithBytes: text length: strlen(text)]; }
/// What `+unarchiveObjectWithData:` answered, described ("nil" for nil).
static id unarchivedFrom(Class cls, NSData *data) {
    id object = [cls unarchiveObjectWithData: data];
    return object ? [object description] : @"nil";
}
/// Old-style property-list text that parses as a string: GNUstep sends it `objectForKey:`.
static const char *unarchiveText(void) {
    return [unarchivedFrom([NSKeyedUnarchiver class], css_opaque(textData("hello"))) UTF8String];
}
/// An array property list in binary form: GNUstep sends the array `objectForKey:`.
static NSData *binaryArray(void) {
    NSArray *array = [NSArray arrayWithObjects: @"a", @"b", nil];
    return [NSPropertyListSerialization dataWithPropertyList: array format: NSPropertyListBinaryFormat_v1_0 options: 0 error: NULL];
}
static const char *unarchiveBinaryArray(void) {
    return [unarchivedFrom([NSKeyedUnarchiver class], css_opaque(binaryArray())) UTF8String];
}
/// A keyed archive cut short (a file whose writing was interrupted): GNUstep's binary parser reads a trailer made
/// of the archive's own bytes and raises NSGenericException (`Unknown offset size 165`).
static NSData *truncatedArchive(void) {
    NSData *whole = [NSKeyedArchiver archivedDataWithRootObject: [NSArray arrayWithObjects: @"a", @"b", nil]];
    return [whole subdataWithRange: NSMakeRange(0, [whole length] - 8)];
}
static const char *unarchiveTruncatedArchive(void) {
    return [unarchivedFrom([NSKeyedUnarchiver class], css_opaque(truncatedArchive())) UTF8String];
}
/// Bytes GNUstep reads as its old serialized property-list format, past their end (`getBytes:range:` inside the
/// initializer: NSRangeException).
static const char *unarchiveSerializedPastEnd(void) {
    return [unarchivedFrom([NSKeyedUnarchiver class], css_opaque([NSData dataWithBytes: "\0\1\xae" length: 3])) UTF8String];
}
#pragma clang diagnostic pop

static const CSSScenario css_foundation_table[] = {
    { "string.stringWithCStringEncoding.null", "string", "stringWithCString:encoding:", "NSInvalidArgumentException", "[]", 1, stringWithCStringEncodingNull },
    { "string.initWithCStringEncoding.null", "string", "initWithCString:encoding:", "NSInvalidArgumentException", "[]", 1, initWithCStringEncodingNull },
    { "mutableString.initWithCStringEncoding.null", "string", "initWithCString:encoding:", "NSInvalidArgumentException", "[]", 1, mutableInitWithCStringEncodingNull },
#if defined(__APPLE__)
    // CoreFoundation reads the NULL bytes (a crash, not an exception; unverified on a device).
    { "string.initWithBytesLengthEncoding.null", "string", "initWithBytes:length:encoding:", "SIGSEGV", "[]", 1, initWithBytesNull },
    { "mutableString.initWithBytesLengthEncoding.null", "string", "initWithBytes:length:encoding:", "SIGSEGV", "[]", 1, mutableInitWithBytesNull },
#else
    { "string.initWithBytesLengthEncoding.null", "string", "initWithBytes:length:encoding:", "NSInvalidArgumentException", "[]", 1, initWithBytesNull },
    { "mutableString.initWithBytesLengthEncoding.null", "string", "initWithBytes:length:encoding:", "NSInvalidArgumentException", "[]", 1, mutableInitWithBytesNull },
#endif
    { "mutableString.initWithBytesLengthEncoding.nullUnicode", "string", "initWithBytes:length:encoding:", "SIGSEGV", "[]", 1, mutableInitWithBytesNullUnicode },
    { "string.getCharactersRange.pastEnd", "string", "getCharacters:range:", "NSRangeException", "........", 1, getCharactersPastEnd },
    { "constantString.getCharactersRange.notFound", "string", "getCharacters:range:", "NSRangeException", "........", 1, constantGetCharactersNotFound },
    { "mutableString.getCharactersRange.wrappingRange", "string", "getCharacters:range:", "NSRangeException", "........", 1, mutableGetCharactersWrappingRange },
    { "attributedString.initWithStringAttributes.nil", "string", "initWithString:attributes:", "NSInvalidArgumentException", "[]", 1, attributedInitWithStringAttributesNil },
    { "mutableAttributedString.initWithAttributedString.nil", "string", "initWithString:attributes:", "NSInvalidArgumentException", "[]", 1, mutableAttributedInitWithAttributedStringNil },
    // insertAttributedString:atIndex: funnels into replaceCharactersInRange:withAttributedString: (guarded there).
    { "mutableAttributedString.insertAttributedString.pastEnd", "string", "replaceCharactersInRange:withAttributedString:", "NSRangeException", "[hello] {k=v}@0+5", 1, insertAttributedStringPastEnd },
    { "data.initWithBase64EncodedString.nil", "container", "initWithBase64EncodedString:options:", "NSInvalidArgumentException", "nil", 1, dataInitWithBase64StringNil },
    { "mutableData.initWithBase64EncodedData.nil", "container", "initWithBase64EncodedData:options:", "NSInvalidArgumentException", "nil", 1, mutableDataInitWithBase64DataNil },
    { "number.compare.nil", "container", "compare:", "NSInvalidArgumentException", "1", 1, numberCompareNil },
    // isEqualToNumber: funnels into compare: (guarded there).
    { "number.isEqualToNumber.nil", "container", "compare:", "NSInvalidArgumentException", "NO", 1, numberIsEqualToNumberNil },
    { "mutableArray.replaceObjectsAtIndexes.pastEnd", "container", "replaceObjectsAtIndexes:withObjects:", "NSRangeException", "a,b,c", 1, replaceObjectsAtIndexesPastEnd },
    { "url.fileURLWithPath.nil", "container", "initFileURLWithPath:", "NSInvalidArgumentException", "nil", 1, fileURLWithPathNil },
    { "url.initFileURLWithPathIsDirectory.nil", "container", "initFileURLWithPath:isDirectory:", "NSInvalidArgumentException", "nil", 1, initFileURLWithPathIsDirectoryNil },
    { "userDefaults.setObjectForKey.nullInDictionary", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=kept", 1, defaultsSetNullInDictionary },
    { "userDefaults.setObjectForKey.nestedNull", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=kept", 1, defaultsSetNestedNull },
    { "userDefaults.setObjectForKey.url", "container", "setObject:forKey:", "NSInvalidArgumentException", "stored=kept", 1, defaultsSetURL },
#if !defined(__APPLE__)
    { "date.compare.nil", "container", "compare:", "NSInvalidArgumentException", "1", 1, dateCompareNil },
    { "distantPast.compare.nil", "container", "compare:", "NSInvalidArgumentException", "1", 1, distantPastCompareNil },
    // Apple raises for these only in apps linked against an older SDK (Docs/AppleRuntime.md §15): GNUstep's rows.
    { "keyedUnarchiver.unarchiveObjectWithData.text", "container", "initForReadingWithData:", "NSInvalidArgumentException", "nil", 1, unarchiveText },
    { "keyedUnarchiver.unarchiveObjectWithData.binaryArray", "container", "initForReadingWithData:", "NSInvalidArgumentException", "nil", 1, unarchiveBinaryArray },
    { "keyedUnarchiver.unarchiveObjectWithData.truncatedArchive", "container", "initForReadingWithData:", "NSGenericException", "nil", 1, unarchiveTruncatedArchive },
    { "keyedUnarchiver.unarchiveObjectWithData.serializedPastEnd", "container", "initForReadingWithData:", "NSRangeException", "nil", 1, unarchiveSerializedPastEnd },
#endif
};

const CSSScenario *css_foundation_scenarios(int *count) {
    *count = (int)(sizeof css_foundation_table / sizeof css_foundation_table[0]);
    return css_foundation_table;
}

// MARK: Differential probes

static id freshHello(void) { return [NSString stringWithUTF8String: "hello"]; }
static id freshConstantHello(void) { return @"hello"; }
static id freshMutableHello(void) { return [NSMutableString stringWithUTF8String: "hello"]; }
static id freshWide(void) { return [NSString stringWithUTF8String: "h\xc3\xa9llo"]; }
/// A literal past ASCII: 5 characters in 6 bytes: a range check that counted its bytes would be wrong (CrashShield's
/// range checks ask every string its `length`).
static id freshWideConstant(void) { return @"h\u00e9llo"; }
static id stringClass(void) { return [NSString class]; }
static id mutableStringClass(void) { return [NSMutableString class]; }

/// The whole buffer, so a write past the range would show.
static id rGetCharacters(id s, NSRange r) {
    unichar buffer[8] = { '.', '.', '.', '.', '.', '.', '.', '.' };
    [s getCharacters: buffer range: r];
    return [NSString stringWithCharacters: buffer length: 8];
}
#define CSS_FOUNDATION_EDGE_CALLS(call)                                                     \
    static id call##Empty(id s, NSUInteger i) { return call(s, NSMakeRange(i, 0)); }        \
    static id call##One(id s, NSUInteger i) { return call(s, NSMakeRange(i, 1)); }          \
    static id call##To(id s, NSUInteger i) { return call(s, NSMakeRange(0, i)); }           \
    CSS_OVERFLOW_PROBE_CALLS(call)
#define CSS_FOUNDATION_EDGE_PROBES(name, size, receiver, call)                              \
    { name "{i,0}", size, receiver, call##Empty },                                          \
    { name "{i,1}", size, receiver, call##One },                                            \
    { name "{0,i}", size, receiver, call##To },                                             \
    CSS_OVERFLOW_PROBES(name, size, receiver, call)
CSS_FOUNDATION_EDGE_CALLS(rGetCharacters)

/// NULL bytes (odd i) or "hello\xe9..." (even i), i bytes long (at most 8 read: a longer i makes no call with bytes).
static const char css_bytes[] = "hello\xc3\xa9!";
static id constructed(id made) { return CSS_AUTORELEASE(made); }
static id pInitWithBytes(id cls, NSUInteger i, NSStringEncoding encoding) {
    const char *bytes = i % 2 ? NULL : css_bytes;
    if (bytes && i > sizeof css_bytes - 1) return css_probe_skipped();
    // GNUstep's GSMutableString reads NULL bytes for a byte order mark (UTF-8 from 3 bytes, UTF-16 from 2): SIGSEGV,
    // the matrix's mutableString.initWithBytesLengthEncoding.nullUnicode.
    if (!bytes && cls == [NSMutableString class] && ((encoding == NSUTF8StringEncoding && i >= 3)
                                                    || (encoding == NSUnicodeStringEncoding && i >= 2))) {
        return css_probe_skipped();
    }
#if defined(__APPLE__)
    if (!bytes && i > 0) return css_probe_skipped();   // CoreFoundation reads them: a crash
#endif
    return constructed([[cls alloc] initWithBytes: bytes length: i encoding: encoding]);
}
static id pInitWithBytesASCII(id cls, NSUInteger i) { return pInitWithBytes(cls, i, NSASCIIStringEncoding); }
static id pInitWithBytesUTF8(id cls, NSUInteger i) { return pInitWithBytes(cls, i, NSUTF8StringEncoding); }
static id pInitWithBytesUnicode(id cls, NSUInteger i) { return pInitWithBytes(cls, i & ~(NSUInteger)1, NSUnicodeStringEncoding); }
static id pInitWithBytesUnicodeNull(id cls, NSUInteger i) { return pInitWithBytes(cls, i | 1, NSUnicodeStringEncoding); }
/// NULL for odd i, else "hello" (encodings by i: ASCII, UTF-8, Latin-1).
static id pInitWithCString(id cls, NSUInteger i) {
    static const NSStringEncoding encodings[] = { NSASCIIStringEncoding, NSUTF8StringEncoding, NSISOLatin1StringEncoding };
    return constructed([[cls alloc] initWithCString: (i % 2 ? NULL : "hello") encoding: encodings[i % 3]]);
}
static id pStringWithCString(id cls, NSUInteger i) {
    return [cls stringWithCString: (i % 2 ? NULL : "h\xe9llo") encoding: (i % 4 < 2 ? NSISOLatin1StringEncoding : NSUTF8StringEncoding)];
}

static id attributedClass(void) { return [NSAttributedString class]; }
static id mutableAttributedClass(void) { return [NSMutableAttributedString class]; }
/// "hello" with {k=v} on {1, 2}: three runs.
static id freshRuns(void) {
    NSMutableAttributedString *a = CSS_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"hello"]);
    [a addAttributes: kv() range: NSMakeRange(1, 2)];
    return a;
}
static NSAttributedString *xy(void) { return CSS_AUTORELEASE([[NSAttributedString alloc] initWithString: @"xy" attributes: kv()]); }
static id described(NSAttributedString *a) { return a ? [NSString stringWithUTF8String: runs(a)] : nil; }
/// nil for odd i, else "hello".
static id pInitWithStringAttributes(id cls, NSUInteger i) {
    return described(CSS_AUTORELEASE([[cls alloc] initWithString: (i % 2 ? nil : @"hello") attributes: (i % 4 < 2 ? kv() : nil)]));
}
static id pInitWithAttributedString(id cls, NSUInteger i) {
    return described(CSS_AUTORELEASE([[cls alloc] initWithAttributedString: (i % 2 ? nil : xy())]));
}
static id pInitWithString(id cls, NSUInteger i) { return described(CSS_AUTORELEASE([[cls alloc] initWithString: (i % 2 ? nil : @"hello")])); }
static id pAppendAttributed(id a, NSUInteger i) { [a appendAttributedString: (i % 2 ? nil : xy())]; return described(a); }
static id pInsertAttributed(id a, NSUInteger i) { [a insertAttributedString: xy() atIndex: i]; return described(a); }
static id pInsertAttributedNil(id a, NSUInteger i) { [a insertAttributedString: nil atIndex: i]; return described(a); }
static id pSetAttributed(id a, NSUInteger i) { [a setAttributedString: (i % 2 ? nil : xy())]; return described(a); }

static id dataClass(void) { return [NSData class]; }
static id mutableDataClass(void) { return [NSMutableData class]; }
/// nil (i % 4 == 1), "aGVsbG8=" (0), "aGV sbG8" (2: decodes only when unknown characters are ignored), "!" (3);
/// options by i: none, or ignore unknown characters.
static NSString *base64Text(NSUInteger i) {
    static NSString *const texts[] = { @"aGVsbG8=", nil, @"aGV sbG8", @"!" };
    return texts[i % 4];
}
static NSDataBase64DecodingOptions base64Options(NSUInteger i) { return (i / 4) % 2 ? NSDataBase64DecodingIgnoreUnknownCharacters : 0; }
/// GNUstep raises NSMallocException ("Default zone has run out of memory") when every character is ignored
/// ("!" with NSDataBase64DecodingIgnoreUnknownCharacters: it reallocates its buffer to 0 bytes): Foundation's own
/// failure, not a nil argument, left to it and not probed.
static bool base64DecodesToNothing(NSUInteger i) { return i % 4 == 3 && base64Options(i) != 0; }
static id pBase64String(id cls, NSUInteger i) {
    if (base64DecodesToNothing(i)) return css_probe_skipped();
    return CSS_AUTORELEASE([[cls alloc] initWithBase64EncodedString: base64Text(i) options: base64Options(i)]);
}
static id pBase64Data(id cls, NSUInteger i) {
    if (base64DecodesToNothing(i)) return css_probe_skipped();
    NSData *data = [base64Text(i) dataUsingEncoding: NSUTF8StringEncoding];
    return CSS_AUTORELEASE([[cls alloc] initWithBase64EncodedData: data options: base64Options(i)]);
}
static id freshInt(void) { return [NSNumber numberWithInt: 3]; }
static id freshUnsigned(void) { return [NSNumber numberWithUnsignedLongLong: ~0ULL]; }
static id freshDouble(void) { return [NSNumber numberWithDouble: 2.5]; }
static id freshZeroFloat(void) { return [NSNumber numberWithFloat: 0]; }
static id freshBool(void) { return [NSNumber numberWithBool: NO]; }
/// nil for odd i, else i as a number (an int, or a double for i % 4 == 2).
static NSNumber *other(NSUInteger i) {
    if (i % 2) return nil;
    return i % 4 == 2 ? [NSNumber numberWithDouble: (double)i + 0.5] : [NSNumber numberWithUnsignedLong: (unsigned long)i];
}
static id pCompare(id n, NSUInteger i) { return [NSNumber numberWithLong: (long)[n compare: other(i)]]; }
static id pIsEqualToNumber(id n, NSUInteger i) { return [n isEqualToNumber: other(i)] ? @"YES" : @"NO"; }

static id freshABC(void) { return [NSMutableArray arrayWithObjects: @"a", @"b", @"c", nil]; }
static id freshEmpty(void) { return [NSMutableArray array]; }
static NSArray *xy2(void) { return [NSArray arrayWithObjects: @"x", @"y", nil]; }
static id pReplaceAtIndex(id a, NSUInteger i) { [a replaceObjectsAtIndexes: css_index_set(i) withObjects: xy2()]; return nil; }
static id pReplaceAtPair(id a, NSUInteger i) {
    NSIndexSet *set = css_index_set_pair(0, i);
    if (!set) return css_probe_skipped();
    [a replaceObjectsAtIndexes: set withObjects: [NSArray arrayWithObject: @"x"]];
    return nil;
}
static id pReplaceAtPairTwo(id a, NSUInteger i) {
    NSIndexSet *set = css_index_set_pair(1, i);
    if (!set) return css_probe_skipped();
    [a replaceObjectsAtIndexes: set withObjects: xy2()];
    return nil;
}
static id pReplaceAtNilSet(id a, NSUInteger i) { [a replaceObjectsAtIndexes: nil withObjects: (i % 2 ? nil : xy2())]; return nil; }
static id pReplaceWithNil(id a, NSUInteger i) { [a replaceObjectsAtIndexes: css_index_set(i) withObjects: nil]; return nil; }
static id rRemoveObjectInRange(id a, NSRange r) { [a removeObject: @"b" inRange: r]; return nil; }
static id rRemoveNilInRange(id a, NSRange r) { [a removeObject: nil inRange: r]; return nil; }
CSS_FOUNDATION_EDGE_CALLS(rRemoveObjectInRange)
CSS_FOUNDATION_EDGE_CALLS(rRemoveNilInRange)

static id urlClass(void) { return [NSURL class]; }
/// nil for odd i, else an absolute or a relative path.
static NSString *urlPath(NSUInteger i) { return i % 2 ? nil : (i % 4 ? @"relative/file" : @"/tmp/crashshield-probe"); }
static id pFileURL(id cls, NSUInteger i) { return [[cls fileURLWithPath: urlPath(i)] absoluteString]; }
static id pFileURLIsDirectory(id cls, NSUInteger i) { return [[cls fileURLWithPath: urlPath(i) isDirectory: i % 3 == 0] absoluteString]; }
static id pInitFileURL(id cls, NSUInteger i) { return [CSS_AUTORELEASE([[cls alloc] initFileURLWithPath: urlPath(i)]) absoluteString]; }
static id pURLByAppendingNil(id cls, NSUInteger i) {
    return [[[cls URLWithString: @"http://example.com/a"] URLByAppendingPathComponent: (i % 2 ? nil : @"b")] absoluteString];
}

static id freshDate(void) { return [NSDate dateWithTimeIntervalSince1970: 3]; }
static id freshDistantFuture(void) { return [NSDate distantFuture]; }
/// nil for odd i, else a date i seconds after 1970.
static id pDateCompare(id d, NSUInteger i) {
#if defined(__APPLE__)
    if (i % 2) return css_probe_skipped();   // undefined on Apple (not a documented exception)
#endif
    return [NSNumber numberWithLong: (long)[d compare: (i % 2 ? nil : [NSDate dateWithTimeIntervalSince1970: (double)i])]];
}
static id pIsEqualToDate(id d, NSUInteger i) {
    return [d isEqualToDate: (i % 2 ? nil : [NSDate dateWithTimeIntervalSince1970: (double)i])] ? @"YES" : @"NO";
}

static id standardDefaults(void) { return [NSUserDefaults standardUserDefaults]; }
/// `value` stored under a key holding "kept": what the key holds after (the key removed again).
static id defaultsSet(id d, id value) {
    [d setObject: @"kept" forKey: css_plist_key];
    [d setObject: value forKey: css_plist_key];
    NSString *stored = [NSString stringWithUTF8String: css_describe([d objectForKey: css_plist_key])];
    [d removeObjectForKey: css_plist_key];
    return stored;
}
static NSDate *epoch(void) { return [NSDate dateWithTimeIntervalSince1970: 0]; }
static NSData *someData(void) { return [@"data" dataUsingEncoding: NSUTF8StringEncoding]; }
static NSDictionary *one(id key, id value) { return [NSDictionary dictionaryWithObject: value forKey: key]; }
#define CSS_DEFAULTS_PROBE(name, expression) static id pDefaults##name(id d, NSUInteger i) { (void)i; return defaultsSet(d, (expression)); }
CSS_DEFAULTS_PROBE(String, @"s")
CSS_DEFAULTS_PROBE(Number, [NSNumber numberWithDouble: 3.5])
CSS_DEFAULTS_PROBE(Bool, [NSNumber numberWithBool: YES])
CSS_DEFAULTS_PROBE(Data, someData())
CSS_DEFAULTS_PROBE(Date, epoch())
CSS_DEFAULTS_PROBE(EmptyArray, [NSArray array])
CSS_DEFAULTS_PROBE(EmptyDictionary, [NSMutableDictionary dictionary])
CSS_DEFAULTS_PROBE(Nested, one(@"a", ([NSArray arrayWithObjects: [NSNumber numberWithInt: 1], @"x", someData(), epoch(),
                                      one(@"b", [NSMutableArray arrayWithObject: one(@"c", @"d")]), nil])))
CSS_DEFAULTS_PROBE(NumberKey, one([NSNumber numberWithInt: 1], @"one"))
CSS_DEFAULTS_PROBE(DateKey, one(epoch(), @"v"))
CSS_DEFAULTS_PROBE(Null, [NSNull null])
CSS_DEFAULTS_PROBE(NullInDictionary, one(@"a", [NSNull null]))
CSS_DEFAULTS_PROBE(NullKey, one([NSNull null], @"v"))
CSS_DEFAULTS_PROBE(URL, exampleURL())
CSS_DEFAULTS_PROBE(URLDeep, one(@"a", [NSArray arrayWithObjects: @"x", one(@"b", [NSArray arrayWithObject: exampleURL()]), nil]))
CSS_DEFAULTS_PROBE(Set, [NSSet setWithObject: @"s"])

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static id keyedUnarchiverClass(void) { return [NSKeyedUnarchiver class]; }
/// Each kind of data an app may hand `+unarchiveObjectWithData:`; the index is not used.
#define CSS_UNARCHIVE_PROBE(NAME, DATA) \
    static id NAME(id cls, NSUInteger i) { (void)i; return unarchivedFrom(cls, (DATA)); }
CSS_UNARCHIVE_PROBE(pUnarchiveString, [NSKeyedArchiver archivedDataWithRootObject: @"hello"])
CSS_UNARCHIVE_PROBE(pUnarchiveArray, [NSKeyedArchiver archivedDataWithRootObject: xy2()])
CSS_UNARCHIVE_PROBE(pUnarchiveNil, nil)
CSS_UNARCHIVE_PROBE(pUnarchiveEmpty, [NSData data])
CSS_UNARCHIVE_PROBE(pUnarchiveJSON, textData("{\"a\": 1}"))
CSS_UNARCHIVE_PROBE(pUnarchiveDictionaryText, textData("{ a = 1; }"))
CSS_UNARCHIVE_PROBE(pUnarchiveStringText, textData("hello"))
CSS_UNARCHIVE_PROBE(pUnarchiveNumberText, textData("12"))
CSS_UNARCHIVE_PROBE(pUnarchiveArrayText, textData("(1, 2)"))
CSS_UNARCHIVE_PROBE(pUnarchiveXMLArray, [NSPropertyListSerialization dataWithPropertyList: xy2()
    format: NSPropertyListXMLFormat_v1_0 options: 0 error: NULL])
CSS_UNARCHIVE_PROBE(pUnarchiveBinaryArray, binaryArray())
CSS_UNARCHIVE_PROBE(pUnarchiveTruncatedArchive, truncatedArchive())
CSS_UNARCHIVE_PROBE(pUnarchiveBinaryPrefix, textData("bplist"))
CSS_UNARCHIVE_PROBE(pUnarchiveBinaryMagic, textData("bplist00"))
static id propertyListSerializationClass(void) { return [NSPropertyListSerialization class]; }
/// Short data GNUstep reads as its old serialized format, by i: three read past their end inside the deserializer
/// (`getBytes:range:`: NSRangeException, Foundation's own call), one holds a bad cross reference.
static id pPropertyListSerialized(id cls, NSUInteger i) {
    static const char *const samples[] = { "\0\1\xae", "\0", "\0\6", "\1\0\0\0\0\0\0\0\0\7" };
    static const NSUInteger lengths[] = { 3, 1, 2, 10 };
    NSData *data = [NSData dataWithBytes: samples[i % 4] length: lengths[i % 4]];
    id object = [cls propertyListWithData: data options: 0 format: NULL error: NULL];
    return object ? [object description] : @"nil";
}
CSS_UNARCHIVE_PROBE(pUnarchiveZeroByte, [NSData dataWithBytes: "\0" length: 1])
CSS_UNARCHIVE_PROBE(pUnarchiveSerialized, [NSData dataWithBytes: "\0\1\xae" length: 3])
#pragma clang diagnostic pop

static const CSSProbe css_foundation_probe_table[] = {
    CSS_FOUNDATION_EDGE_PROBES("string.getCharacters:range:", 5, freshHello, rGetCharacters),
    CSS_FOUNDATION_EDGE_PROBES("constantString.getCharacters:range:", 5, freshConstantHello, rGetCharacters),
    CSS_FOUNDATION_EDGE_PROBES("mutableString.getCharacters:range:", 5, freshMutableHello, rGetCharacters),
    CSS_FOUNDATION_EDGE_PROBES("wideString.getCharacters:range:", 5, freshWide, rGetCharacters),
    CSS_FOUNDATION_EDGE_PROBES("wideConstantString.getCharacters:range:", 5, freshWideConstant, rGetCharacters),
    { "stringClass.initWithBytes:length:encoding:ASCII", 8, stringClass, pInitWithBytesASCII },
    { "stringClass.initWithBytes:length:encoding:UTF8", 8, stringClass, pInitWithBytesUTF8 },
    { "stringClass.initWithBytes:length:encoding:Unicode", 8, stringClass, pInitWithBytesUnicode },
    { "stringClass.initWithBytes:length:encoding:UnicodeNull", 8, stringClass, pInitWithBytesUnicodeNull },
    { "mutableStringClass.initWithBytes:length:encoding:ASCII", 8, mutableStringClass, pInitWithBytesASCII },
    { "mutableStringClass.initWithBytes:length:encoding:UTF8", 8, mutableStringClass, pInitWithBytesUTF8 },
    { "mutableStringClass.initWithBytes:length:encoding:Unicode", 8, mutableStringClass, pInitWithBytesUnicode },
    { "stringClass.initWithCString:encoding:", 5, stringClass, pInitWithCString },
    { "mutableStringClass.initWithCString:encoding:", 5, mutableStringClass, pInitWithCString },
    { "stringClass.stringWithCString:encoding:", 5, stringClass, pStringWithCString },
    { "mutableStringClass.stringWithCString:encoding:", 5, mutableStringClass, pStringWithCString },
    { "attributedClass.initWithString:attributes:", 5, attributedClass, pInitWithStringAttributes },
    { "mutableAttributedClass.initWithString:attributes:", 5, mutableAttributedClass, pInitWithStringAttributes },
    { "attributedClass.initWithAttributedString:", 5, attributedClass, pInitWithAttributedString },
    { "mutableAttributedClass.initWithAttributedString:", 5, mutableAttributedClass, pInitWithAttributedString },
    { "attributedClass.initWithString:", 5, attributedClass, pInitWithString },
    { "mutableAttributedString.appendAttributedString:(x|nil)", 5, freshRuns, pAppendAttributed },
    { "mutableAttributedString.insertAttributedString:atIndex:", 5, freshRuns, pInsertAttributed },
    { "mutableAttributedString.insertAttributedString:nil atIndex:", 5, freshRuns, pInsertAttributedNil },
    { "mutableAttributedString.setAttributedString:(x|nil)", 5, freshRuns, pSetAttributed },
    { "dataClass.initWithBase64EncodedString:options:", 9, dataClass, pBase64String },
    { "dataClass.initWithBase64EncodedData:options:", 9, dataClass, pBase64Data },
    { "mutableDataClass.initWithBase64EncodedString:options:", 9, mutableDataClass, pBase64String },
    { "mutableDataClass.initWithBase64EncodedData:options:", 9, mutableDataClass, pBase64Data },
    { "intNumber.compare:(n|nil)", 5, freshInt, pCompare },
    { "unsignedNumber.compare:(n|nil)", 5, freshUnsigned, pCompare },
    { "doubleNumber.compare:(n|nil)", 5, freshDouble, pCompare },
    { "boolNumber.compare:(n|nil)", 5, freshBool, pCompare },
    { "intNumber.isEqualToNumber:(n|nil)", 5, freshInt, pIsEqualToNumber },
    { "unsignedNumber.isEqualToNumber:(n|nil)", 5, freshUnsigned, pIsEqualToNumber },
    { "doubleNumber.isEqualToNumber:(n|nil)", 5, freshDouble, pIsEqualToNumber },
    { "zeroFloatNumber.isEqualToNumber:(n|nil)", 5, freshZeroFloat, pIsEqualToNumber },
    { "mutableArray.replaceObjectsAtIndexes:{i} withObjects:(x,y)", 3, freshABC, pReplaceAtIndex },
    { "mutableArray.replaceObjectsAtIndexes:{0,i} withObjects:(x)", 3, freshABC, pReplaceAtPair },
    { "mutableArray.replaceObjectsAtIndexes:{1,i} withObjects:(x,y)", 3, freshABC, pReplaceAtPairTwo },
    { "mutableArray.replaceObjectsAtIndexes:nil withObjects:(x,y|nil)", 3, freshABC, pReplaceAtNilSet },
    { "emptyMutableArray.replaceObjectsAtIndexes:nil withObjects:(x,y|nil)", 0, freshEmpty, pReplaceAtNilSet },
    { "mutableArray.replaceObjectsAtIndexes:{i} withObjects:nil", 3, freshABC, pReplaceWithNil },
    CSS_FOUNDATION_EDGE_PROBES("mutableArray.removeObject:inRange:", 3, freshABC, rRemoveObjectInRange),
    CSS_FOUNDATION_EDGE_PROBES("mutableArray.removeObject:nil inRange:", 3, freshABC, rRemoveNilInRange),
    { "keyedUnarchiverClass.unarchiveObjectWithData:archivedString", -1, keyedUnarchiverClass, pUnarchiveString },
    { "keyedUnarchiverClass.unarchiveObjectWithData:archivedArray", -1, keyedUnarchiverClass, pUnarchiveArray },
    { "keyedUnarchiverClass.unarchiveObjectWithData:nil", -1, keyedUnarchiverClass, pUnarchiveNil },
    { "keyedUnarchiverClass.unarchiveObjectWithData:empty", -1, keyedUnarchiverClass, pUnarchiveEmpty },
    { "keyedUnarchiverClass.unarchiveObjectWithData:JSON", -1, keyedUnarchiverClass, pUnarchiveJSON },
    { "keyedUnarchiverClass.unarchiveObjectWithData:dictionaryText", -1, keyedUnarchiverClass, pUnarchiveDictionaryText },
    { "keyedUnarchiverClass.unarchiveObjectWithData:stringText", -1, keyedUnarchiverClass, pUnarchiveStringText },
    { "keyedUnarchiverClass.unarchiveObjectWithData:numberText", -1, keyedUnarchiverClass, pUnarchiveNumberText },
    { "keyedUnarchiverClass.unarchiveObjectWithData:arrayText", -1, keyedUnarchiverClass, pUnarchiveArrayText },
    { "keyedUnarchiverClass.unarchiveObjectWithData:XMLArray", -1, keyedUnarchiverClass, pUnarchiveXMLArray },
    { "keyedUnarchiverClass.unarchiveObjectWithData:binaryArray", -1, keyedUnarchiverClass, pUnarchiveBinaryArray },
    { "keyedUnarchiverClass.unarchiveObjectWithData:truncatedArchive", -1, keyedUnarchiverClass, pUnarchiveTruncatedArchive },
    { "keyedUnarchiverClass.unarchiveObjectWithData:bplist", -1, keyedUnarchiverClass, pUnarchiveBinaryPrefix },
    { "keyedUnarchiverClass.unarchiveObjectWithData:binaryMagic", -1, keyedUnarchiverClass, pUnarchiveBinaryMagic },
    { "propertyListSerializationClass.propertyListWithData:(serialized)", 3, propertyListSerializationClass, pPropertyListSerialized },
    { "keyedUnarchiverClass.unarchiveObjectWithData:zeroByte", -1, keyedUnarchiverClass, pUnarchiveZeroByte },
    { "keyedUnarchiverClass.unarchiveObjectWithData:serialized", -1, keyedUnarchiverClass, pUnarchiveSerialized },
    { "urlClass.fileURLWithPath:", 5, urlClass, pFileURL },
    { "urlClass.fileURLWithPath:isDirectory:", 5, urlClass, pFileURLIsDirectory },
    { "urlClass.initFileURLWithPath:", 5, urlClass, pInitFileURL },
    { "urlClass.URLByAppendingPathComponent:(b|nil)", 5, urlClass, pURLByAppendingNil },
    { "date.compare:(d|nil)", 5, freshDate, pDateCompare },
    { "distantFuture.compare:(d|nil)", 5, freshDistantFuture, pDateCompare },
    { "date.isEqualToDate:(d|nil)", 5, freshDate, pIsEqualToDate },
    { "userDefaults.setObject:String forKey:", -1, standardDefaults, pDefaultsString },
    { "userDefaults.setObject:Number forKey:", -1, standardDefaults, pDefaultsNumber },
    { "userDefaults.setObject:Bool forKey:", -1, standardDefaults, pDefaultsBool },
    { "userDefaults.setObject:Data forKey:", -1, standardDefaults, pDefaultsData },
    { "userDefaults.setObject:Date forKey:", -1, standardDefaults, pDefaultsDate },
    { "userDefaults.setObject:EmptyArray forKey:", -1, standardDefaults, pDefaultsEmptyArray },
    { "userDefaults.setObject:EmptyDictionary forKey:", -1, standardDefaults, pDefaultsEmptyDictionary },
    { "userDefaults.setObject:Nested forKey:", -1, standardDefaults, pDefaultsNested },
    { "userDefaults.setObject:NumberKey forKey:", -1, standardDefaults, pDefaultsNumberKey },
    { "userDefaults.setObject:DateKey forKey:", -1, standardDefaults, pDefaultsDateKey },
    { "userDefaults.setObject:Null forKey:", -1, standardDefaults, pDefaultsNull },
    { "userDefaults.setObject:NullInDictionary forKey:", -1, standardDefaults, pDefaultsNullInDictionary },
    { "userDefaults.setObject:NullKey forKey:", -1, standardDefaults, pDefaultsNullKey },
    { "userDefaults.setObject:URL forKey:", -1, standardDefaults, pDefaultsURL },
    { "userDefaults.setObject:URLDeep forKey:", -1, standardDefaults, pDefaultsURLDeep },
    { "userDefaults.setObject:Set forKey:", -1, standardDefaults, pDefaultsSet },
};

const CSSProbe *css_foundation_probes(int *count) {
    *count = (int)(sizeof css_foundation_probe_table / sizeof css_foundation_probe_table[0]);
    return css_foundation_probe_table;
}

const char *css_defaults_set_null_under_empty_key(void) {
    NSUserDefaults *d = css_opaque([NSUserDefaults standardUserDefaults]);
    @try {
        [d setObject: [NSNull null] forKey: css_opaque(@"")];
    } @catch (NSException *exception) {
        return css_format("%s: %s", [[exception name] UTF8String], [[exception reason] UTF8String]);
    }
    return "none";
}

// MARK: Foundation's parsers given random bytes

/// Short pseudo-random bytes for `seed` (1 to 40 of them; a third start with "bplist00", a third with a 0 or 1 byte:
/// GNUstep's binary and old serialized property-list formats), handed to one of Foundation's parsers (`parser` 0 to
/// 4: NSPropertyListSerialization, NSKeyedUnarchiver, NSUnarchiver, NSString from UTF-8, NSJSONSerialization).
/// What it answered, described, or the exception it raised.
static NSString *parsedRandomBytes(unsigned long seed, int parser) {
    unsigned char bytes[40];
    unsigned int state = (unsigned int)seed * 2654435761u + 12345u;
    NSUInteger length = 1 + seed % 40;
    for (NSUInteger i = 0; i < length; i++) {
        state = state * 1103515245u + 12345u;
        bytes[i] = (unsigned char)(state >> 16);
    }
    if (seed % 3 == 0) memcpy(bytes, "bplist00", length < 8 ? length : 8);
    if (seed % 3 == 1) bytes[0] = seed % 2;
    NSData *data = [NSData dataWithBytes: bytes length: length];
    id object = nil;
    @try {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
        switch (parser) {
        case 0: object = [NSPropertyListSerialization propertyListWithData: data options: 0 format: NULL error: NULL]; break;
        case 1: object = [NSKeyedUnarchiver unarchiveObjectWithData: data]; break;
#if !defined(__APPLE__) || TARGET_OS_OSX
        case 2: object = [NSUnarchiver unarchiveObjectWithData: data]; break;
#endif
        case 3: object = CSS_AUTORELEASE([[NSString alloc] initWithData: data encoding: NSUTF8StringEncoding]); break;
        default: object = [NSJSONSerialization JSONObjectWithData: data options: 0 error: NULL]; break;
        }
#pragma clang diagnostic pop
    } @catch (NSException *exception) {
        return [NSString stringWithFormat: @"raised %@: %@", [exception name], [exception reason]];
    }
    return object ? [object description] : @"nil";
}

const char *css_parse_random_bytes(unsigned long seed, int parser) {
    return [parsedRandomBytes(seed, parser) UTF8String];
}
