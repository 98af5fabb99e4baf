// CSRDeallocating.h: whether an object is being deallocated, for the main-thread guard (MainThreadGuard.swift), which
// must never run a call later on an object that will be gone by then.
//
// Apple (Apple/CSRDeallocatingApple.m): objc4 has no public "is deallocating" call, but its weak-reference machinery
// asks one method the public SDK declares, `-[NSObject allowsWeakReference]` (objc/NSObject.h; NSObject.mm:
// `return ! [self _isDeallocating]`, which reads the isa's deallocating bit or the side table's,
// `objc_object::rootIsDeallocating` in objc-object.h; objc-weak.mm's `weak_register_no_lock` sends it to classes with
// their own retain/release, which answer it themselves). The answer is NO exactly while the object is deallocating.
// GNUstep (GNUstep/CSRDeallocatingGNUstep.m): GNUstep Base keeps no deallocating flag (NSObject.m resets the count to 0
// and sends -dealloc), so the object counts as deallocating while one of its class chain's `-dealloc` implementations
// is on the current thread's stack (an implementation the dealloc watcher hooked included: its original is read from
// `csr_dealloc_table`).
#ifndef CSR_DEALLOCATING_H
#define CSR_DEALLOCATING_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Whether `object` (nil: false) is being deallocated on this thread (GNUstep) or on any thread (Apple): it must
/// not be retained to be used later. Cold paths only: one message on Apple, a stack walk on GNUstep.
bool csr_object_is_deallocating(CSRObject object);

#ifdef __cplusplus
}
#endif
#endif
