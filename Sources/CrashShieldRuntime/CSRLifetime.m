// CSRLifetime.m: zombies and main-thread calls (see CSRLifetime.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "CSRLifetime.h"
#include "CSRIncident.h"
#include "CSRCallStack.h"
#include "CSRRuntime.h"
#include "CSRException.h"
#include "CSRMemory.h"

#if defined(__APPLE__)
#include <dispatch/dispatch.h>
#include <dlfcn.h>
#endif

// MARK: Zombies

void csr_zombie_prepare(void) {
    // Give the zombie class its own dispatch table now (see csr_class_installDispatchTable).
    csr_class_installDispatchTable(csr_zombie_class(), NULL);
}

/// The one implementation of every zombie message. Declared without the message's arguments: it reads none, and a
/// callee that ignores arguments is correct under every calling convention. Answers nil / 0 (integer registers);
/// a floating-point or struct answer is unspecified.
static void *csr_zombie_message(void *self, SEL _cmd) {
    CSRIncident incident = {
        .source = CSRIncidentZombie,
        .implementation = (CSRIMP)&csr_zombie_message,
        .receiver = self,
        .selector = (CSRSelector)(void *)_cmd,
    };
    if (csr_incident_report(&incident)) return NULL;
    // Not recovered and not raised by the incident path: no handler is registered.
    char reason[512];
    snprintf(reason, sizeof reason, "*** -[? %s]: message sent to deallocated instance %p", sel_getName(_cmd), self);
    csr_raise("NSInternalInconsistencyException", reason);
}

const void *csr_zombie_message_address(void) { return (const void *)(uintptr_t)&csr_zombie_message; }

/// The zombie class: a root class (no NSObject behaviour at all) whose instances have no methods. The first time
/// a selector reaches a zombie, the runtime asks +resolveInstanceMethod:, which adds the zombie implementation
/// for it; from then on that selector dispatches straight to it.
__attribute__((objc_root_class))
@interface CSRZombie {
    Class isa;
}
@end

@implementation CSRZombie
+ (void)initialize {}
+ (BOOL)resolveInstanceMethod:(SEL)selector {
    const char *types = NULL;
#if !defined(__APPLE__)
    types = sel_getTypeEncoding(selector);
#endif
    class_addMethod((Class)self, selector, (IMP)csr_zombie_message, types ? types : "@@:");
    return YES;
}
+ (BOOL)resolveClassMethod:(SEL)selector { return NO; }
@end

/// What a zombie becomes just before it is freed for real: an ordinary class, so that freeing it runs no code
/// of the object's original class and no zombie message.
@interface CSRZombieCorpse : NSObject
@end
@implementation CSRZombieCorpse
@end

CSRClass csr_zombie_class(void) { return (CSR_BRIDGE CSRClass)(Class)objc_getClass("CSRZombie"); }   // Apple: id

#if defined(__APPLE__)
/// objc_destructInstance, which ARC code may not name: C++/ARC ivars, associated objects, weak references.
static void csr_destruct_instance(void *object) {
    static void *(*destruct)(void *);
    if (destruct == NULL) destruct = (void *(*)(void *))dlsym(RTLD_DEFAULT, "objc_destructInstance");
    if (destruct != NULL) destruct(object);
}
#endif

/// A class by name, looked up once (the zombie classes never go away).
static Class csr_cached_class(void **cache, const char *name) {
    void *cls = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (cls == NULL) {
        cls = (CSR_BRIDGE void *)objc_getClass(name);
        __atomic_store_n(cache, cls, __ATOMIC_RELEASE);
    }
    return (CSR_BRIDGE Class)cls;
}

void csr_zombie_make(CSRObject object) {
    if (object == NULL) return;
    static void *zombieClass;
    Class zombie = csr_cached_class(&zombieClass, "CSRZombie");
#if defined(__APPLE__)
    csr_destruct_instance(object);
    object_setClass((CSR_BRIDGE id)object, zombie);
#else
    // GCC's libobjc: C++ destructors (.cxx_destruct), when a class in the chain has them, as NSDeallocateObject
    // would run them. No associated objects, no weak references.
    Class cls = object_getClass((CSR_BRIDGE id)object);
    static SEL destructSelector;
    if (destructSelector == NULL) destructSelector = sel_registerName(".cxx_destruct");
    // The dispatch table answers whether any class in the chain has one (class_getInstanceMethod would search
    // every method list of the chain, and ask +resolveInstanceMethod: when none has it).
    if (class_respondsToSelector(cls, destructSelector)) {
        IMP previous = NULL;
        for (Class c = cls; c != Nil; c = class_getSuperclass(c)) {
            Method method = class_getInstanceMethod(c, destructSelector);
            if (method == NULL) break;
            IMP imp = method_getImplementation(method);
            if (imp != previous) ((void (*)(id, SEL))imp)((CSR_BRIDGE id)object, destructSelector);
            previous = imp;
        }
    }
    *(Class *)object = zombie;
#endif
}

void csr_zombie_free(CSRObject object) {
    if (object == NULL) return;
    static void *corpseClass;
    Class corpse = csr_cached_class(&corpseClass, "CSRZombieCorpse");
#if defined(__APPLE__)
    object_setClass((CSR_BRIDGE id)object, corpse);
    free(object);   // objc_destructInstance ran when it became a zombie
#else
    *(Class *)object = corpse;
    NSDeallocateObject((CSR_BRIDGE id)object);   // the root -dealloc's work, on a class without destructors
#endif
}

// MARK: The zombie pool

/// A ring of records, oldest at `head`; grows by doubling.
static struct {
    pthread_mutex_t lock;
    CSRZombieRecord *ring;
    size_t capacity, head, count, bytes, maxBytes, maxCount, evicted;
} csr_pool = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0, 0, 0, 0 };

static CSRZombieRecord *csr_pool_at(size_t position) {
    assert(csr_pool.capacity > 0);   // count <= capacity: a record is read or written only once csr_pool_reserve made room
    return &csr_pool.ring[(csr_pool.head + position) % csr_pool.capacity];
}

/// Under the lock: frees the oldest zombie for real.
static void csr_pool_evict_oldest(void) {
    CSRZombieRecord record = *csr_pool_at(0);
    csr_pool.head = (csr_pool.head + 1) % csr_pool.capacity;
    csr_pool.count--;
    csr_pool.bytes -= record.size;
    free(record.stack);
    csr_zombie_free((CSRObject)record.address);
}

/// Under the lock: room for one more record. false if memory ran out.
static bool csr_pool_reserve(void) {
    if (csr_pool.count < csr_pool.capacity) return true;
    size_t capacity = csr_pool.capacity ? csr_pool.capacity * 2 : 256;
    CSRZombieRecord *ring = malloc(capacity * sizeof *ring);
    if (ring == NULL) return false;
    for (size_t i = 0; i < csr_pool.count; i++) ring[i] = *csr_pool_at(i);
    free(csr_pool.ring);
    csr_pool.ring = ring;
    csr_pool.capacity = capacity;
    csr_pool.head = 0;
    return true;
}

static void csr_pool_drain_locked(void) {
    while (csr_pool.count > 0) csr_pool_evict_oldest();
}

void csr_zombie_pool_configure(size_t maxBytes, size_t maxCount) {
    pthread_mutex_lock(&csr_pool.lock);
    csr_pool_drain_locked();
    csr_pool.maxBytes = maxBytes;
    csr_pool.maxCount = maxCount;
    csr_pool.evicted = 0;
    pthread_mutex_unlock(&csr_pool.lock);
}

void csr_zombie_pool_add(CSRObject object, CSRClass cls, size_t size, const uintptr_t *stack, int stackCount) {
    uintptr_t *frames = NULL;
    if (stack != NULL && stackCount > 0 && (frames = malloc((size_t)stackCount * sizeof *frames)) != NULL) {
        memcpy(frames, stack, (size_t)stackCount * sizeof *frames);
    }
    CSRZombieRecord record = { (uintptr_t)object, cls, size, frames, frames ? stackCount : 0 };
    pthread_mutex_lock(&csr_pool.lock);
    if (csr_pool_reserve()) {
        *csr_pool_at(csr_pool.count) = record;
        csr_pool.count++;
        csr_pool.bytes += size;
    } else {
        free(frames);
        csr_zombie_free(object);   // out of memory: freed at once, as if evicted
        csr_pool.evicted++;
    }
    while (csr_pool.count > 0 && (csr_pool.count > csr_pool.maxCount || csr_pool.bytes > csr_pool.maxBytes)) {
        csr_pool_evict_oldest();
        csr_pool.evicted++;
    }
    pthread_mutex_unlock(&csr_pool.lock);
}

bool csr_zombie_pool_record(uintptr_t address, CSRZombieRecord *record, uintptr_t *stack, int maxFrames) {
    bool found = false;
    pthread_mutex_lock(&csr_pool.lock);
    for (size_t position = csr_pool.count; position > 0 && !found; position--) {
        const CSRZombieRecord *candidate = csr_pool_at(position - 1);
        if (candidate->address != address) continue;
        found = true;
        *record = *candidate;
        record->stackCount = candidate->stackCount < maxFrames ? candidate->stackCount : maxFrames;
        if (record->stackCount > 0) memcpy(stack, candidate->stack, (size_t)record->stackCount * sizeof *stack);
        record->stack = stack;
    }
    pthread_mutex_unlock(&csr_pool.lock);
    return found;
}

void csr_zombie_pool_drain(void) {
    pthread_mutex_lock(&csr_pool.lock);
    csr_pool_drain_locked();
    pthread_mutex_unlock(&csr_pool.lock);
}

void csr_zombie_pool_usage(size_t *count, size_t *bytes, size_t *evicted) {
    pthread_mutex_lock(&csr_pool.lock);
    if (count) *count = csr_pool.count;
    if (bytes) *bytes = csr_pool.bytes;
    if (evicted) *evicted = csr_pool.evicted;
    pthread_mutex_unlock(&csr_pool.lock);
}

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

/// One call waiting for the main thread.
@interface CSRMainCall : NSObject {
@public
    id receiver;
    SEL selector;
    IMP implementation;
    CSRCallShape shape;
    id object;
    long word;
    double number;
    CSRRect rect;
}
- (void)run;
@end

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

#if !defined(__APPLE__)
extern __attribute__((tls_model("initial-exec"))) _Thread_local int csr_thread_main_state;   // CSRRuntime.m: 1 once csr_thread_isMain found the main thread
static inline bool csr_main_thread_known(void) { return csr_thread_main_state == 1; }
#else
static inline bool csr_main_thread_known(void) { return pthread_main_np() != 0; }
#endif

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

#if defined(__APPLE__)
static void csr_main_call_run(void *context) {
#if __has_feature(objc_arc)
    CSRMainCall *call = (__bridge_transfer CSRMainCall *)context;
    @autoreleasepool { [call run]; }
#else
    CSRMainCall *call = (CSRMainCall *)context;
    @autoreleasepool { [call run]; }
    [call release];
#endif
}
#endif

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
#if defined(__APPLE__) && __has_feature(objc_arc)
    dispatch_async_f(dispatch_get_main_queue(), (__bridge_retained void *)call, csr_main_call_run);
#elif defined(__APPLE__)
    dispatch_async_f(dispatch_get_main_queue(), (void *)call, csr_main_call_run);   // released by the call
#else
    [call performSelectorOnMainThread: @selector(run) withObject: nil waitUntilDone: NO];
    CSR_RELEASE(call);
#endif
}
