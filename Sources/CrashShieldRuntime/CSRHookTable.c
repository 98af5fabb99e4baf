// CSRHookTable.c: writers and cold paths of the hook table (see CSRHookTable.h).
#include "CSRHookTable.h"
#include "CSRRuntime.h"

CSRHookTable csr_hot_tables[CSRHotTableCount];
CSRHotSelectors csr_hot_selectors;

void csr_hot_selectors_prepare(void) {
    if (csr_hot_selectors.count == NULL) csr_hot_selectors.count = csr_sel_register("count");
    if (csr_hot_selectors.length == NULL) csr_hot_selectors.length = csr_sel_register("length");
}

long csr_hook_table_slot(const CSRHookTable *table, CSRClass cls) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    for (CSRClass current = cls; current != NULL; current = csr_class_getSuperclass(current)) {
        for (long index = 0; index < published; index++) {
            if (table->classes[index] == (uintptr_t)current) return __atomic_load_n(&table->owners[index], __ATOMIC_RELAXED);
        }
    }
    return -1;
}

long csr_hook_table_index(const CSRHookTable *table, uintptr_t cls) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < published; index++) if (table->classes[index] == cls) return index;
    return -1;
}

uintptr_t csr_hook_table_resolve(const CSRHookTable *table, long slot) {
    uintptr_t fixed = __atomic_load_n(&table->originals[slot], __ATOMIC_ACQUIRE);
    if (fixed != 0) return fixed;
    CSRClass superclass = csr_class_getSuperclass((CSRClass)table->classes[slot]);
    return (uintptr_t)csr_class_dispatchImplementation(superclass, table->selector);
}

void csr_hook_table_add_alias(CSRHookTable *table, uintptr_t cls, long owner) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    if (published >= CSR_HOOK_TABLE_CAPACITY - 8) return;   // keep room for real installations
    for (long index = 0; index < published; index++) if (table->classes[index] == cls) return;
    table->classes[published] = cls;
    __atomic_store_n(&table->owners[published], owner, __ATOMIC_RELAXED);
    __atomic_store_n(&table->count, published + 1, __ATOMIC_RELEASE);
}

bool csr_hook_table_register(CSRHookTable *table, uintptr_t cls, uintptr_t original) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < published; index++) {
        if (table->classes[index] != cls) continue;
        __atomic_store_n(&table->originals[index], original, __ATOMIC_RELEASE);
        __atomic_store_n(&table->active[index], 1, __ATOMIC_RELEASE);
        // An alias (the class inherited the hook) becomes the class's own slot; otherwise it would keep answering
        // with the ancestor's original and skip the class's own implementation.
        __atomic_store_n(&table->owners[index], index, __ATOMIC_RELEASE);
        return true;
    }
    if (published >= CSR_HOOK_TABLE_CAPACITY) return false;
    table->classes[published] = cls;
    __atomic_store_n(&table->owners[published], published, __ATOMIC_RELAXED);
    __atomic_store_n(&table->originals[published], original, __ATOMIC_RELAXED);
    __atomic_store_n(&table->active[published], 1, __ATOMIC_RELAXED);
    __atomic_store_n(&table->count, published + 1, __ATOMIC_RELEASE);
    return true;
}

void csr_hook_table_set_active(CSRHookTable *table, long slot, bool active) {
    if (slot >= 0) __atomic_store_n(&table->active[slot], active ? 1 : 0, __ATOMIC_RELEASE);
}

bool csr_hook_table_is_active(const CSRHookTable *table, long slot) {
    return slot >= 0 && __atomic_load_n(&table->active[slot], __ATOMIC_ACQUIRE) == 1;
}

uintptr_t csr_hook_table_class(const CSRHookTable *table, long slot) { return slot >= 0 ? table->classes[slot] : 0; }

uintptr_t csr_hook_table_nested(const CSRHookTable *table, CSRClass cls) {
    long published = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    for (long index = 0; index < published; index++) {
        if (__atomic_load_n(&table->owners[index], __ATOMIC_RELAXED) != index) continue;
        CSRClass other = (CSRClass)table->classes[index];
        if (other == cls) continue;
        if (csr_class_isKindOf(cls, other) || csr_class_isKindOf(other, cls)) return (uintptr_t)other;
    }
    return 0;
}
