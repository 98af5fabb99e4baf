// CSRHotReads.m: the hot-read trampolines (see CSRHotReads.h). Mechanics only; every decision is Swift's.
#import <Foundation/Foundation.h>
#include "CSRHotReads.h"
#include <pthread.h>
#include "CSRRuntime.h"
#include "CSRSlots.h"
#include "CSRCallStack.h"

_Static_assert(CSR_HOT_READ_POOL_SIZE == CSR_SLOT_POOL_SIZE, "the hot-read pools are CSRSlots.h's");

static CSRHotReadResolver csr_hot_read_resolver;

static void csr_trampolines_index(void);

void csr_hot_reads_set_resolver(CSRHotReadResolver resolve) {
    static pthread_once_t indexed = PTHREAD_ONCE_INIT;
    pthread_once(&indexed, csr_trampolines_index);
    __atomic_store_n(&csr_hot_read_resolver, resolve, __ATOMIC_RELEASE);
}

/// Generic trampoline's miss: Swift resolves through the superclasses (and records an alias slot).
__attribute__((noinline, cold))
static uintptr_t csr_hot_read_resolve(CSRHookTable *table, CSRObject receiver) {
    CSRHotReadResolver resolve = __atomic_load_n(&csr_hot_read_resolver, __ATOMIC_ACQUIRE);
    return resolve ? resolve(table, receiver) : 0;
}

/// Whether a trampoline of the same family is further up the stack than a trampoline that caught.
static bool csr_hot_read_has_outer_call(CSRHookTable *table);

/// true when Swift chose to recover; false: the trampoline rethrows the exception (`@throw;`: a rethrow, so
/// Foundation's exception preprocessor does not run again on Apple), unchanged, to the caller. A trampoline of the
/// same family further up the stack (GNUstep's attributed-string tracker asks its string, which asks its own;
/// `array[i]` sends `objectAtIndex:`) lets the outermost one decide: that is the call the app made, and it is
/// reported once.
__attribute__((noinline, cold))
static bool csr_hot_read_recovers(CSRHookTable *table, CSRIMP trampoline, CSRObject receiver, uintptr_t argument,
                                  id exception) {
    if (csr_hot_read_has_outer_call(table)) return false;
    CSRIncident incident = {
        .source = CSRIncidentHotRead,
        .table = table,
        .implementation = trampoline,
        .receiver = receiver,
        .argument = argument,
        .exception = (CSR_BRIDGE CSRObject)exception,
    };
    return csr_incident_report(&incident);
}

/// Calls `original` under @try; a throw goes to Swift. Kept small: the frame is the whole cost of a valid call. The
/// receiver and the argument, which only the landing pad needs, are kept in the frame (two stores) rather than in
/// callee-saved registers (two saves, two restores and two moves on each valid call).
#define CSR_HOT_READ_CALL(TABLE, SELF_NAME, RETURN, ARGUMENT)                                                   \
    CSRObject volatile keptReceiver = receiver;                                                                 \
    uintptr_t volatile keptArgument = (uintptr_t)argument;                                                      \
    @try {                                                                                                      \
        return ((RETURN (*)(CSRObject, CSRSelector, ARGUMENT))original)(receiver, cmd, argument);               \
    } @catch (id exception) {                                                                                   \
        if (!csr_hot_read_recovers(&csr_hot_tables[TABLE], (CSRIMP)SELF_NAME, keptReceiver, keptArgument,       \
                                   exception)) @throw;                                                          \
    }                                                                                                           \
    return (RETURN)0;

/// The generic trampoline of a table: looks the receiver's class up.
#define CSR_HOT_READ_GENERIC(NAME, TABLE, RETURN, ARGUMENT)                                                     \
    static RETURN NAME(CSRObject receiver, CSRSelector cmd, ARGUMENT argument) {                                \
        CSRHookTable *table = &csr_hot_tables[TABLE];                                                           \
        uintptr_t original = csr_hook_table_find(table, (uintptr_t)csr_object_getClass(receiver));              \
        if (original == 0) original = csr_hot_read_resolve(table, receiver);                                    \
        if (original == 0) return (RETURN)0;                                                                    \
        CSR_HOT_READ_CALL(TABLE, NAME, RETURN, ARGUMENT)                                                        \
    }

/// The trampoline of one slot. `originals[SLOT]` is 0 when the hook added an override to a class that only
/// inherited the method: then the superclass's current implementation is the original (found out of line, so that
/// the common path keeps its frame small).
#define CSR_HOT_READ_SLOT(NAME, TABLE, RETURN, ARGUMENT, SLOT)                                                  \
    static RETURN NAME##_##SLOT(CSRObject receiver, CSRSelector cmd, ARGUMENT argument) {                       \
        uintptr_t original = __atomic_load_n(&csr_hot_tables[TABLE].originals[SLOT], __ATOMIC_ACQUIRE);         \
        if (__builtin_expect(original == 0, 0)) return NAME##_inherited(receiver, cmd, argument, SLOT);         \
        CSR_HOT_READ_CALL(TABLE, NAME##_##SLOT, RETURN, ARGUMENT)                                               \
    }

/// A slot trampoline's path when its class only inherited the method.
#define CSR_HOT_READ_INHERITED(NAME, TABLE, RETURN, ARGUMENT)                                                   \
    __attribute__((noinline))                                                                                   \
    static RETURN NAME##_inherited(CSRObject receiver, CSRSelector cmd, ARGUMENT argument, long slot) {         \
        uintptr_t original = csr_hook_table_resolve(&csr_hot_tables[TABLE], slot);                              \
        if (original == 0) return (RETURN)0;                                                                    \
        CSR_HOT_READ_CALL(TABLE, NAME##_inherited, RETURN, ARGUMENT)                                            \
    }


/// Everything one hot table needs: its generic trampoline, its pool and the pool's table of addresses.
#define CSR_HOT_READ_TABLE(NAME, TABLE, RETURN, ARGUMENT)                                                       \
    CSR_HOT_READ_GENERIC(NAME, TABLE, RETURN, ARGUMENT)                                                         \
    CSR_HOT_READ_INHERITED(NAME, TABLE, RETURN, ARGUMENT)                                                       \
    CSR_SLOTS(CSR_HOT_READ_SLOT, NAME, TABLE, RETURN, ARGUMENT)                                                 \
    static const CSRIMP NAME##_pool[CSR_HOT_READ_POOL_SIZE] = { CSR_SLOTS(CSR_POOL_ENTRY, NAME) };

CSR_HOT_READ_TABLE(csr_hot_character_at_index, CSRHotStringCharacterAtIndex, uint16_t, unsigned long)
CSR_HOT_READ_TABLE(csr_hot_character_at_index_base, CSRHotStringCharacterAtIndexBase, uint16_t, unsigned long)
CSR_HOT_READ_TABLE(csr_hot_object_at_index, CSRHotArrayObjectAtIndex, CSRObject, unsigned long)
CSR_HOT_READ_TABLE(csr_hot_object_at_indexed_subscript, CSRHotArrayObjectAtIndexedSubscript, CSRObject, unsigned long)

/// The out-of-line path of a table's slot trampolines (for the nesting check).
static CSRIMP csr_hot_read_inherited(int tableIndex) {
    switch (tableIndex) {
        case CSRHotStringCharacterAtIndex: return (CSRIMP)csr_hot_character_at_index_inherited;
        case CSRHotStringCharacterAtIndexBase: return (CSRIMP)csr_hot_character_at_index_base_inherited;
        case CSRHotArrayObjectAtIndex: return (CSRIMP)csr_hot_object_at_index_inherited;
        case CSRHotArrayObjectAtIndexedSubscript: return (CSRIMP)csr_hot_object_at_indexed_subscript_inherited;
        default: return NULL;
    }
}

CSRIMP csr_hot_read_trampoline(int tableIndex, long slot) {
    const CSRIMP *pool;
    CSRIMP generic;
    switch (tableIndex) {
        case CSRHotStringCharacterAtIndex:
            pool = csr_hot_character_at_index_pool; generic = (CSRIMP)csr_hot_character_at_index; break;
        case CSRHotStringCharacterAtIndexBase:
            pool = csr_hot_character_at_index_base_pool; generic = (CSRIMP)csr_hot_character_at_index_base; break;
        case CSRHotArrayObjectAtIndex:
            pool = csr_hot_object_at_index_pool; generic = (CSRIMP)csr_hot_object_at_index; break;
        case CSRHotArrayObjectAtIndexedSubscript:
            pool = csr_hot_object_at_indexed_subscript_pool;
            generic = (CSRIMP)csr_hot_object_at_indexed_subscript;
            break;
        default:
            return NULL;
    }
    return slot >= 0 && slot < CSR_HOT_READ_POOL_SIZE ? pool[slot] : generic;
}

// MARK: Nesting: which frames on the stack are trampolines (cold path only)

static const int csr_hot_read_tables[] = {
    CSRHotStringCharacterAtIndex, CSRHotStringCharacterAtIndexBase, CSRHotArrayObjectAtIndex,
    CSRHotArrayObjectAtIndexedSubscript,
};

/// Tables whose selectors one implementation may answer by sending the other (GNUstep's NSArray answers `array[i]`
/// with `objectAtIndex:`; the tracker's `characterAtIndex:` asks its string's): one family each.
static int csr_hot_read_family(int tableIndex) {
    switch (tableIndex) {
        case CSRHotArrayObjectAtIndex: case CSRHotArrayObjectAtIndexedSubscript: return 1;
        case CSRHotStringCharacterAtIndex: case CSRHotStringCharacterAtIndexBase: return 2;
        default: return 3 + tableIndex;  // a family of its own
    }
}
#define CSR_HOT_READ_TABLES (sizeof csr_hot_read_tables / sizeof *csr_hot_read_tables)

/// Every trampoline's start address, with its table and kind; built once by `csr_hot_reads_set_resolver`.
typedef struct CSRTrampolineEntry {
    uintptr_t start;
    int table;
    bool inherited;
} CSRTrampolineEntry;

static CSRTrampolineEntry csr_trampolines[CSR_HOT_READ_TABLES * (CSR_HOT_READ_POOL_SIZE + 2)];
static size_t csr_trampoline_count;
static uintptr_t csr_trampoline_lowest = UINTPTR_MAX, csr_trampoline_highest;

/// Raw start addresses (`csr_strip_code_pointer`): they are compared with the unwinder's.
static void csr_trampoline_add(CSRIMP function, int table, bool inherited) {
    uintptr_t start = csr_strip_code_pointer((const void *)function);
    csr_trampolines[csr_trampoline_count++] = (CSRTrampolineEntry){ start, table, inherited };
    if (start < csr_trampoline_lowest) csr_trampoline_lowest = start;
    if (start > csr_trampoline_highest) csr_trampoline_highest = start;
}

static void csr_trampolines_index(void) {
    for (size_t t = 0; t < CSR_HOT_READ_TABLES; t++) {
        int tableIndex = csr_hot_read_tables[t];
        csr_trampoline_add(csr_hot_read_inherited(tableIndex), tableIndex, true);
        for (long slot = -1; slot < CSR_HOT_READ_POOL_SIZE; slot++) {
            csr_trampoline_add(csr_hot_read_trampoline(tableIndex, slot), tableIndex, false);
        }
    }
}

/// The hot table whose trampoline starts at `function`, or -1; `inherited`: it is the table's out-of-line path.
static int csr_hot_read_table_of(uintptr_t function, bool *inherited) {
    *inherited = false;
    function = csr_strip_code_pointer((const void *)function);
    if (function < csr_trampoline_lowest || function > csr_trampoline_highest) return -1;
    for (size_t index = 0; index < csr_trampoline_count; index++) {
        if (csr_trampolines[index].start != function) continue;
        *inherited = csr_trampolines[index].inherited;
        return csr_trampolines[index].table;
    }
    return -1;
}


typedef struct CSRFrameSearch {
    int family;
    /// Calls of the selector through a trampoline seen so far, innermost first.
    int calls;
    /// Frames left to look at: nested calls sit a few frames apart, and every frame costs the unwinder a lookup.
    int framesLeft;
    /// The previous frame was a table's out-of-line path: its slot trampoline's frame (if the call was not a tail
    /// call) belongs to the same call.
    int inheritedTable;
} CSRFrameSearch;

/// One frame of the walk, `start` the start of its function: whether it is an outer call of the search's family.
static bool csr_hot_read_frame_is_outer_call(CSRFrameSearch *search, uintptr_t start) {
    bool inherited = false;
    int tableIndex = csr_hot_read_table_of(start, &inherited);
    bool sameCall = tableIndex >= 0 && !inherited && tableIndex == search->inheritedTable;
    search->inheritedTable = inherited ? tableIndex : -1;
    if (tableIndex < 0 || csr_hot_read_family(tableIndex) != search->family || sameCall) return false;
    // The first call is the trampoline asking; a second is an outer call of the same family.
    return ++search->calls >= 2;
}

static bool csr_hot_read_has_outer_call(CSRHookTable *table) {
    CSRFrameSearch search = { csr_hot_read_family((int)(table - csr_hot_tables)), 0, 8, -1 };
    // The walk every stack capture makes (csr_backtrace: every read checked); frame 0 is csr_backtrace's.
    void *frames[10];
    int count = csr_backtrace(frames, 10);
    for (int index = 1; index < count && search.framesLeft-- > 0; index++) {
        uintptr_t ip = (uintptr_t)frames[index];
        if (csr_hot_read_frame_is_outer_call(&search, (uintptr_t)csr_enclosing_function((const void *)(ip - 1))))
            return true;
    }
    return false;
}
