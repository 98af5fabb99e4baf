// CSPFuzzReceivers.h (private): the receivers the fuzzer makes, by family.
#ifndef CSP_FUZZ_RECEIVERS_H
#define CSP_FUZZ_RECEIVERS_H
#import <Foundation/Foundation.h>

/// Which calls a receiver takes: an entry for NSArray methods takes every receiver with CSPFamilyArray (mutable
/// arrays included), one for NSMutableArray methods only those with CSPFamilyMutableArray.
typedef enum CSPFamily {
    CSPFamilyArray = 1 << 0,
    CSPFamilyMutableArray = 1 << 1,
    CSPFamilyDictionary = 1 << 2,
    CSPFamilyMutableDictionary = 1 << 3,
    CSPFamilySet = 1 << 4,
    CSPFamilyMutableSet = 1 << 5,
    CSPFamilyOrderedSet = 1 << 6,
    CSPFamilyMutableOrderedSet = 1 << 7,
    CSPFamilyString = 1 << 8,
    CSPFamilyMutableString = 1 << 9,
    CSPFamilyAttributed = 1 << 10,
    CSPFamilyMutableAttributed = 1 << 11,
    CSPFamilyKVC = 1 << 12,
    CSPFamilyNull = 1 << 13,
    CSPFamilyConfused = 1 << 14,
    CSPFamilyArrayClass = 1 << 15,
    CSPFamilyDictionaryClass = 1 << 16,
    CSPFamilySetClass = 1 << 17,
    CSPFamilyOrderedSetClass = 1 << 18,
    CSPFamilyStringClass = 1 << 19,
    CSPFamilyAttributedClass = 1 << 20,
    CSPFamilyData = 1 << 21,
    CSPFamilyMutableData = 1 << 22,
    CSPFamilyNumber = 1 << 23,
    CSPFamilyDate = 1 << 24,
    CSPFamilyUserDefaults = 1 << 25,
    CSPFamilyURLClass = 1 << 26,
    CSPFamilyURL = 1 << 27,
    CSPFamilyFileManager = 1 << 28,
    CSPFamilyRegex = 1 << 29,
    CSPFamilyUnarchiverClass = 1 << 30,
} CSPFamily;

typedef struct CSPReceiverKind {
    const char *name;
    uint32_t families;
    /// A fresh receiver (autoreleased, or a class).
    id (*make)(void);
    bool inScope;
} CSPReceiverKind;

const CSPReceiverKind *csp_receiver_kinds(uint32_t *count);

#endif
