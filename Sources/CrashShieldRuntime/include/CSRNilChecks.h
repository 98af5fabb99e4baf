// CSRNilChecks.h: check-first trampolines for guarded methods whose only precondition is "these object arguments are
// not nil" (`-[NSMutableArray addObject:]`, `-[NSMutableDictionary setObject:forKey:]`).
//
// The Swift replacement of such a method costs about 40 instructions on a valid call (its lookup of the original,
// the check, its frame); these cost about 7: the slot's trampoline loads the class's original, tests the arguments
// and jumps to it, with no frame of its own. Anything else (a nil argument, a class that only inherited the method,
// a slot past the pool) jumps to the Swift replacement, which checks again and decides as it always does: the
// pre-filter only lets through calls the replacement would have passed on unchanged.
#ifndef CSR_NIL_CHECKS_H
#define CSR_NIL_CHECKS_H

#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The Swift replacement the trampolines of hot table `which` (CSRHotArrayAddObject or
/// CSRHotDictionarySetObjectForKey) hand every other call to. Set once, before any trampoline is installed.
void csr_nil_check_set_replacement(int which, CSRIMP replacement);

/// The trampoline for slot `slot` of hot table `which`, or NULL (no trampolines for that table, or a slot past the
/// pool: install the Swift replacement itself).
CSRIMP csr_nil_check_trampoline(int which, long slot);

#ifdef __cplusplus
}
#endif
#endif
