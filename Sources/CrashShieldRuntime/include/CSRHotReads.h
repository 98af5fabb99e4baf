// CSRHotReads.h: C trampolines for the hottest read-only methods (`characterAtIndex:`, `objectAtIndex:`,
// `objectAtIndexedSubscript:`).
//
// A guard that asks the receiver its length before every call pays a second message send, which more than doubles
// the cost of a 3 ns read. These replacements instead call the original inside `@try` (free unless something is
// thrown) and hand a raised exception to Swift, which confirms the precondition really failed and decides: recover
// (the caller gets 0 / nil) or let the exception go on unchanged. The report carries the exception Foundation
// raised. Only for reads that change nothing before they raise; mutations keep checking first.
//
// Each hot table (CSRHookTable.h) has a pool of trampolines, one per slot: the trampoline installed on the class of
// slot k calls `originals[k]` with no lookup at all (every receiver that reaches it, subclasses included, has that
// class's original as its own). Past the pool, a generic trampoline looks the receiver's class up. Swift registers
// the generic trampoline's resolver with `csr_hot_reads_set_resolver` before installing any trampoline; a caught
// exception is a `CSRIncidentHotRead` (CSRIncident.h).
#ifndef CSR_HOT_READS_H
#define CSR_HOT_READS_H

#include "CSRHookTable.h"
#include "CSRIncident.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Trampolines with a fixed slot, per hot table.
#define CSR_HOT_READ_POOL_SIZE 32

/// Generic trampoline, cold path: the original for a receiver whose class has no exact slot (a subclass inheriting
/// the hook); 0 if the class never reached the hook.
typedef uintptr_t (*CSRHotReadResolver)(CSRHookTable *table, CSRObject receiver);

void csr_hot_reads_set_resolver(CSRHotReadResolver resolve);

/// The trampoline to install for slot `slot` of hot table `tableIndex` (CSRHotStringCharacterAtIndex,
/// CSRHotStringCharacterAtIndexBase, CSRHotArrayObjectAtIndex or CSRHotArrayObjectAtIndexedSubscript): the slot's own
/// while the pool lasts, the generic one otherwise (also for `slot` < 0). NULL for a table without trampolines.
CSRIMP csr_hot_read_trampoline(int tableIndex, long slot);

// MARK: Markers (CSRHotReads.m, CSRHotRaise.m)
//
// Recovery at the raise for a method that stays hooked: where the raise cannot tell the app's call (`array[i]`, which
// GNUstep answers by jumping into `objectAtIndex:`) or must know the call went through the hook (a mutation:
// `replaceCharactersInRange:withString:`, or the buffer fill `getCharacters:range:`), the method gets a marker instead of a trampoline: a few instructions that
// note the call in a per-thread record (the receiver's class, and the stack pointer or the return address at entry)
// and jump to the slot's original. A marker keeps no frame: the original returns straight to the app. At the raise
// the walk finds the original's frame; the record is this call's when its stack pointer or return address is that
// frame's, and on "recover" the app's call returns 0. The record is never dereferenced (a class pointer and
// addresses only): a record left by an earlier call can at worst name the wrong class or call in a report. Only for
// originals whose failure is raised through call sites without cleanups (`csr_hot_marker_eligible`, CSRHotRaise.h;
// at the raise each skipped frame's call is checked against its function's LSDA): skipping those is what the
// unwinder does to them anyway, so the result is the trampoline's. GNUstep on x86_64 only.

#if !defined(__APPLE__) && defined(__x86_64__)
#define CSR_HOT_MARKERS_AVAILABLE 1
#else
#define CSR_HOT_MARKERS_AVAILABLE 0
#endif

/// What a marker notes of its call, per thread and per hot table with markers (each marker only what its raise
/// needs: CSRHotReads.m).
typedef struct CSRHotMarkerRecord {
    /// The receiver's class.
    uintptr_t cls;
    /// `replaceCharactersInRange:withString:` and `getCharacters:range:`: the stack pointer at entry (it points at the return address, so the
    /// original's frame has its CFA 8 bytes above).
    uintptr_t stack;
    /// `array[i]`: the return address.
    uintptr_t returnAddress;
} CSRHotMarkerRecord;

/// The calling thread's record of the last call through a marker of hot table `tableIndex`; NULL for a table without
/// markers.
const CSRHotMarkerRecord *csr_hot_marker_record(int tableIndex);

/// The marker for slot `slot` of hot table `tableIndex`, or NULL: no markers on this platform or for this table, a slot
/// past the pool, or a slot whose original (registered first) is 0 or not `csr_hot_marker_eligible`.
CSRIMP csr_hot_marker(int tableIndex, long slot);

/// Whether hot table `tableIndex` has markers on this platform.
bool csr_hot_markers_supported(int tableIndex);

/// The hot table of the marker that starts at `function` (its slot in `*slot`), or -1.
int csr_hot_marker_table(uintptr_t function, long *slot);

/// Tables whose selectors one implementation may answer by sending the other (`array[i]` and `objectAtIndex:`).
int csr_hot_read_family(int tableIndex);

/// The hot table whose trampoline starts at `function`, or -1.
int csr_hot_read_trampoline_table(uintptr_t function);

#ifdef __cplusplus
}
#endif
#endif
