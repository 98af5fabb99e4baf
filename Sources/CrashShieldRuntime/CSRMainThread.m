// CSRMainThread.m: the main-thread guard's Objective-C half: call shapes, the main-thread trampolines and running a
// call on the main thread later (see CSRMainThread.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <string.h>
#include <pthread.h>
#include "CSRMainThread.h"
#include "CSRRuntime.h"
#include "CSRCallStack.h"
#include "CSRMemory.h"
#include "CSRMainThreadPlatform.h"   // running a call on the main thread later: Apple/, GNUstep/

// MARK: Main-thread calls

static const char *csr_skip_qualifiers(const char *type) {
    while (type && *type && strchr("rnNoORV", *type)) type++;
    return type;
}

static int csr_call_shape_in_pool(const char *types);

int csr_call_shape(const char *types) {
    int shape;
    @autoreleasepool { shape = csr_call_shape_in_pool(types); }
    return shape;
}

static int csr_call_shape_in_pool(const char *types) {
    if (types == NULL) return -1;
    NSMethodSignature *signature = nil;
    @try {
        signature = [NSMethodSignature signatureWithObjCTypes: types];
    } @catch (NSException *ignored) {
        return -1;
    }
    if (signature == nil) return -1;
    const char *result = csr_skip_qualifiers([signature methodReturnType]);
    if (result == NULL || result[0] != 'v') return -1;
    NSUInteger count = [signature numberOfArguments];
    if (count == 2) return CSRCallShapeNone;
    if (count != 3) return -1;
    const char *argument = csr_skip_qualifiers([signature getArgumentTypeAtIndex: 2]);
    if (argument == NULL) return -1;
    switch (argument[0]) {
    case '@': return CSRCallShapeObject;
    case 'c': case 'C': case 's': case 'S': case 'i': case 'I': case 'l': case 'L': case 'q': case 'Q': case 'B':
        return CSRCallShapeWord;
    case 'd': return CSRCallShapeDouble;
    case '{': {
        NSUInteger size = 0, alignment = 0;
        NSGetSizeAndAlignment(argument, &size, &alignment);
        // CGRect / NSRect: four doubles (two nested pairs). Struct names are skipped, offsets end the scan.
        if (size != 4 * sizeof(double)) return -1;
        int doubles = 0, depth = 0;
        for (const char *p = argument; *p; p++) {
            if (*p == '{') {
                const char *name_end = strchr(p, '=');
                if (name_end == NULL) return -1;
                p = name_end;
                depth++;
            } else if (*p == '}') {
                if (--depth == 0) break;
            } else if (*p == 'd') {
                doubles++;
            } else {
                return -1;
            }
        }
        return doubles == 4 ? CSRCallShapeRect : -1;
    }
    default: return -1;
    }
}

/// One call waiting for the main thread (its interface: CSRMainThreadPlatform.h).
@implementation CSRMainCall
- (void)run {
    switch (shape) {
    case CSRCallShapeNone: ((void (*)(id, SEL))implementation)(receiver, selector); break;
    case CSRCallShapeObject: ((void (*)(id, SEL, id))implementation)(receiver, selector, object); break;
    case CSRCallShapeWord: ((void (*)(id, SEL, long))implementation)(receiver, selector, word); break;
    case CSRCallShapeDouble: ((void (*)(id, SEL, double))implementation)(receiver, selector, number); break;
    case CSRCallShapeRect: ((void (*)(id, SEL, CSRRect))implementation)(receiver, selector, rect); break;
    }
}
#if !__has_feature(objc_arc)
- (void)dealloc {
    [receiver release];
    [object release];
    [super dealloc];
}
#endif
@end

// MARK: Main-thread trampolines

/// Per thread: 0 not known yet, 1 the main thread, 2 another. A trampoline reads it inline (one thread-local load:
/// a call there, `pthread_main_np` on Apple, would make the compiler keep every argument register around it, which
/// doubled a valid call's cost); 0 hands the call to the fallback, whose `csr_main_take_entered` fills it in once
/// per thread from `csr_thread_isMain`. Initial-exec: on ELF one load from the thread pointer, not a call to
/// `__tls_get_addr` (which would keep the argument registers again); Darwin's thread-local variables ignore the model
/// and go through their TLV thunk, which keeps every register but x0/rax.
static __attribute__((tls_model("initial-exec"))) _Thread_local int csr_main_thread_state;

static inline bool csr_main_thread_known(void) { return csr_main_thread_state == 1; }

enum { CSRMainShapes = 5, CSRMainSlots = 16 };

/// Which table slot each trampoline calls the original of (published before the trampoline is installed).
typedef struct CSRMainSlot {
    const CSRHookTable *table;
    long slot;
} CSRMainSlot;
static CSRMainSlot csr_main_slots[CSRMainShapes][CSRMainSlots];
static int csr_main_slot_count[CSRMainShapes];
static pthread_mutex_t csr_main_slot_lock = PTHREAD_MUTEX_INITIALIZER;

typedef void (*CSRMainNoneIMP)(CSRObject, CSRSelector);
typedef void (*CSRMainObjectIMP)(CSRObject, CSRSelector, CSRObject);
typedef void (*CSRMainWordIMP)(CSRObject, CSRSelector, long);
typedef void (*CSRMainDoubleIMP)(CSRObject, CSRSelector, double);
typedef void (*CSRMainRectIMP)(CSRObject, CSRSelector, CSRRect);
static struct {
    CSRMainNoneIMP none;
    CSRMainObjectIMP object;
    CSRMainWordIMP word;
    CSRMainDoubleIMP number;
    CSRMainRectIMP rect;
} csr_main_fallbacks;

void csr_main_set_fallbacks(CSRIMP none, CSRIMP object, CSRIMP word, CSRIMP number, CSRIMP rect) {
    __atomic_store_n(&csr_main_fallbacks.none, (CSRMainNoneIMP)none, __ATOMIC_RELEASE);
    __atomic_store_n(&csr_main_fallbacks.object, (CSRMainObjectIMP)object, __ATOMIC_RELEASE);
    __atomic_store_n(&csr_main_fallbacks.word, (CSRMainWordIMP)word, __ATOMIC_RELEASE);
    __atomic_store_n(&csr_main_fallbacks.number, (CSRMainDoubleIMP)number, __ATOMIC_RELEASE);
    __atomic_store_n(&csr_main_fallbacks.rect, (CSRMainRectIMP)rect, __ATOMIC_RELEASE);
}

/// The slot whose trampoline last handed a call to its fallback on this thread, until the fallback takes it
/// (`csr_main_take_entered`): the fallback finds its point by `_cmd`, which another library's
/// `method_exchangeImplementations` after `start()` may have turned into its alias's name.
static _Thread_local const CSRMainSlot *csr_main_entered;

bool csr_main_take_entered(const CSRHookTable **table, long *slot) {
    if (__builtin_expect(csr_main_thread_state == 0, 0)) csr_main_thread_state = csr_thread_isMain() ? 1 : 2;
    const CSRMainSlot *entered = csr_main_entered;
    csr_main_entered = NULL;
    if (entered == NULL) return false;
    *table = entered->table;
    *slot = entered->slot;
    return true;
}

/// The original of a trampoline's slot, or 0 (the hook added an override: the fallback asks the superclass).
static inline uintptr_t csr_main_original(int shape, int index) {
    const CSRMainSlot *slot = &csr_main_slots[shape][index];
    return __atomic_load_n(&slot->table->originals[slot->slot], __ATOMIC_ACQUIRE);
}

/// A trampoline hands the call on with a tail call (it leaves no frame: the fallback finds the app's call site above
/// it) where every argument travels in registers. A rect travels in memory on x86_64 (four doubles are MEMORY class in
/// the SysV ABI: Linux, and Apple's Intel Macs and simulators), and clang's musttail with such an argument copies it
/// over the trampoline's own saved frame pointer and return address (seen at -O with the Swift 6.3 toolchain's clang:
/// `movups %xmm0,(%rsp)` right before `pop %rbp; jmp`), so the original returned to the rect's 2.0. The rect shape
/// makes an ordinary call instead, never turned into a tail call, and its frame is a hand-over frame the call-site
/// search skips (`csr_main_is_trampoline`).
#define CSR_MAIN_TAIL_CALL(CALL) __attribute__((musttail)) return CALL;
#define CSR_MAIN_PLAIN_CALL(CALL) CALL; return;
#define CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, K, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                  \
    static ATTRIBUTES void csr_main_##FIELD##_##K PARAMETERS {                                                 \
        uintptr_t original = csr_main_original(SHAPE, K);                                                       \
        if (__builtin_expect(original != 0 && csr_main_thread_known(), 1)) {                                    \
            HAND_ON(((TYPE)original) ARGUMENTS)                                                                 \
        }                                                                                                       \
        csr_main_entered = &csr_main_slots[SHAPE][K];                                                           \
        HAND_ON(__atomic_load_n(&csr_main_fallbacks.FIELD, __ATOMIC_ACQUIRE) ARGUMENTS)                        \
    }
#define CSR_MAIN_SHAPE(FIELD, SHAPE, TYPE, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                                              \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 0, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 1, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 2, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 3, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 4, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 5, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 6, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 7, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 8, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 9, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                 \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 10, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 11, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 12, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 13, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 14, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    CSR_MAIN_TRAMPOLINE(FIELD, SHAPE, TYPE, 15, PARAMETERS, ARGUMENTS, HAND_ON, ATTRIBUTES)                \
    static const CSRIMP csr_main_##FIELD##_trampolines[CSRMainSlots] = {                                      \
        (CSRIMP)csr_main_##FIELD##_0, (CSRIMP)csr_main_##FIELD##_1, (CSRIMP)csr_main_##FIELD##_2,              \
        (CSRIMP)csr_main_##FIELD##_3, (CSRIMP)csr_main_##FIELD##_4, (CSRIMP)csr_main_##FIELD##_5,              \
        (CSRIMP)csr_main_##FIELD##_6, (CSRIMP)csr_main_##FIELD##_7, (CSRIMP)csr_main_##FIELD##_8,              \
        (CSRIMP)csr_main_##FIELD##_9, (CSRIMP)csr_main_##FIELD##_10, (CSRIMP)csr_main_##FIELD##_11,            \
        (CSRIMP)csr_main_##FIELD##_12, (CSRIMP)csr_main_##FIELD##_13, (CSRIMP)csr_main_##FIELD##_14,           \
        (CSRIMP)csr_main_##FIELD##_15,                                                                          \
    };

CSR_MAIN_SHAPE(none, CSRCallShapeNone, CSRMainNoneIMP, (CSRObject receiver, CSRSelector cmd), (receiver, cmd),
               CSR_MAIN_TAIL_CALL, )
CSR_MAIN_SHAPE(object, CSRCallShapeObject, CSRMainObjectIMP, (CSRObject receiver, CSRSelector cmd, CSRObject argument),
               (receiver, cmd, argument), CSR_MAIN_TAIL_CALL, )
CSR_MAIN_SHAPE(word, CSRCallShapeWord, CSRMainWordIMP, (CSRObject receiver, CSRSelector cmd, long argument),
               (receiver, cmd, argument), CSR_MAIN_TAIL_CALL, )
CSR_MAIN_SHAPE(number, CSRCallShapeDouble, CSRMainDoubleIMP, (CSRObject receiver, CSRSelector cmd, double argument),
               (receiver, cmd, argument), CSR_MAIN_TAIL_CALL, )
CSR_MAIN_SHAPE(rect, CSRCallShapeRect, CSRMainRectIMP, (CSRObject receiver, CSRSelector cmd, CSRRect argument),
               (receiver, cmd, argument), CSR_MAIN_PLAIN_CALL, __attribute__((disable_tail_calls, noinline)))

bool csr_main_is_trampoline(uintptr_t start) {
    for (int i = 0; i < CSRMainSlots; i++) {
        if (start != 0 && csr_strip_code_pointer((const void *)csr_main_rect_trampolines[i]) == csr_strip_code_pointer((const void *)start))
            return true;
    }
    return false;
}

CSRIMP csr_main_trampoline(CSRCallShape shape, const CSRHookTable *table, long slot) {
    static const CSRIMP *const trampolines[CSRMainShapes] = {
        csr_main_none_trampolines, csr_main_object_trampolines, csr_main_word_trampolines,
        csr_main_number_trampolines, csr_main_rect_trampolines,
    };
    if ((unsigned)shape >= CSRMainShapes || table == NULL || slot < 0) return NULL;
    CSRIMP found = NULL;
    pthread_mutex_lock(&csr_main_slot_lock);
    int count = csr_main_slot_count[shape];
    for (int i = 0; i < count && found == NULL; i++) {
        if (csr_main_slots[shape][i].table == table && csr_main_slots[shape][i].slot == slot) found = trampolines[shape][i];
    }
    if (found == NULL && count < CSRMainSlots) {
        csr_main_slots[shape][count] = (CSRMainSlot){ table, slot };
        csr_main_slot_count[shape] = count + 1;
        found = trampolines[shape][count];
    }
    pthread_mutex_unlock(&csr_main_slot_lock);
    return found;
}

void csr_call_on_main(CSRObject receiver, CSRSelector selector, CSRIMP implementation, CSRCallShape shape,
                      const void *argument) {
    CSRMainCall *call = [[CSRMainCall alloc] init];
    call->receiver = CSR_RETAIN((CSR_BRIDGE id)receiver);
    call->selector = (SEL)selector;
    call->implementation = (IMP)implementation;
    call->shape = shape;
    switch (shape) {
    case CSRCallShapeObject:
        call->object = CSR_RETAIN(argument ? *(__unsafe_unretained id const *)argument : nil);
        break;
    case CSRCallShapeWord: call->word = argument ? *(const long *)argument : 0; break;
    case CSRCallShapeDouble: call->number = argument ? *(const double *)argument : 0; break;
    case CSRCallShapeRect: if (argument) memcpy(&call->rect, argument, sizeof call->rect); break;
    case CSRCallShapeNone: break;
    }
    csr_main_run_later(call);
    CSR_RELEASE(call);
}
