// CSRZombie.m: the zombie guard's Objective-C half: the zombie class, turning an object into a zombie and freeing it
// for real, and the zombie pool (see CSRZombie.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "CSRZombie.h"
#include "CSRIncident.h"
#include "CSRRuntime.h"
#include "CSRException.h"
#include "CSRMemory.h"
#include "CSRZombiePlatform.h"   // what differs between objc4 and GCC's libobjc: Apple/, GNUstep/

// MARK: Zombies

void csr_zombie_prepare(void) {
    // Give the zombie class its own dispatch table now (see csr_class_installDispatchTable).
    csr_class_installDispatchTable(csr_zombie_class(), NULL);
}

static Class csr_cached_class(void **cache, const char *name);

/// The one implementation of every zombie message. Declared without the message's arguments: it reads none, and a
/// callee that ignores arguments is correct under every calling convention. Answers nil / 0 (integer registers);
/// a floating-point or struct answer is unspecified.
///
/// x86_64 (System V: Linux, and Apple's Intel Macs and x86_64 simulators): a message whose answer is a struct
/// returned in memory passes the answer's address first, then self and _cmd (objc4 sends it with
/// `objc_msgSend_stret`, which calls the IMP it finds, this one, that way: objc-msg-x86_64.s; GCC's libobjc's
/// callers call the looked-up IMP the same way), so self and _cmd arrive one register later. The receiver is the
/// argument whose class is the zombie class: the first one (an ordinary message), else the second (the first is the
/// caller's answer buffer, whose first word is not a zombie's class). arm64 passes that address in x8: no shift.
#if defined(__x86_64__)
static void *csr_zombie_message(void *first, void *second, void *third) {
    static void *zombieClass;
    Class zombie = csr_cached_class(&zombieClass, "CSRZombie");
    void *self = first, *answer = NULL;
    SEL _cmd = (SEL)second;
    if (object_getClass((CSR_BRIDGE id)first) != zombie && second != NULL
        && object_getClass((CSR_BRIDGE id)second) == zombie) {
        self = second;
        _cmd = (SEL)third;
        answer = first;   // a struct returned in memory: its address goes back in rax, as the ABI has it
    }
#else
static void *csr_zombie_message(void *self, SEL _cmd) {
    void *answer = NULL;
#endif
    CSRIncident incident = {
        .source = CSRIncidentZombie,
        .implementation = (CSRIMP)&csr_zombie_message,
        .receiver = self,
        .selector = (CSRSelector)(void *)_cmd,
    };
    if (csr_incident_report(&incident)) return answer;
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
    const char *types = csr_zombie_selector_types(selector);
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
    csr_zombie_destroy_and_set_class(object, zombie);
}

void csr_zombie_free(CSRObject object) {
    if (object == NULL) return;
    static void *corpseClass;
    Class corpse = csr_cached_class(&corpseClass, "CSRZombieCorpse");
    csr_zombie_free_as(object, corpse);
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
