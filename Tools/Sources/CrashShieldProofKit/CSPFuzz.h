// CSPFuzz.h (private): the fuzzer's argument kinds. A call's arguments are choices (small numbers), realized afresh
// for each run from the receiver's size, so the same call can be made twice on equal receivers.
#ifndef CSP_FUZZ_H
#define CSP_FUZZ_H
#import <Foundation/Foundation.h>
#include "CSPSupport.h"

typedef enum CSPArgKind {
    CSPArgNone,
    CSPArgIndex,         // 0, 1, count-1, count, count+1, NSNotFound, 2^31, 2^32, 2^32+1, UInt.max
    CSPArgRange,         // locations x lengths, sums past 2^64 included (wrapping to 0, 1, count and beyond)
    CSPArgObject,        // nil, strings, a number, NSNull, app objects, collections
    CSPArgString,        // nil, strings of several classes, wrong types
    CSPArgArray,         // nil, arrays of several classes, wrong types
    CSPArgIndexSet,      // nil, index sets in and past the bounds, wrong types
    CSPArgKey,           // dictionary keys: nil, present, absent, wrong types, an object that cannot be copied
    CSPArgKVCKey,        // KVC keys and key paths: defined, undefined, nested, operators, nil, empty, wrong type
    CSPArgKVCValue,      // values for setValue:forKey:
    CSPArgKVCDictionary, // setValuesForKeysWithDictionary:
    CSPArgKeyArray,      // dictionaryWithValuesForKeys:
    CSPArgAttributes,    // attribute dictionaries (dictionaries only: see CSPFuzzArguments.m)
    CSPArgDictionary,    // dictionaries and wrong types
    CSPArgAttributeName, // attribute names
    CSPArgCObjects,      // a C array of objects and its count (nil slots included)
    CSPArgCPairs,        // C arrays of objects and keys and their count (nil slots included)
    CSPArgCString,       // NULL, ASCII, empty, UTF-8, invalid UTF-8
    CSPArgData,          // nil, data objects, wrong types
    CSPArgCharacterSet,  // nil, character sets, wrong types
    CSPArgKindCount
} CSPArgKind;

/// The realized arguments of one call, by position (0-2). Objects are kept alive by the run's `keep` array.
typedef struct CSPArgs {
    NSUInteger index[3];
    NSRange range;
    __unsafe_unretained id object[3];
    const char *cString;
    __unsafe_unretained id cObjects[4];
    __unsafe_unretained id cKeys[4];
    /// `cObjects`/`cKeys`, or NULL.
    __unsafe_unretained id *objects;
    __unsafe_unretained id *keys;
    NSUInteger count;
} CSPArgs;

uint32_t csp_arg_choices(CSPArgKind kind);
/// Fills position `slot` of `args` with choice `choice`, for a receiver of `size` elements or characters.
void csp_arg_realize(CSPArgKind kind, uint32_t choice, int slot, NSUInteger size, CSPArgs *args, NSMutableArray *keep);
void csp_arg_describe(CSPArgKind kind, uint32_t choice, NSUInteger size, CSPText *text);
/// Range choice `choice` for a receiver of `size`; whether its end passes 2^64.
/// Whether a CSPArgString choice is an object that is not a string (number 7, NSNull).
bool csp_arg_string_is_foreign(uint32_t choice);
bool csp_arg_range_value(uint32_t choice, NSUInteger size, NSRange *range);

#endif
