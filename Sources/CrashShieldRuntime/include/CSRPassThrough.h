// CSRPassThrough.h: what a stopped override becomes. The runtimes cannot remove a method from a class, so an override
// the hook engine added to a class that only inherited the method stays there after `stop()`. Instead of the guard's
// replacement (which looks its original up and checks nothing any more), the class then gets a pass-through: one C
// function that asks the runtime for the superclass's current implementation of the selector and tail-calls it with
// the same arguments. The cost of the override is that one call and the runtime's cached lookup; a later hook on the
// superclass (another library's swizzle, or CrashShield's own) is seen, as inheritance would see it.
#ifndef CSR_PASS_THROUGH_H
#define CSR_PASS_THROUGH_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Pass-throughs available for the process (one per class and selector; kept across sessions).
#define CSR_PASS_THROUGH_CAPACITY 128

/// Whether a method of type encoding `types` can be passed through by a word-only function: every argument
/// (receiver and `_cmd` included) an integer, pointer, object, selector or class, or a struct of integers of at most
/// 16 bytes, in at most six words (registers on x86_64 and arm64), no floating-point argument (its register would not
/// survive the lookup), and no struct returned in memory (arm64 passes its address in x8, which is not an argument
/// register). Its return value comes straight back from the tail call, whatever its type.
bool csr_types_pass_in_words(const char *types);

/// The pass-through for the override added to `cls` for `selector` (the same one every time for a class and
/// selector), or NULL when the pool is full.
CSRIMP csr_pass_through(CSRClass cls, CSRSelector selector);

/// Whether `implementation` is one of the pass-throughs (of either kind: `csr_pass_through_any`'s too).
bool csr_is_pass_through(CSRIMP implementation);

/// A pass-through for a method of any other shape: CSRPassThroughAny.h.

#ifdef __cplusplus
}
#endif
#endif
