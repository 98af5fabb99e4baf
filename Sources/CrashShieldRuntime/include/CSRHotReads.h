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
/// CSRHotStringCharacterAtIndexBase, CSRHotArrayObjectAtIndex or CSRHotArrayObjectAtIndexedSubscript): the slot's own while the pool lasts, the generic
/// one otherwise (also for `slot` < 0). NULL for a table without trampolines.
CSRIMP csr_hot_read_trampoline(int tableIndex, long slot);


// MARK: Recovery at the raise (CSRHotRaise.m)
//
// The other way to protect a hot read: leave the method unhooked (a valid call pays nothing) and recover when its
// failure is raised. The raise hook (GNUstep: `-[NSException raise]`, see CSRHotRaise.m) walks the stack with
// libunwind; when the frames between it and a protected implementation are only Foundation's exception code, it hands
// the failure to Swift (a `CSRIncidentRaise`, or a `CSRIncidentMarker` for a marker's call: CSRIncident.h), and on
// "recover" resumes at that implementation's caller with a zero return value. Only for
// implementations whose exception names its receiver and argument, or that raise for that failure only
// (`csr_hot_raise_eligible`).

/// The original of `raise` for `exception` (the raise hook's own original, from its hook table).
typedef CSRIMP (*CSRHotRaiseOriginal)(CSRObject exception);

/// Registers the raise hook's lookup of its original. The failures it finds are incidents (CSRIncident.h):
/// `CSRIncidentRaise`: `implementation`, protected for hot table `hotTable`, raised `exception`, which names `receiver`
/// and `argument`; `returnAddress`: where its frame was (in it), `callerAddress`: its caller's return address.
/// `CSRIncidentMarker`: the call a marker of hot table `hotTable` recorded (markers, below), on a receiver of class
/// `cls`, with `argument`, raised `exception` in `implementation`; or an unhooked implementation that raises for its
/// failure only and whose exception names no receiver (GSString.m's `characterAtIndex:`) raised, and `cls` owns it.
/// `receiver`: the receiver when the exception names it (then it is alive, and the precondition can be asked), NULL
/// otherwise (the running Foundation's implementation raises only for this failure). `returnAddress`: in
/// `implementation`'s frame, or the frame the marker jumped into; `callerAddress`: the app's call. Recovering: the
/// call returns 0.
void csr_hot_raise_set_original(CSRHotRaiseOriginal original);

/// Whether `implementation` (the original of hot table `tableIndex`, unhooked) can be recovered at the raise, by what the
/// running Foundation is known to do: its unwind entry has no cleanup or handler (skipping its frame runs nothing),
/// it raises through exception code that has none either, and the exception names the receiver and the index
/// (GSArray's `objectAtIndex:`) or the implementation raises for a bad index only (GSString.m's own
/// `characterAtIndex:`, whose report names the class that owns it).
bool csr_hot_raise_eligible(int tableIndex, CSRIMP implementation);

/// Protects an eligible `implementation` (idempotent; for the life of the process, consulted only while the raise
/// hook is installed). false when the registry is full.
bool csr_hot_raise_protect(int tableIndex, CSRIMP implementation);

/// The raise hook, to install on the class `csr_hot_raise_hook_class()` for the selector `raise` (NULL for both where
/// the platform has no raise hook).
CSRIMP csr_hot_raise_hook(void);
CSRClass csr_hot_raise_hook_class(void);

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
// originals whose failure is raised through call sites without cleanups (`csr_hot_marker_eligible`; at the raise each
// skipped frame's call is checked against its function's LSDA): skipping those is what the unwinder does to them
// anyway, so the result is the trampoline's. GNUstep on x86_64 only.

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

/// Whether a marker of table `tableIndex` may call `original`: the running Foundation raises its failures through call
/// sites without cleanups only (GNUstep 1.28's implementations read for this, CSRHotRaise.m), and the raise hook can
/// walk and judge its frame (no LSDA, or one of GCC's personality).
bool csr_hot_marker_eligible(int tableIndex, CSRIMP original);

/// Whether the raise hook may skip the frame whose call returns to `returnAddress` (a frame between a raise and the
/// call recovered): nothing runs there when an exception passes (no cleanup or handler covers that call). For tests
/// and diagnostics; false where the platform has no raise hook.
bool csr_hot_raise_call_is_skippable(uintptr_t returnAddress);

/// Tables whose selectors one implementation may answer by sending the other (`array[i]` and `objectAtIndex:`).
int csr_hot_read_family(int tableIndex);

/// The hot table whose trampoline starts at `function`, or -1.
int csr_hot_read_trampoline_table(uintptr_t function);

#ifdef __cplusplus
}
#endif
#endif
