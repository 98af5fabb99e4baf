// CSRObservationGNUstep.m: the KVO guard's platform answers on GNUstep (CSRObservationPlatform.h), the Linux proving
// ground. A phone never compiles this file: objc4 has associated objects (the end mark) and removal by context
// (Apple/CSRObservationApple.m).
#if !defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <pthread.h>
#include "../CSRMemory.h"
#include "../CSRObservationPlatform.h"

void csr_kvo_remove_registration(CSRObject observed, CSRObject observer, CSRObject keyPath, void *context) {
    // GNUstep keeps one registration per observer and key path (and has no context removal).
    (void)context;
    csr_kvo_remove(observed, observer, keyPath);
}

// GNUstep 1.28 forgets a dead object's observers too (GSKVOBase's -dealloc drops its observation info), whatever its
// keys, but GCC's libobjc has no associated objects to learn of the end without a -dealloc hook: the guard watches
// the object's -dealloc, unless a test emulates Apple. Emulated marks: address -> token.
static bool csr_kvo_emulate_apple;
static pthread_mutex_t csr_kvo_marks_lock = PTHREAD_MUTEX_INITIALIZER;
static NSMapTable *csr_kvo_marks;

bool csr_kvo_foundation_forgets_dead_observed_objects(void) {
    return __atomic_load_n(&csr_kvo_emulate_apple, __ATOMIC_ACQUIRE);
}

bool csr_kvo_foundation_raises_for_dead_observed_objects(void) {
    return __atomic_load_n(&csr_kvo_emulate_apple, __ATOMIC_ACQUIRE);
}

void csr_kvo_mark_end(CSRObject object, uintptr_t token) {
    uintptr_t replaced = 0;
    pthread_mutex_lock(&csr_kvo_marks_lock);
    if (!csr_kvo_marks) {
        csr_kvo_marks = NSCreateMapTable(NSNonOwnedPointerMapKeyCallBacks, NSIntegerMapValueCallBacks, 16);
    }
    replaced = (uintptr_t)NSMapGet(csr_kvo_marks, object);
    NSMapInsert(csr_kvo_marks, object, (void *)token);
    pthread_mutex_unlock(&csr_kvo_marks_lock);
    if (replaced) csr_kvo_ended((uintptr_t)object, replaced);
}

void csr_test_emulateAppleKVO(bool emulate) { __atomic_store_n(&csr_kvo_emulate_apple, emulate, __ATOMIC_RELEASE); }

void csr_test_kvo_destroyed(uintptr_t address) {
    uintptr_t token = 0;
    pthread_mutex_lock(&csr_kvo_marks_lock);
    if (csr_kvo_marks) {
        token = (uintptr_t)NSMapGet(csr_kvo_marks, (void *)address);
        NSMapRemove(csr_kvo_marks, (void *)address);
    }
    pthread_mutex_unlock(&csr_kvo_marks_lock);
    if (token) csr_kvo_ended(address, token);
}
#endif
