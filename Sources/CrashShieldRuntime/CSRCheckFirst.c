// CSRCheckFirst.c: the check-first and answer-first trampolines (see CSRCheckFirst.h). Mechanics only; every decision
// is Swift's.
#include "CSRCheckFirst.h"
#include "CSRCallStack.h"
#include "CSRRuntime.h"
#include "CSRSlots.h"
#include <stddef.h>

typedef uintptr_t (*CSRWordWithObject)(CSRObject, CSRSelector, CSRObject, uintptr_t, uintptr_t);
typedef void (*CSRVoidWithObjectObject)(CSRObject, CSRSelector, CSRObject, CSRObject);

/// Per table, the Swift replacement every call that fails the check goes to.
static CSRIMP csr_check_first_replacements[CSRHotTableCount];

void csr_check_first_set_replacement(int tableIndex, CSRIMP replacement) {
    if (tableIndex >= 0 && tableIndex < CSRHotTableCount) {
        __atomic_store_n(&csr_check_first_replacements[tableIndex], replacement, __ATOMIC_RELEASE);
    }
}

/// A call the compiler must make a tail call, where it can be told so (clang).
#if defined(__has_attribute) && __has_attribute(musttail)
#define CSR_MUSTTAIL __attribute__((musttail))
#else
#define CSR_MUSTTAIL
#endif

/// The slot's original, or 0 (the class only inherited the method: Swift asks its superclass).
#define CSR_CHECK_FIRST_ORIGINAL(TABLE, SLOT) __atomic_load_n(&csr_hot_tables[TABLE].originals[SLOT], __ATOMIC_ACQUIRE)
#define CSR_CHECK_FIRST_REPLACEMENT(TABLE) __atomic_load_n(&csr_check_first_replacements[TABLE], __ATOMIC_ACQUIRE)

/// The first argument must not be nil. Both calls are tail calls (`musttail`, also in an unoptimized build): the
/// trampoline leaves no frame. Declared with the widest argument list of the methods that use it (an object, then
/// two words: `initWithFormat:locale:arguments:`) and a word result (void, an object or a BOOL: no method returning
/// a struct uses it): on the platforms built here each argument and the result travel in their own register, so the
/// registers a shorter method leaves undefined are passed through untouched and unread.
#define CSR_NIL_CHECK_ONE(NAME, TABLE, SLOT)                                                                   \
    static uintptr_t NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRObject object, uintptr_t second,    \
                                   uintptr_t third) {                                                          \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(TABLE, SLOT);                                            \
        if (__builtin_expect(object != NULL, 1) && __builtin_expect(original != 0, 1)) {                       \
            CSR_MUSTTAIL return ((CSRWordWithObject)original)(receiver, cmd, object, second, third);           \
        }                                                                                                      \
        CSR_MUSTTAIL return ((CSRWordWithObject)CSR_CHECK_FIRST_REPLACEMENT(TABLE))(receiver, cmd, object,      \
                                                                                    second, third);            \
    }

/// The bytes (first argument) are not NULL, or the length (second) is 0 (`initWithBytes:length:encoding:`).
#define CSR_BYTES_CHECK(NAME, TABLE, SLOT)                                                                     \
    static uintptr_t NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRObject bytes, uintptr_t length,     \
                                   uintptr_t third) {                                                          \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(TABLE, SLOT);                                            \
        if (__builtin_expect(bytes != NULL || length == 0, 1) && __builtin_expect(original != 0, 1)) {         \
            CSR_MUSTTAIL return ((CSRWordWithObject)original)(receiver, cmd, bytes, length, third);            \
        }                                                                                                      \
        CSR_MUSTTAIL return ((CSRWordWithObject)CSR_CHECK_FIRST_REPLACEMENT(TABLE))(receiver, cmd, bytes,       \
                                                                                    length, third);            \
    }

/// Two arguments that must not be nil.
#define CSR_NIL_CHECK_TWO(NAME, SLOT)                                                                          \
    static void NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRObject object, CSRObject key) {          \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotDictionarySetObjectForKey, SLOT);                    \
        if (__builtin_expect(object != NULL, 1) && __builtin_expect(key != NULL, 1)                            \
            && __builtin_expect(original != 0, 1)) {                                                           \
            ((CSRVoidWithObjectObject)original)(receiver, cmd, object, key);                                   \
            return;                                                                                            \
        }                                                                                                      \
        ((CSRVoidWithObjectObject)CSR_CHECK_FIRST_REPLACEMENT(CSRHotDictionarySetObjectForKey))(receiver, cmd, object, key); \
    }



/// The trampolines and the pool of a table whose check is "the first argument is not nil".
#define CSR_NIL_CHECK_ONE_POOL(NAME, TABLE)                                                                    \
    CSR_SLOTS(CSR_NIL_CHECK_ONE, NAME, TABLE)                                                                  \
    static const CSRIMP NAME##_pool[CSR_SLOT_POOL_SIZE] = { CSR_SLOTS(CSR_POOL_ENTRY, NAME) };

CSR_NIL_CHECK_ONE_POOL(csr_nil_check_add_object, CSRHotArrayAddObject)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_set_add_object, CSRHotSetAddObject)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_init_with_format, CSRHotStringInitWithFormat)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_init_with_utf8, CSRHotStringInitWithUTF8String)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_string_with_utf8, CSRHotStringWithUTF8String)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_has_prefix, CSRHotStringHasPrefix)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_has_suffix, CSRHotStringHasSuffix)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_init_with_cstring, CSRHotStringInitWithCStringEncoding)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_string_with_cstring, CSRHotStringWithCStringEncoding)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_number_compare, CSRHotNumberCompare)
CSR_NIL_CHECK_ONE_POOL(csr_nil_check_date_compare, CSRHotDateCompare)

CSR_SLOTS(CSR_BYTES_CHECK, csr_bytes_check_init_with_bytes, CSRHotStringInitWithBytes)
static const CSRIMP csr_bytes_check_init_with_bytes_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_bytes_check_init_with_bytes)
};

CSR_SLOTS(CSR_NIL_CHECK_TWO, csr_nil_check_set_object_for_key)
static const CSRIMP csr_nil_check_set_object_for_key_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_nil_check_set_object_for_key)
};

/// `[receiver length]`, one message.
static inline unsigned long csr_string_length_message(CSRObject receiver) {
    return (unsigned long)csr_msg_send_word(receiver, csr_hot_selectors.length);
}

/// The range lies within the receiver's length (`csr_string_length`): CSRRange's `fits(in:)`.
#define CSR_RANGE_FITS(RECEIVER, RANGE) csr_range_fits((RANGE), csr_string_length_message(RECEIVER))
static inline bool csr_range_fits(CSRRange range, unsigned long length) {
    return range.location <= length && range.length <= length - range.location;
}

typedef void (*CSRVoidWithRangeObject)(CSRObject, CSRSelector, CSRRange, CSRObject);

/// `replaceCharactersInRange:withString:`: a message to ask the length, so a frame; still about half the Swift
/// replacement's cost. The original and the replacement are tail calls. A nil string goes to the replacement under
/// either rules (Apple's Foundation raises for it, GNUstep's deletes the range: the replacement decides); the test
/// costs a valid call 1 instruction (callgrind, BENCHMARKS.md's method: 627.0 -> 628.0 a call guarded, 560.0
/// unguarded).
#define CSR_RANGE_CHECK_REPLACE(NAME, SLOT)                                                                    \
    static void NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRRange range, CSRObject string) {         \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotMutableStringReplaceCharacters, SLOT);             \
        if (__builtin_expect(original != 0, 1) && __builtin_expect(string != NULL, 1)                          \
            && __builtin_expect(CSR_RANGE_FITS(receiver, range), 1)) {                                         \
            ((CSRVoidWithRangeObject)original)(receiver, cmd, range, string);                                  \
            return;                                                                                            \
        }                                                                                                      \
        ((CSRVoidWithRangeObject)CSR_CHECK_FIRST_REPLACEMENT(CSRHotMutableStringReplaceCharacters))(           \
            receiver, cmd, range, string);                                                                     \
    }

CSR_SLOTS(CSR_RANGE_CHECK_REPLACE, csr_range_check_replace)
static const CSRIMP csr_range_check_replace_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_range_check_replace)
};

typedef void (*CSRVoidWithPointerRange)(CSRObject, CSRSelector, void *, CSRRange);

/// `getCharacters:range:`: the range lies within `length`, as for `replaceCharactersInRange:withString:`.
#define CSR_RANGE_CHECK_GET_CHARACTERS(NAME, SLOT)                                                             \
    static void NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, void *buffer, CSRRange range) {             \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotStringGetCharactersRange, SLOT);                   \
        if (__builtin_expect(original != 0, 1)                                                                 \
            && __builtin_expect(csr_range_fits(range, csr_string_length_message(receiver)), 1)) {              \
            ((CSRVoidWithPointerRange)original)(receiver, cmd, buffer, range);                                 \
            return;                                                                                            \
        }                                                                                                      \
        ((CSRVoidWithPointerRange)CSR_CHECK_FIRST_REPLACEMENT(CSRHotStringGetCharactersRange))(                \
            receiver, cmd, buffer, range);                                                                     \
    }

CSR_SLOTS(CSR_RANGE_CHECK_GET_CHARACTERS, csr_range_check_get_characters)
static const CSRIMP csr_range_check_get_characters_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_range_check_get_characters)
};


typedef intptr_t (*CSRCompareIMP)(CSRObject, CSRSelector, CSRObject, uintptr_t, CSRRange);
typedef CSRRange (*CSRRangeOfStringIMP)(CSRObject, CSRSelector, CSRObject, uintptr_t, CSRRange, CSRObject);

/// `compare:options:range:`: the string is not nil and the range lies within `length`.
#define CSR_STRING_CHECK_COMPARE(NAME, SLOT)                                                                   \
    static intptr_t NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRObject string, uintptr_t mask,        \
                                  CSRRange range) {                                                            \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotStringCompare, SLOT);                              \
        if (__builtin_expect(original != 0, 1) && __builtin_expect(string != NULL, 1)                          \
            && __builtin_expect(CSR_RANGE_FITS(receiver, range), 1)) {                                         \
            return ((CSRCompareIMP)original)(receiver, cmd, string, mask, range);                              \
        }                                                                                                      \
        return ((CSRCompareIMP)CSR_CHECK_FIRST_REPLACEMENT(CSRHotStringCompare))(receiver, cmd, string, mask,  \
                                                                                 range);                       \
    }

/// `rangeOfString:options:range:locale:`: the same check.
#define CSR_STRING_CHECK_RANGE_OF_STRING(NAME, SLOT)                                                           \
    static CSRRange NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRObject string, uintptr_t mask,        \
                                  CSRRange range, CSRObject locale) {                                          \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotStringRangeOfString, SLOT);                        \
        if (__builtin_expect(original != 0, 1) && __builtin_expect(string != NULL, 1)                          \
            && __builtin_expect(CSR_RANGE_FITS(receiver, range), 1)) {                                         \
            return ((CSRRangeOfStringIMP)original)(receiver, cmd, string, mask, range, locale);                \
        }                                                                                                      \
        return ((CSRRangeOfStringIMP)CSR_CHECK_FIRST_REPLACEMENT(CSRHotStringRangeOfString))(                  \
            receiver, cmd, string, mask, range, locale);                                                       \
    }

CSR_SLOTS(CSR_STRING_CHECK_COMPARE, csr_string_check_compare)
static const CSRIMP csr_string_check_compare_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_string_check_compare)
};
CSR_SLOTS(CSR_STRING_CHECK_RANGE_OF_STRING, csr_string_check_range_of_string)
static const CSRIMP csr_string_check_range_of_string_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_string_check_range_of_string)
};

// MARK: Answer-first trampolines

typedef CSRObject (*CSRObjectWithSelector)(CSRObject, CSRSelector, CSRSelector);

/// Per table, Swift's handler of a nil answer.
static CSRIMP csr_answer_first_fallbacks[CSRHotTableCount];

void csr_answer_first_set_fallback(int tableIndex, CSRIMP fallback) {
    if (tableIndex >= 0 && tableIndex < CSRHotTableCount) {
        __atomic_store_n(&csr_answer_first_fallbacks[tableIndex], fallback, __ATOMIC_RELEASE);
    }
}

/// `methodSignatureForSelector:`: the slot's original answers; only a nil answer (a message about to fail, or code
/// asking about a selector nobody implements) goes to Swift. A class that only inherited the method goes to the Swift
/// replacement, which finds the original itself.
#define CSR_ANSWER_FIRST(NAME, TABLE, SLOT)                                                                    \
    static CSRObject NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRSelector selector) {                \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(TABLE, SLOT);                                            \
        if (__builtin_expect(original == 0, 0)) {                                                              \
            return ((CSRObjectWithSelector)CSR_CHECK_FIRST_REPLACEMENT(TABLE))(receiver, cmd, selector);       \
        }                                                                                                      \
        CSRObject answer = ((CSRObjectWithSelector)original)(receiver, cmd, selector);                        \
        if (__builtin_expect(answer != NULL, 1)) return answer;                                                \
        return ((CSRObjectWithSelector)__atomic_load_n(&csr_answer_first_fallbacks[TABLE], __ATOMIC_ACQUIRE))( \
            receiver, cmd, selector);                                                                          \
    }

CSR_SLOTS(CSR_ANSWER_FIRST, csr_answer_first_signature, CSRHotObjectMethodSignature)
CSR_SLOTS(CSR_ANSWER_FIRST, csr_answer_first_class_signature, CSRHotClassMethodSignature)
static const CSRIMP csr_answer_first_signature_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_answer_first_signature)
};
static const CSRIMP csr_answer_first_class_signature_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_answer_first_class_signature)
};

CSRIMP csr_answer_first_trampoline(int tableIndex, long slot) {
    const CSRIMP *pool;
    switch (tableIndex) {
        case CSRHotObjectMethodSignature: pool = csr_answer_first_signature_pool; break;
        case CSRHotClassMethodSignature: pool = csr_answer_first_class_signature_pool; break;
        default: return NULL;
    }
    if (slot < 0 || slot >= CSR_SLOT_POOL_SIZE || CSR_CHECK_FIRST_REPLACEMENT(tableIndex) == NULL
        || __atomic_load_n(&csr_answer_first_fallbacks[tableIndex], __ATOMIC_ACQUIRE) == NULL) return NULL;
    return pool[slot];
}

CSRIMP csr_check_first_trampoline(int tableIndex, long slot) {
    const CSRIMP *pool;
    switch (tableIndex) {
        case CSRHotArrayAddObject: pool = csr_nil_check_add_object_pool; break;
        case CSRHotSetAddObject: pool = csr_nil_check_set_add_object_pool; break;
        case CSRHotStringInitWithFormat: pool = csr_nil_check_init_with_format_pool; break;
        case CSRHotStringInitWithUTF8String: pool = csr_nil_check_init_with_utf8_pool; break;
        case CSRHotStringWithUTF8String: pool = csr_nil_check_string_with_utf8_pool; break;
        case CSRHotStringHasPrefix: pool = csr_nil_check_has_prefix_pool; break;
        case CSRHotStringHasSuffix: pool = csr_nil_check_has_suffix_pool; break;
        case CSRHotStringInitWithCStringEncoding: pool = csr_nil_check_init_with_cstring_pool; break;
        case CSRHotStringWithCStringEncoding: pool = csr_nil_check_string_with_cstring_pool; break;
        case CSRHotStringInitWithBytes: pool = csr_bytes_check_init_with_bytes_pool; break;
        case CSRHotStringGetCharactersRange: pool = csr_range_check_get_characters_pool; break;
        case CSRHotNumberCompare: pool = csr_nil_check_number_compare_pool; break;
        case CSRHotDateCompare: pool = csr_nil_check_date_compare_pool; break;
        case CSRHotDictionarySetObjectForKey: pool = csr_nil_check_set_object_for_key_pool; break;
        case CSRHotMutableStringReplaceCharacters: pool = csr_range_check_replace_pool; break;
        case CSRHotStringCompare: pool = csr_string_check_compare_pool; break;
        case CSRHotStringRangeOfString: pool = csr_string_check_range_of_string_pool; break;
        default: return NULL;
    }
    if (slot < 0 || slot >= CSR_SLOT_POOL_SIZE || CSR_CHECK_FIRST_REPLACEMENT(tableIndex) == NULL) return NULL;
    return pool[slot];
}

bool csr_check_first_is_trampoline(uintptr_t start) {
    static const CSRIMP *const pools[] = {
        csr_nil_check_add_object_pool, csr_nil_check_set_add_object_pool, csr_nil_check_init_with_format_pool,
        csr_nil_check_init_with_utf8_pool, csr_nil_check_string_with_utf8_pool,
        csr_nil_check_has_prefix_pool, csr_nil_check_has_suffix_pool, csr_nil_check_set_object_for_key_pool,
        csr_nil_check_init_with_cstring_pool, csr_nil_check_string_with_cstring_pool, csr_bytes_check_init_with_bytes_pool,
        csr_range_check_get_characters_pool, csr_nil_check_number_compare_pool,
        csr_nil_check_date_compare_pool,
        csr_range_check_replace_pool, csr_string_check_compare_pool, csr_string_check_range_of_string_pool,
        csr_answer_first_signature_pool, csr_answer_first_class_signature_pool,
    };
    for (size_t pool = 0; pool < sizeof pools / sizeof *pools; pool++) {
        for (long slot = 0; slot < CSR_SLOT_POOL_SIZE; slot++) {
            if (start != 0 && csr_strip_code_pointer((const void *)pools[pool][slot]) == csr_strip_code_pointer((const void *)start))
                return true;
        }
    }
    return false;
}
