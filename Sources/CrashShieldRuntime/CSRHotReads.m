// CSRHotReads.m: the hot-read trampolines (see CSRHotReads.h). Mechanics only; every decision is Swift's.
#import <Foundation/Foundation.h>
#include "CSRHotReads.h"
#include "CSRHotRaise.h"   // markers call only originals the raise hook can judge
#include <pthread.h>
#include <unwind.h>
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

/// What is further up the stack than a trampoline that caught: nothing of its family (-1), another trampoline of its
/// family (-2), or a marker of its family (its hot table).
static int csr_hot_read_outer_call(CSRHookTable *table);

/// Returns only when Swift chose to recover; otherwise the exception continues, unchanged, to the caller. A
/// trampoline of the same family further up the stack (GNUstep's attributed-string tracker asks its string, which
/// asks its own; `array[i]` sends `objectAtIndex:`) lets the outermost one decide: that is the call the app made, and
/// it is reported once. A marker there cannot catch: this trampoline decides, for the marker's call. The only marker
/// a trampoline can be reached from is NSArray's `array[i]`, whose original jumps into `objectAtIndex:` with the same
/// receiver and index (CSRHotRaise.m).
__attribute__((noinline, cold))
static void csr_hot_read_recover_or_rethrow(CSRHookTable *table, CSRIMP trampoline, CSRObject receiver,
                                            uintptr_t argument, id exception) {
    int outer = csr_hot_read_outer_call(table);
    if (outer == -2) @throw exception;
    CSRHookTable *deciding = outer >= 0 ? &csr_hot_tables[outer] : table;
    CSRIncident incident = {
        .source = CSRIncidentHotRead,
        .table = deciding,
        .implementation = trampoline,
        .receiver = receiver,
        .argument = argument,
        .exception = (CSR_BRIDGE CSRObject)exception,
    };
    if (csr_incident_report(&incident)) return;
    @throw exception;
}

/// Calls `original` under @try; a throw goes to Swift. Kept small: the frame is the whole cost of a valid call.
#define CSR_HOT_READ_CALL(TABLE, SELF_NAME, RETURN, ARGUMENT)                                                   \
    @try {                                                                                                      \
        return ((RETURN (*)(CSRObject, CSRSelector, ARGUMENT))original)(receiver, cmd, argument);               \
    } @catch (id exception) {                                                                                   \
        csr_hot_read_recover_or_rethrow(&csr_hot_tables[TABLE], (CSRIMP)SELF_NAME, receiver, (uintptr_t)argument, \
                                        exception);                                                             \
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

// MARK: Markers (GNUstep on x86_64; see CSRHotReads.h)

#if CSR_HOT_MARKERS_AVAILABLE

/// The tables with markers, in the order of their records.
enum { CSRHotMarkerSubscript, CSRHotMarkerReplace, CSRHotMarkerGetCharacters, CSRHotMarkerTables };

/// Per thread, one record per table with markers. Initial-exec: a marker reaches it with one load from the GOT and
/// `%fs`-relative stores, without calling `__tls_get_addr`.
__attribute__((tls_model("initial-exec"), visibility("hidden")))
__thread CSRHotMarkerRecord csr_hot_marker_records[CSRHotMarkerTables];

static int csr_hot_marker_index(int tableIndex) {
    switch (tableIndex) {
        case CSRHotArrayObjectAtIndexedSubscript: return CSRHotMarkerSubscript;
        case CSRHotMutableStringReplaceCharacters: return CSRHotMarkerReplace;
        case CSRHotStringGetCharactersRange: return CSRHotMarkerGetCharacters;
        default: return -1;
    }
}

const CSRHotMarkerRecord *csr_hot_marker_record(int tableIndex) {
    int index = csr_hot_marker_index(tableIndex);
    return index < 0 ? NULL : &csr_hot_marker_records[index];
}

#define CSR_HOT_MARKER_FIELD(RECORD, FIELD) (sizeof(CSRHotMarkerRecord) * (RECORD) + offsetof(CSRHotMarkerRecord, FIELD))

// The markers note the call in the thread's record of RECORD and jump to the slot's original, which returns to the
// caller. rax and r11 are scratch at a call (rax carries only a variadic call's vector count: these methods take
// none). The stack is untouched: the CFI at entry holds throughout, and an unwinder never sees a frame of a marker
// (only a signal between its first and last instruction could). Each instruction costs about 1.5% of a valid call,
// so each marker notes only what its raise needs (CSRHotRaise.m).

/// `replaceCharactersInRange:withString:` and `getCharacters:range:`: the receiver's class and the stack pointer. Its class is read without a
/// nil check: the original this marker calls (`csr_hot_marker_eligible`) reads the receiver's instance variables
/// first, so a direct call of the implementation with nil crashes there as it would in the original (a message to
/// nil never reaches an implementation).
#define CSR_HOT_STACK_MARKER(NAME, TABLE, RECORD, SLOT)                                                    \
    __attribute__((naked, used)) static void NAME##_##SLOT(void) {                                             \
        __asm__ volatile("mov csr_hot_marker_records@gottpoff(%%rip), %%rax\n\t"                                \
                         "mov (%%rdi), %%r11\n\t"                                                                \
                         "mov %%r11, %%fs:%c1(%%rax)\n\t"                                                         \
                         "mov %%rsp, %%fs:%c2(%%rax)\n\t"                                                         \
                         "jmp *csr_hot_tables_local+%c0(%%rip)"                                                 \
                         :: "i"(CSR_SLOT_ORIGINAL_OFFSET(TABLE, SLOT)), "i"(CSR_HOT_MARKER_FIELD(RECORD, cls)),  \
                            "i"(CSR_HOT_MARKER_FIELD(RECORD, stack)));                                          \
    }

/// `array[i]`: the receiver's class and the return address (the frame it reaches is the receiver's `objectAtIndex:`,
/// which may be an app's). NSArray's original answers a nil receiver with nil, so nil goes straight to it.
#define CSR_HOT_SUBSCRIPT_MARKER(NAME, TABLE, RECORD, SLOT)                                                    \
    __attribute__((naked, used)) static void NAME##_##SLOT(void) {                                             \
        __asm__ volatile("test %%rdi, %%rdi\n\t"                                                                 \
                         "je 1f\n\t"                                                                              \
                         "mov csr_hot_marker_records@gottpoff(%%rip), %%rax\n\t"                                \
                         "mov (%%rdi), %%r11\n\t"                                                                \
                         "mov %%r11, %%fs:%c1(%%rax)\n\t"                                                         \
                         "mov (%%rsp), %%r11\n\t"                                                                \
                         "mov %%r11, %%fs:%c2(%%rax)\n"                                                            \
                         "1:\tjmp *csr_hot_tables_local+%c0(%%rip)"                                             \
                         :: "i"(CSR_SLOT_ORIGINAL_OFFSET(TABLE, SLOT)), "i"(CSR_HOT_MARKER_FIELD(RECORD, cls)),  \
                            "i"(CSR_HOT_MARKER_FIELD(RECORD, returnAddress)));                                  \
    }
#define CSR_HOT_MARKER_TABLE(NAME, MARKER, TABLE, RECORD)                                                        \
    CSR_SLOTS(MARKER, NAME, TABLE, RECORD)                                                                      \
    static const CSRIMP NAME##_pool[CSR_HOT_READ_POOL_SIZE] = { CSR_SLOTS(CSR_POOL_ENTRY, NAME) };

CSR_HOT_MARKER_TABLE(csr_hot_marker_replace_characters, CSR_HOT_STACK_MARKER, CSRHotMutableStringReplaceCharacters,
                    CSRHotMarkerReplace)
CSR_HOT_MARKER_TABLE(csr_hot_marker_get_characters, CSR_HOT_STACK_MARKER, CSRHotStringGetCharactersRange,
                    CSRHotMarkerGetCharacters)
CSR_HOT_MARKER_TABLE(csr_hot_marker_object_at_indexed_subscript, CSR_HOT_SUBSCRIPT_MARKER,
                    CSRHotArrayObjectAtIndexedSubscript, CSRHotMarkerSubscript)


static const CSRIMP *csr_hot_marker_pool(int tableIndex) {
    switch (tableIndex) {
        case CSRHotArrayObjectAtIndexedSubscript: return csr_hot_marker_object_at_indexed_subscript_pool;
        case CSRHotMutableStringReplaceCharacters: return csr_hot_marker_replace_characters_pool;
        case CSRHotStringGetCharactersRange: return csr_hot_marker_get_characters_pool;
        default: return NULL;
    }
}
#endif

#if !CSR_HOT_MARKERS_AVAILABLE
const CSRHotMarkerRecord *csr_hot_marker_record(int tableIndex) {
    (void)tableIndex;
    return NULL;
}
#endif

CSRIMP csr_hot_marker(int tableIndex, long slot) {
#if CSR_HOT_MARKERS_AVAILABLE
    const CSRIMP *pool = csr_hot_marker_pool(tableIndex);
    if (pool == NULL || slot < 0 || slot >= CSR_HOT_READ_POOL_SIZE) return NULL;
    uintptr_t original = __atomic_load_n(&csr_hot_tables[tableIndex].originals[slot], __ATOMIC_ACQUIRE);
    return original != 0 && csr_hot_marker_eligible(tableIndex, (CSRIMP)original) ? pool[slot] : NULL;
#else
    (void)tableIndex; (void)slot;
    return NULL;
#endif
}

bool csr_hot_markers_supported(int tableIndex) {
#if CSR_HOT_MARKERS_AVAILABLE
    return csr_hot_marker_pool(tableIndex) != NULL && csr_hot_raise_hook() != NULL;
#else
    (void)tableIndex;
    return false;
#endif
}

int csr_hot_marker_table(uintptr_t function, long *slot) {
#if CSR_HOT_MARKERS_AVAILABLE
    static const int tables[] = { CSRHotArrayObjectAtIndexedSubscript, CSRHotMutableStringReplaceCharacters,
                                  CSRHotStringGetCharactersRange };
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        const CSRIMP *pool = csr_hot_marker_pool(tables[t]);
        for (long index = 0; index < CSR_HOT_READ_POOL_SIZE; index++) {
            if (csr_strip_code_pointer((const void *)pool[index]) != csr_strip_code_pointer((const void *)function)) continue;
            *slot = index;
            return tables[t];
        }
    }
#else
    (void)function;
#endif
    *slot = -1;
    return -1;
}

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
int csr_hot_read_family(int tableIndex) {
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

int csr_hot_read_trampoline_table(uintptr_t function) {
    bool inherited;
    return csr_hot_read_table_of(function, &inherited);
}

typedef struct CSRFrameSearch {
    int family;
    /// Calls of the selector through a trampoline seen so far, innermost first.
    int calls;
    /// The outer call, when found: -2 a trampoline, or a marker's hot table.
    int outer;
    /// Frames left to look at: nested calls sit a few frames apart, and every frame costs the unwinder a lookup.
    int framesLeft;
    /// The previous frame was a table's out-of-line path: its slot trampoline's frame (if the call was not a tail
    /// call) belongs to the same call.
    int inheritedTable;
    /// The previous frame was a trampoline of the family.
    bool afterTrampoline;
} CSRFrameSearch;

/// Whether the previous frame, a trampoline, was entered from a marker of `tableIndex` by a jump: the calling thread's
/// record of the marker has that frame's return address (`ip`, the frame's instruction pointer in the walk).
/// Only for naming the call in a report: a stale record that happens to match names `array[i]` for an
/// `objectAtIndex:` made from the same instruction.
static bool csr_hot_read_entered_from_marker(uintptr_t ip, int tableIndex) {
    const CSRHotMarkerRecord *record = csr_hot_marker_record(tableIndex);
    return record != NULL && record->returnAddress == ip;
}

/// One frame of the walk: `ip` its instruction pointer (a return address), `start` the start of its function.
/// false ends the walk.
static bool csr_hot_read_visit_frame(CSRFrameSearch *search, uintptr_t ip, uintptr_t start) {
    if (search->framesLeft-- == 0) return false;
    // A marker jumped into the trampoline's call below: the marker's is the call the app made (`array[i]`, the only
    // marker whose original sends another hot read).
    if (search->afterTrampoline && search->family == csr_hot_read_family(CSRHotArrayObjectAtIndexedSubscript)
        && csr_hot_read_entered_from_marker(ip, CSRHotArrayObjectAtIndexedSubscript)) {
        search->outer = CSRHotArrayObjectAtIndexedSubscript;
        return false;
    }
    bool inherited = false;
    int tableIndex = csr_hot_read_table_of(start, &inherited);
    bool sameCall = tableIndex >= 0 && !inherited && tableIndex == search->inheritedTable;
    search->inheritedTable = inherited ? tableIndex : -1;
    search->afterTrampoline = tableIndex >= 0 && csr_hot_read_family(tableIndex) == search->family;
    if (!search->afterTrampoline || sameCall) return true;
    // The first call is the trampoline asking; a second is an outer call of the same family.
    if (++search->calls < 2) return true;
    search->outer = -2;
    return false;
}

#if defined(__APPLE__)
static _Unwind_Reason_Code csr_hot_read_visit_unwind_frame(struct _Unwind_Context *context, void *argument) {
    bool goOn = csr_hot_read_visit_frame((CSRFrameSearch *)argument,
                                         csr_strip_code_pointer((const void *)_Unwind_GetIP(context)),
                                         csr_strip_code_pointer((const void *)_Unwind_GetRegionStart(context)));
    return goOn ? _URC_NO_REASON : _URC_END_OF_STACK;
}
#endif

static int csr_hot_read_outer_call(CSRHookTable *table) {
    CSRFrameSearch search = { csr_hot_read_family((int)(table - csr_hot_tables)), 0, -1, 8, -1, false };
#if defined(__APPLE__)
    _Unwind_Backtrace(csr_hot_read_visit_unwind_frame, &search);
#else
    // The same walk every stack capture makes here (csr_backtrace: every read checked); frame 0 is csr_backtrace's.
    void *frames[10];
    int count = csr_backtrace(frames, 10);
    for (int index = 1; index < count; index++) {
        uintptr_t ip = (uintptr_t)frames[index];
        if (!csr_hot_read_visit_frame(&search, ip, (uintptr_t)csr_enclosing_function((const void *)(ip - 1)))) break;
    }
#endif
    return search.outer;
}
