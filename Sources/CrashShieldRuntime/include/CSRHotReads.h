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

#ifdef __cplusplus
}
#endif
#endif
