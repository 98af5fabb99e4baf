// CSRHotRaise.h: recovery of hot reads at the raise (GNUstep/CSRHotRaise.m; GNUstep only: on Apple every function
// here answers NULL, false or nothing, see GNUstep/README.md). The markers it recovers are CSRHotReads.h's.
//
// The other way to protect a hot read: leave the method unhooked (a valid call pays nothing) and recover when its
// failure is raised. The raise hook (GNUstep: `-[NSException raise]`, see CSRHotRaise.m) walks the stack with
// libunwind; when the frames between it and a protected implementation are only Foundation's exception code, it hands
// the failure to Swift (a `CSRIncidentRaise`, or a `CSRIncidentMarker` for a marker's call: CSRIncident.h), and on
// "recover" resumes at that implementation's caller with a zero return value. Only for
// implementations whose exception names its receiver and argument, or that raise for that failure only
// (`csr_hot_raise_eligible`).
#ifndef CSR_HOT_RAISE_H
#define CSR_HOT_RAISE_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The original of `raise` for `exception` (the raise hook's own original, from its hook table).
typedef CSRIMP (*CSRHotRaiseOriginal)(CSRObject exception);

/// Registers the raise hook's lookup of its original. The failures it finds are incidents (CSRIncident.h):
/// `CSRIncidentRaise`: `implementation`, protected for hot table `hotTable`, raised `exception`, which names `receiver`
/// and `argument`; `returnAddress`: where its frame was (in it), `callerAddress`: its caller's return address.
/// `CSRIncidentMarker`: the call a marker of hot table `hotTable` recorded (markers: CSRHotReads.h), on a receiver of
/// class `cls`, with `argument`, raised `exception` in `implementation`; or an unhooked implementation that raises for
/// its failure only and whose exception names no receiver (GSString.m's `characterAtIndex:`) raised, and `cls` owns
/// it.
/// `receiver`: the receiver when the exception names it (then it is alive, and the precondition can be asked), NULL
/// otherwise (the running Foundation's implementation raises only for this failure). `returnAddress`: in
/// `implementation`'s frame, or the frame the marker jumped into; `callerAddress`: the app's call. Recovering: the
/// call returns 0.
void csr_hot_raise_set_original(CSRHotRaiseOriginal original);

/// Whether `implementation` (the original of hot table `tableIndex`, unhooked) can be recovered at the raise, by what
/// the running Foundation is known to do: its unwind entry has no cleanup or handler (skipping its frame runs nothing),
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

/// Whether a marker of table `tableIndex` may call `original`: the running Foundation raises its failures through call
/// sites without cleanups only (GNUstep 1.28's implementations read for this, CSRHotRaise.m), and the raise hook can
/// walk and judge its frame (no LSDA, or one of GCC's personality). Markers: CSRHotReads.h.
bool csr_hot_marker_eligible(int tableIndex, CSRIMP original);

/// Whether the raise hook may skip the frame whose call returns to `returnAddress` (a frame between a raise and the
/// call recovered): nothing runs there when an exception passes (no cleanup or handler covers that call). For tests
/// and diagnostics; false where the platform has no raise hook.
bool csr_hot_raise_call_is_skippable(uintptr_t returnAddress);

#ifdef __cplusplus
}
#endif
#endif
