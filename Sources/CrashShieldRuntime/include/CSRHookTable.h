// CSRHookTable.h: the storage behind a hook point's lookup "receiver class -> original implementation".
//
// Read on every guarded call without a lock: slots are appended, never removed, and published by a release store of
// `count`; a slot's class never changes once published; owners, originals and active flags change only by atomic
// word stores. Writers (the hook engine, under its lock) use the functions below. The policy lives in Swift
// (OriginalTable.swift); this is only the memory layout and the atomic accesses, kept in C so that the hot lookup
// inlines to a few loads.
#ifndef CSR_HOOK_TABLE_H
#define CSR_HOOK_TABLE_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CSR_HOOK_TABLE_CAPACITY 96

typedef struct CSRHookTable {
    long count;
    /// Slot of the last class found (a hint, always < count once set): the usual receiver class hits it first.
    long hint;
    CSRSelector selector;
    /// The hook point that owns the table (unretained; hook points live as long as the process). Read only on cold
    /// paths, by the hot-read trampolines (CSRHotReads.h) handing a miss or a failure back to Swift.
    const void *owner;
    uintptr_t classes[CSR_HOOK_TABLE_CAPACITY];
    /// Slot that holds the real original: the slot itself, or the hooked ancestor's for an alias.
    long owners[CSR_HOOK_TABLE_CAPACITY];
    /// 0: ask the superclass at call time (the hook added an override to a class that inherited the method).
    uintptr_t originals[CSR_HOOK_TABLE_CAPACITY];
    /// 1 while the hook on that class is active; 0 once reverted in place.
    uintptr_t active[CSR_HOOK_TABLE_CAPACITY];
} CSRHookTable;

/// Hot path: the original implementation for receivers of exactly `cls`, or 0 (no slot for `cls`, or its original
/// must be asked of the superclass: see `csr_hook_table_resolve`).
static inline uintptr_t csr_hook_table_find(CSRHookTable *table, uintptr_t cls) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    long hint = __atomic_load_n(&table->hint, __ATOMIC_RELAXED);
    if (hint < published && table->classes[hint] == cls) {
        long owner = __atomic_load_n(&table->owners[hint], __ATOMIC_RELAXED);
        return __atomic_load_n(&table->originals[owner], __ATOMIC_ACQUIRE);
    }
    for (long index = 0; index < published; index++) {
        if (table->classes[index] == cls) {
            __atomic_store_n(&table->hint, index, __ATOMIC_RELAXED);
            long owner = __atomic_load_n(&table->owners[index], __ATOMIC_RELAXED);
            return __atomic_load_n(&table->originals[owner], __ATOMIC_ACQUIRE);
        }
    }
    return 0;
}

/// The slot of `cls` itself or of its nearest hooked ancestor (following aliases to their owner); -1 if none.
long csr_hook_table_slot(const CSRHookTable *table, CSRClass cls);
/// The slot of exactly `cls`; -1 if none.
long csr_hook_table_index(const CSRHookTable *table, uintptr_t cls);
/// The original of a slot, asking the superclass of the slot's class when the hook added an override.
uintptr_t csr_hook_table_resolve(const CSRHookTable *table, long slot);
/// Adds an alias slot for `cls` pointing at `owner` (a subclass that reaches an ancestor's hook), if room is left.
void csr_hook_table_add_alias(CSRHookTable *table, uintptr_t cls, long owner);
/// Records `original` for `cls` (updating its slot, or promoting its alias to a slot of its own); false when full.
bool csr_hook_table_register(CSRHookTable *table, uintptr_t cls, uintptr_t original);
void csr_hook_table_set_active(CSRHookTable *table, long slot, bool active);
bool csr_hook_table_is_active(const CSRHookTable *table, long slot);
/// The class of a slot (its own, not the owner's).
uintptr_t csr_hook_table_class(const CSRHookTable *table, long slot);
/// A class installed here (not an alias) that is a strict superclass or subclass of `cls`; 0 if none.
uintptr_t csr_hook_table_nested(const CSRHookTable *table, CSRClass cls);

// MARK: Tables and selectors of the hottest hook points, allocated statically so that a replacement reaches them
// without any lazy initialisation.

enum {
    CSRHotArrayObjectAtIndex = 0,
    CSRHotArrayObjectAtIndexedSubscript,
    CSRHotStringCharacterAtIndex,
    CSRHotStringCharacterAtIndexBase,
    CSRHotStringSubstringWithRange,
    CSRHotStringSubstringWithRangeBase,
    CSRHotArrayAddObject,
    CSRHotDictionarySetObjectForKey,
    CSRHotMutableStringReplaceCharacters,
    CSRHotObjectMethodSignature,
    CSRHotClassMethodSignature,
    CSRHotSetAddObject,
    CSRHotStringInitWithFormat,
    CSRHotStringInitWithUTF8String,
    CSRHotStringWithUTF8String,
    CSRHotStringHasPrefix,
    CSRHotStringHasSuffix,
    CSRHotStringCompare,
    CSRHotStringRangeOfString,
    CSRHotStringInitWithCStringEncoding,
    CSRHotStringWithCStringEncoding,
    CSRHotStringInitWithBytes,
    CSRHotStringGetCharactersRange,
    CSRHotNumberCompare,
    CSRHotDateCompare,
    CSRHotTableCount
};

extern CSRHookTable csr_hot_tables[CSRHotTableCount];

static inline CSRHookTable *csr_hot_table(int tableIndex) { return &csr_hot_tables[tableIndex]; }

/// Selectors the hot replacements send, registered by `csr_hot_selectors_prepare` before any hook is installed.
typedef struct CSRHotSelectors {
    CSRSelector count;
    CSRSelector length;
} CSRHotSelectors;

extern CSRHotSelectors csr_hot_selectors;
void csr_hot_selectors_prepare(void);

#ifdef __cplusplus
}
#endif
#endif
