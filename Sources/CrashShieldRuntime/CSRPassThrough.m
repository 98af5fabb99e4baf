// CSRPassThrough.m: the pass-throughs of stopped overrides (see CSRPassThrough.h).
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <string.h>
#include "CSRPassThrough.h"
#include "CSRPassThroughAny.h"
#include "CSRRuntime.h"
#include "CSRSlots.h"

/// The class each pass-through was added to, and its selector: written once, under the lock, before the
/// pass-through is handed out (and so before the runtime can call it); read without a lock by the calls. Both sides
/// are atomic accesses (relaxed loads: a plain load on x86_64 and arm64): what orders the write before a call is the
/// runtime's own publication of the implementation, which ThreadSanitizer cannot see (libobjc is not instrumented),
/// and a plain read racing a plain write would be a data race in C's terms.
static CSRClass csr_pass_classes[CSR_PASS_THROUGH_CAPACITY];
static CSRSelector csr_pass_selectors[CSR_PASS_THROUGH_CAPACITY];
static long csr_pass_count;
static pthread_mutex_t csr_pass_lock = PTHREAD_MUTEX_INITIALIZER;

typedef uintptr_t (*CSRPassWords)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

#if defined(__has_attribute) && __has_attribute(musttail)
#define CSR_PASS_MUSTTAIL __attribute__((musttail))
#else
#define CSR_PASS_MUSTTAIL
#endif

/// One pass-through: the words the method was called with go on, untouched, to the superclass's current
/// implementation (a tail call: no frame left, the callee returns straight to the caller). The lookup is a call, so
/// only word arguments survive it (`csr_types_pass_in_words`). Declared with six words: a method with fewer leaves
/// the others undefined, and they are passed on unread.
#define CSR_PASS_THROUGH_DEFINE(GROUP, SLOT)                                                                    \
    static uintptr_t csr_pass_through_##GROUP##_##SLOT(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, \
                                                       uintptr_t a4, uintptr_t a5) {                            \
        long index = (GROUP) * CSR_SLOT_POOL_SIZE + (SLOT);                                                     \
        CSRPassWords next = (CSRPassWords)csr_class_dispatchImplementation(                                      \
            csr_class_getSuperclass(__atomic_load_n(&csr_pass_classes[index], __ATOMIC_RELAXED)),                 \
            __atomic_load_n(&csr_pass_selectors[index], __ATOMIC_RELAXED));                                     \
        CSR_PASS_MUSTTAIL return next(a0, a1, a2, a3, a4, a5);                                                 \
    }
#define CSR_PASS_THROUGH_ENTRY(GROUP, SLOT) (CSRIMP)csr_pass_through_##GROUP##_##SLOT,

CSR_SLOTS(CSR_PASS_THROUGH_DEFINE, 0)
CSR_SLOTS(CSR_PASS_THROUGH_DEFINE, 1)
CSR_SLOTS(CSR_PASS_THROUGH_DEFINE, 2)
CSR_SLOTS(CSR_PASS_THROUGH_DEFINE, 3)
static const CSRIMP csr_pass_pool[] = {
    CSR_SLOTS(CSR_PASS_THROUGH_ENTRY, 0) CSR_SLOTS(CSR_PASS_THROUGH_ENTRY, 1)
    CSR_SLOTS(CSR_PASS_THROUGH_ENTRY, 2) CSR_SLOTS(CSR_PASS_THROUGH_ENTRY, 3)
};
_Static_assert(sizeof csr_pass_pool / sizeof *csr_pass_pool == CSR_PASS_THROUGH_CAPACITY, "one pass-through per slot");

CSRIMP csr_pass_through(CSRClass cls, CSRSelector selector) {
    if (cls == NULL || selector == NULL) return NULL;
    CSRIMP found = NULL;
    pthread_mutex_lock(&csr_pass_lock);
    for (long index = 0; index < csr_pass_count && found == NULL; index++) {
        if (csr_pass_classes[index] == cls && sel_isEqual((SEL)csr_pass_selectors[index], (SEL)selector)) found = csr_pass_pool[index];
    }
    if (found == NULL && csr_pass_count < CSR_PASS_THROUGH_CAPACITY) {
        __atomic_store_n(&csr_pass_classes[csr_pass_count], cls, __ATOMIC_RELEASE);
        __atomic_store_n(&csr_pass_selectors[csr_pass_count], selector, __ATOMIC_RELEASE);
        found = csr_pass_pool[csr_pass_count];
        __atomic_store_n(&csr_pass_count, csr_pass_count + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&csr_pass_lock);
    return found;
}

bool csr_is_pass_through(CSRIMP implementation) {
    long count = __atomic_load_n(&csr_pass_count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < count; index++) if (csr_pass_pool[index] == implementation) return true;
    return csr_is_pass_through_any(implementation);
}

/// Words a type takes when passed in integer registers; 0 when it is not passed that way (a floating-point value,
/// a struct with one, a struct above 16 bytes, a union, an array, a long double, an unknown code).
static unsigned csr_word_type_words(const char *type) {
    while (*type && strchr("rnNoORVA", *type)) type++;   // qualifiers (A: atomic)
    switch (*type) {
        case 'c': case 'C': case 's': case 'S': case 'i': case 'I': case 'l': case 'L': case 'q': case 'Q':
        case 'B': case '@': case '#': case ':': case '*': case '^':
            return 1;
        case '{': {
            NSUInteger size = 0, alignment = 0;
            @try { NSGetSizeAndAlignment(type, &size, &alignment); } @catch (NSException *ignored) { return 0; }
            const char *end = type;
            for (int depth = 0; *end; end++) {   // the struct's own text, up to its matching brace
                if (*end == '{') depth++;
                else if (*end == '}' && --depth == 0) break;
            }
            for (const char *c = type; c < end; c++) {
                if (*c == '=') { for (c++; c < end; c++) if (strchr("fdDb([", *c)) return 0; break; }
            }
            return size > 0 && size <= 16 ? (unsigned)((size + 7) / 8) : 0;
        }
        default:
            return 0;
    }
}

bool csr_types_pass_in_words(const char *types) {
    if (types == NULL || *types == 0) return false;
    NSMethodSignature *signature = nil;
    @try { signature = [NSMethodSignature signatureWithObjCTypes: types]; } @catch (NSException *ignored) { return false; }
    if (signature == nil || [signature numberOfArguments] < 2) return false;
    const char *returned = [signature methodReturnType];
    while (*returned && strchr("rnNoORVA", *returned)) returned++;
    if (*returned == '{' || *returned == '(' || *returned == '[') {
        if ([signature methodReturnLength] > 16) return false;   // returned in memory: arm64 passes its address in x8
    }
    if (*returned == 'D') return false;
    unsigned words = 0;
    for (NSUInteger index = 0; index < [signature numberOfArguments]; index++) {
        unsigned taken = csr_word_type_words([signature getArgumentTypeAtIndex: index]);
        if (taken == 0) return false;
        words += taken;
    }
    return words <= 6;
}
