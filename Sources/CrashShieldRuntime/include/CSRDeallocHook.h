// CSRDeallocHook.h: the `-dealloc` hooks of the dealloc watcher (DeallocWatcher.swift), one C trampoline per class.
//
// The watcher hooks `-dealloc` on the classes whose objects it may watch (KVO, notification and timer guards, the
// notification-block API) and never takes those hooks out: an object may still be watched after `stop()`. Each hooked
// class gets the trampoline of its own slot in `csr_dealloc_table` (the hook point's table of originals), so a
// trampoline knows its class's original without asking where the object's `-dealloc` chain is: a `[super dealloc]`
// that reaches the trampoline of a hooked superclass continues with that superclass's original.
//
// While no object is watched (`csr_dealloc_watched_objects` is 0: after `stop()`, or before anything was watched),
// the trampoline is one call: it reads its slot's original (for an override added to a class that only inherited
// `-dealloc`, the superclass's current implementation, asked of the runtime) and tail-calls it. Otherwise it notes
// its slot for this thread and tail-calls the watcher's replacement (Swift), which reads the slot with
// `csr_dealloc_entered_slot` before anything else can run on the thread.
#ifndef CSR_DEALLOC_HOOK_H
#define CSR_DEALLOC_HOOK_H

#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The hook point's table of originals (slots 0..CSR_HOOK_TABLE_CAPACITY-1, each with a trampoline).
extern CSRHookTable csr_dealloc_table;
CSRHookTable *csr_dealloc_hook_table(void);

/// Objects the watcher watches; written by the watcher under its lock, read by every trampoline.
void csr_dealloc_watched_add(long delta);
long csr_dealloc_watched_objects(void);

/// The watcher's replacement, `void (*)(id self, SEL _cmd)`: set once, before the first hook is installed.
void csr_dealloc_set_replacement(CSRIMP replacement);

/// The trampoline to install on the class whose original sits in `slot` of `csr_dealloc_table`.
CSRIMP csr_dealloc_trampoline(long slot);

/// In the replacement, first thing: the slot of the trampoline that called it on this thread (-1 before any).
long csr_dealloc_entered_slot(void);

#ifdef __cplusplus
}
#endif
#endif
