// CSRCheckFirst.c: the check-first and answer-first trampolines (see CSRCheckFirst.h). Mechanics only; every decision
// is Swift's.
#include "CSRCheckFirst.h"
#include "CSRCallStack.h"
#include "CSRRuntime.h"
#include "CSRSlots.h"
#include <stddef.h>

typedef uintptr_t (*CSRWordWithObject)(CSRObject, CSRSelector, CSRObject, uintptr_t, uintptr_t);
typedef void (*CSRVoidWithObjectObject)(CSRObject, CSRSelector, CSRObject, CSRObject);

/// Hidden, not static: the x86_64 trampolines name it in assembly.
__attribute__((visibility("hidden"))) CSRIMP csr_check_first_replacements[CSRHotTableCount];

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

#if !defined(__APPLE__) && defined(__x86_64__) && !defined(CSR_C_TRAMPOLINES)
// GNUstep on x86_64 (unless CSR_C_TRAMPOLINES is defined, to test the C forms here): the same trampolines in six
// (eight) instructions. In C they also set up and drop a frame
// pointer, which this build keeps in every function (-fno-omit-frame-pointer), and reach the table through the GOT.

#define CSR_NIL_CHECK_ASM(NAME, SLOT, TABLE, TESTS)                                                            \
    __attribute__((naked, used)) static void NAME##_##SLOT(void) {                                             \
        __asm__ volatile("mov csr_hot_tables_local+%c0(%%rip), %%rax\n\t"                                      \
                         TESTS                                                                                 \
                         "test %%rax, %%rax\n\t"                                                               \
                         "je 1f\n\t"                                                                           \
                         "jmp *%%rax\n"                                                                        \
                         "1:\n\t"                                                                              \
                         "jmp *csr_check_first_replacements+%c1(%%rip)"                                          \
                         :: "i"(CSR_SLOT_ORIGINAL_OFFSET(TABLE, SLOT)), "i"(sizeof(CSRIMP) * (TABLE)));       \
    }
#define CSR_NIL_CHECK_ONE(NAME, TABLE, SLOT)                                                                   \
    CSR_NIL_CHECK_ASM(NAME, SLOT, TABLE, "test %%rdx, %%rdx\n\tje 1f\n\t")
/// The bytes (first argument) are not NULL, or the length (second) is 0.
#define CSR_BYTES_CHECK(NAME, TABLE, SLOT)                                                                     \
    CSR_NIL_CHECK_ASM(NAME, SLOT, TABLE, "test %%rdx, %%rdx\n\tjne 2f\n\ttest %%rcx, %%rcx\n\tjne 1f\n2:\n\t")
#define CSR_NIL_CHECK_TWO(NAME, SLOT)                                                                          \
    CSR_NIL_CHECK_ASM(NAME, SLOT, CSRHotDictionarySetObjectForKey,                                             \
                      "test %%rdx, %%rdx\n\tje 1f\n\ttest %%rcx, %%rcx\n\tje 1f\n\t")
#else
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

#endif


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

#if !defined(__APPLE__)
// GNUstep only (GCC's libobjc, the old string ABI): the compiler lays out each constant string as its class, a pointer
// to its UTF-8 bytes and their count (NXConstantString's public instance variables `nxcsptr` and `nxcslen`, GNUstep's
// NSString.h), and its `length` decodes the UTF-8 on every call (GSString.m's `lengthUTF8`, about 60 instructions
// for a short literal, on top of the message). GNUstep's own string code sends `getCharacters:range:` and
// `rangeOfString:options:range:locale:` to literals all the time, so the range checks below read an ASCII literal's
// length from its bytes instead: one character per byte, the count `lengthUTF8` answers for ASCII. Any other string,
// a literal with a byte past 0x7f included, is asked `length`. Constant strings never change. Apple's literals store
// their length (CFString), so Apple's build sends `length` as before.
static CSRClass csr_constant_string_class;
static ptrdiff_t csr_constant_string_bytes, csr_constant_string_count;

/// GCC's libobjc, declared with opaque types (this file is C): the instance variables' offsets and types.
extern void *class_getInstanceVariable(CSRClass cls, const char *name);
extern ptrdiff_t ivar_getOffset(void *ivar);
extern const char *ivar_getTypeEncoding(void *ivar);

static bool csr_encoding_ends_with(void *ivar, char type) {
    const char *encoding = ivar_getTypeEncoding(ivar);
    if (encoding == NULL || encoding[0] == 0) return false;
    while (encoding[1] != 0) encoding++;
    return *encoding == type;
}

bool csr_check_first_set_constant_strings(CSRClass cls) {
    if (cls == NULL || __atomic_load_n(&csr_constant_string_class, __ATOMIC_ACQUIRE) == cls) return cls != NULL;
    void *bytes = class_getInstanceVariable(cls, "nxcsptr"), *count = class_getInstanceVariable(cls, "nxcslen");
    // The new string ABI (libobjc2) adds `flags` and counts UTF-16 units in `nxcslen`: its `length` is cheap already.
    if (bytes == NULL || count == NULL || class_getInstanceVariable(cls, "flags") != NULL
        || !csr_encoding_ends_with(bytes, '*') || !csr_encoding_ends_with(count, 'I')) return false;
    csr_constant_string_bytes = ivar_getOffset(bytes);
    csr_constant_string_count = ivar_getOffset(count);
    __atomic_store_n(&csr_constant_string_class, cls, __ATOMIC_RELEASE);
    return true;
}

static inline uint64_t csr_load_word(const unsigned char *bytes) {
    uint64_t word;
    __builtin_memcpy(&word, bytes, sizeof word);
    return word;
}

/// An ASCII constant string's length from its bytes, or false (another string, or a byte past 0x7f).
static inline bool csr_constant_string_length(CSRObject receiver, unsigned long *length) {
    CSRClass constant = __atomic_load_n(&csr_constant_string_class, __ATOMIC_ACQUIRE);
    if (constant == NULL || receiver == NULL || *(CSRClass *)receiver != constant) return false;
    const unsigned char *bytes = *(const unsigned char *const *)((const char *)receiver + csr_constant_string_bytes);
    unsigned int count = *(const unsigned int *)((const char *)receiver + csr_constant_string_count);
    // Every byte's high bit, read in words that stay within the bytes (the last ones overlap).
    uint64_t high = 0;
    if (count >= 8) {
        unsigned int index = 0;
        // Literals are short: a plain loop, which needs no registers the tail call keeps.
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
#endif
        for (; index + 8 < count; index += 8) high |= csr_load_word(bytes + index);
        high |= csr_load_word(bytes + count - 8);
    } else if (count >= 4) {
        uint32_t first, last;
        __builtin_memcpy(&first, bytes, sizeof first);
        __builtin_memcpy(&last, bytes + count - 4, sizeof last);
        high = first | last;
    } else if (count > 0) {
        high = bytes[0] | bytes[count / 2] | bytes[count - 1];
    }
    if ((high & UINT64_C(0x8080808080808080)) != 0) return false;
    *length = count;
    return true;
}
#else
bool csr_check_first_set_constant_strings(CSRClass cls) {
    (void)cls;
    return false;
}
#endif

/// `[receiver length]`, one message.
static inline unsigned long csr_string_length_message(CSRObject receiver) {
    return ((unsigned long (*)(CSRObject, CSRSelector))csr_msg_lookup(receiver, csr_hot_selectors.length))(
        receiver, csr_hot_selectors.length);
}

/// `[receiver length]`: on GNUstep an ASCII literal's from its bytes (above), otherwise one message.
static inline unsigned long csr_string_length(CSRObject receiver) {
#if !defined(__APPLE__)
    unsigned long length;
    if (csr_constant_string_length(receiver, &length)) return length;
#endif
    return csr_string_length_message(receiver);
}

/// The range lies within the receiver's length (`csr_string_length`): CSRRange's `fits(in:)`.
#define CSR_RANGE_FITS(RECEIVER, RANGE) csr_range_fits((RANGE), csr_string_length(RECEIVER))
static inline bool csr_range_fits(CSRRange range, unsigned long length) {
    return range.location <= length && range.length <= length - range.location;
}

typedef void (*CSRVoidWithRangeObject)(CSRObject, CSRSelector, CSRRange, CSRObject);

/// `replaceCharactersInRange:withString:`: a message to ask the length, so a frame; still about half the Swift
/// replacement's cost. The original and the replacement are tail calls.
#define CSR_RANGE_CHECK_REPLACE(NAME, SLOT)                                                                    \
    static void NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, CSRRange range, CSRObject string) {         \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotMutableStringReplaceCharacters, SLOT);             \
        if (__builtin_expect(original != 0, 1) && __builtin_expect(CSR_RANGE_FITS(receiver, range), 1)) {      \
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
    __attribute__((noinline)) static void NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, void *buffer,     \
                                                        CSRRange range) {                                      \
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

#if !defined(__APPLE__)
/// GNUstep: the slot of the constant strings' own `getCharacters:range:`, which GNUstep's string code sends most
/// (`-[NSString getCharacters:]`, its searches). An ASCII literal's check, from its bytes, makes no call, so this
/// trampoline keeps no frame and jumps to the original; any other receiver goes on to the slot's trampoline above.
/// Every other slot gets that one directly, without the class test (`csr_check_first_trampoline`).
#define CSR_RANGE_CHECK_GET_CHARACTERS_CONSTANT(NAME, SLOT)                                                    \
    static void NAME##_constant_##SLOT(CSRObject receiver, CSRSelector cmd, void *buffer, CSRRange range) {    \
        uintptr_t original = CSR_CHECK_FIRST_ORIGINAL(CSRHotStringGetCharactersRange, SLOT);                   \
        unsigned long length;                                                                                  \
        if (__builtin_expect(original != 0, 1) && csr_constant_string_length(receiver, &length)                \
            && __builtin_expect(csr_range_fits(range, length), 1)) {                                           \
            CSR_MUSTTAIL return ((CSRVoidWithPointerRange)original)(receiver, cmd, buffer, range);             \
        }                                                                                                      \
        CSR_MUSTTAIL return NAME##_##SLOT(receiver, cmd, buffer, range);                                       \
    }
CSR_SLOTS(CSR_RANGE_CHECK_GET_CHARACTERS_CONSTANT, csr_range_check_get_characters)
static const CSRIMP csr_range_check_get_characters_constant_pool[CSR_SLOT_POOL_SIZE] = {
    CSR_SLOTS(CSR_POOL_ENTRY, csr_range_check_get_characters_constant)
};

/// The constant strings' slot gets the trampoline that reads a literal's length; every other slot the plain one.
static const CSRIMP *csr_range_check_get_characters_pool_for(long slot) {
    CSRClass constant = __atomic_load_n(&csr_constant_string_class, __ATOMIC_ACQUIRE);
    if (constant != NULL && slot >= 0 && slot < CSR_HOOK_TABLE_CAPACITY
        && __atomic_load_n(&csr_hot_tables[CSRHotStringGetCharactersRange].count, __ATOMIC_ACQUIRE) > slot
        && csr_hot_tables[CSRHotStringGetCharactersRange].classes[slot] == (uintptr_t)constant)
        return csr_range_check_get_characters_constant_pool;
    return csr_range_check_get_characters_pool;
}
#endif

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
#if !defined(__APPLE__)
        case CSRHotStringGetCharactersRange: pool = csr_range_check_get_characters_pool_for(slot); break;
#else
        case CSRHotStringGetCharactersRange: pool = csr_range_check_get_characters_pool; break;
#endif
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
#if !defined(__APPLE__)
        csr_range_check_get_characters_constant_pool,
#endif
    };
    for (size_t pool = 0; pool < sizeof pools / sizeof *pools; pool++) {
        for (long slot = 0; slot < CSR_SLOT_POOL_SIZE; slot++) {
            if (start != 0 && csr_strip_code_pointer((const void *)pools[pool][slot]) == csr_strip_code_pointer((const void *)start))
                return true;
        }
    }
    return false;
}
