// CSRMainThread.h: the main-thread guard's Objective-C half (CSRMainThread.m): call shapes, the main-thread
// trampolines and running a call on the main thread later.
#ifndef CSR_MAIN_THREAD_H
#define CSR_MAIN_THREAD_H

#include "CSRTypes.h"
#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

/// How a method's arguments are kept until it runs on the main thread. Methods return void.
typedef enum CSRCallShape {
    CSRCallShapeNone = 0,    ///< no argument
    CSRCallShapeObject = 1,  ///< one object argument (retained until the call)
    CSRCallShapeWord = 2,    ///< one integer or BOOL argument (copied)
    CSRCallShapeDouble = 3,  ///< one double argument (copied)
    CSRCallShapeRect = 4,    ///< one CGRect / NSRect (four doubles, copied)
} CSRCallShape;

/// The shape of a method with type encoding `types`, or -1 when it cannot be run later (a return value, several
/// arguments, an argument of another kind).
int csr_call_shape(const char *types);

/// The main-thread guard's replacements, one per shape (Swift): the trampolines below continue in them.
void csr_main_set_fallbacks(CSRIMP none, CSRIMP object, CSRIMP word, CSRIMP number, CSRIMP rect);
/// A trampoline for the class whose original implementation sits in `slot` of `table` (a method of `shape`): on the
/// main thread it jumps straight to that original; otherwise, or when the hook only added an override (original
/// 0), it jumps to the shape's fallback, so the fallback's caller is the app's frame. The same trampoline for the
/// same table, slot and shape; NULL when every trampoline of the shape is taken (install the fallback then). The rect
/// shape's trampolines call instead of jumping (CSRMainThread.m says why) and so keep a frame.
CSRIMP csr_main_trampoline(CSRCallShape shape, const CSRHookTable *table, long slot);
/// In a fallback, first thing: the table and slot of the trampoline that handed this thread's call to it (false when
/// none did: the replacement itself was installed, the trampolines having run out). Clears it. Also notes, once per
/// thread, whether this is the main thread (the trampolines read that inline; until then they hand every call here).
bool csr_main_take_entered(const CSRHookTable **table, long *slot);
/// Whether the function starting at `start` is a main-thread trampoline that keeps a frame: a hand-over, not a call
/// site.
bool csr_main_is_trampoline(uintptr_t start);

/// Runs `implementation` on `receiver` with `argument` (a pointer to the argument's bytes; NULL for none) on the
/// main thread, asynchronously. The receiver and an object argument are retained until then; other arguments are
/// copied now. Apple: the main dispatch queue; GNUstep: the main thread's run loop (which must run).
void csr_call_on_main(CSRObject receiver, CSRSelector selector, CSRIMP implementation, CSRCallShape shape,
                      const void *argument);

#ifdef __cplusplus
}
#endif
#endif
