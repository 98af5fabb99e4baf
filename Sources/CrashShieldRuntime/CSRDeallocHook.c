// CSRDeallocHook.c: the dealloc watcher's trampolines (see CSRDeallocHook.h).
#include "CSRDeallocHook.h"
#include "CSRRuntime.h"
#include "CSRSlots.h"

CSRHookTable csr_dealloc_table;
static long csr_dealloc_watched;
/// The superclass of each slot's class, noted when its trampoline is handed out (a class's superclass never changes).
static CSRClass csr_dealloc_superclasses[CSR_HOOK_TABLE_CAPACITY];
static CSRIMP csr_dealloc_replacement;
static _Thread_local long csr_dealloc_slot = -1;   // -1: this thread never entered the replacement

CSRHookTable *csr_dealloc_hook_table(void) { return &csr_dealloc_table; }
void csr_dealloc_watched_add(long delta) { __atomic_add_fetch(&csr_dealloc_watched, delta, __ATOMIC_RELEASE); }
long csr_dealloc_watched_objects(void) { return __atomic_load_n(&csr_dealloc_watched, __ATOMIC_ACQUIRE); }
void csr_dealloc_set_replacement(CSRIMP replacement) { __atomic_store_n(&csr_dealloc_replacement, replacement, __ATOMIC_RELEASE); }
long csr_dealloc_entered_slot(void) { return csr_dealloc_slot; }

typedef uintptr_t (*CSRDeallocIMP)(CSRObject, CSRSelector);

/// What the trampoline of `slot` jumps to: the slot's original while nothing is watched, else the replacement.
static inline __attribute__((always_inline)) CSRDeallocIMP csr_dealloc_next(long slot) {
    if (__atomic_load_n(&csr_dealloc_watched, __ATOMIC_ACQUIRE) == 0) {
        uintptr_t original = __atomic_load_n(&csr_dealloc_table.originals[slot], __ATOMIC_ACQUIRE);
        if (original == 0) {   // an override added to a class that only inherited -dealloc: the superclass's, now
            original = (uintptr_t)csr_class_dispatchImplementation(
                __atomic_load_n(&csr_dealloc_superclasses[slot], __ATOMIC_ACQUIRE), csr_dealloc_table.selector);
        }
        if (original != 0) return (CSRDeallocIMP)original;
    }
    csr_dealloc_slot = slot;
    return (CSRDeallocIMP)__atomic_load_n(&csr_dealloc_replacement, __ATOMIC_ACQUIRE);
}

#if defined(__has_attribute) && __has_attribute(musttail)
#define CSR_DEALLOC_MUSTTAIL __attribute__((musttail))
#else
#define CSR_DEALLOC_MUSTTAIL
#endif

/// The trampoline of one slot: a tail call, so the replacement's caller is the trampoline's (the object's release).
#define CSR_DEALLOC_DEFINE(GROUP, SLOT)                                                                         \
    static uintptr_t csr_dealloc_##GROUP##_##SLOT(CSRObject self, CSRSelector cmd) {                           \
        CSR_DEALLOC_MUSTTAIL return csr_dealloc_next((GROUP) * CSR_SLOT_POOL_SIZE + (SLOT))(self, cmd);        \
    }
#define CSR_DEALLOC_ENTRY(GROUP, SLOT) (CSRIMP)csr_dealloc_##GROUP##_##SLOT,

CSR_SLOTS(CSR_DEALLOC_DEFINE, 0)
CSR_SLOTS(CSR_DEALLOC_DEFINE, 1)
CSR_SLOTS(CSR_DEALLOC_DEFINE, 2)
static const CSRIMP csr_dealloc_pool[] = {
    CSR_SLOTS(CSR_DEALLOC_ENTRY, 0) CSR_SLOTS(CSR_DEALLOC_ENTRY, 1) CSR_SLOTS(CSR_DEALLOC_ENTRY, 2)
};
_Static_assert(sizeof csr_dealloc_pool / sizeof *csr_dealloc_pool == CSR_HOOK_TABLE_CAPACITY,
               "one trampoline per slot of the table");

CSRIMP csr_dealloc_trampoline(long slot) {
    if (slot < 0 || slot >= CSR_HOOK_TABLE_CAPACITY) return NULL;
    // The slot's class is published before its trampoline is asked for (and so before it can run).
    CSRClass superclass = csr_class_getSuperclass((CSRClass)csr_dealloc_table.classes[slot]);
    __atomic_store_n(&csr_dealloc_superclasses[slot], superclass, __ATOMIC_RELEASE);
    return csr_dealloc_pool[slot];
}
