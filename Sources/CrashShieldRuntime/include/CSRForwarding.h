// CSRForwarding.h: the Objective-C half of the unrecognized-selector and NSNull guards. Message forwarding,
// NSMethodSignature and NSInvocation are Objective-C; the policy (which receivers, when to report) stays in Swift.
#ifndef CSR_FORWARDING_H
#define CSR_FORWARDING_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The type encoding a typed selector carries (GCC's libobjc: clang emits typed selectors at call sites), or NULL
/// (an untyped selector, e.g. from NSSelectorFromString; always NULL on Apple's runtime).
const char *csr_sel_getTypes(CSRSelector selector);

/// An autoreleased NSMethodSignature for `selector`, for a receiver that has no method for it: built from the
/// selector's own type information when it has some; otherwise (untyped selector) the signature of a method
/// returning an object and taking an object per colon of the name, as `performSelector:` callers expect. NULL if
/// the runtime rejects the types.
CSRObject csr_signature_for_selector(CSRSelector selector);

/// The selector an NSInvocation carries.
CSRSelector csr_invocation_getSelector(CSRObject invocation);
/// Sets a zeroed return value of the size the invocation's signature says (nil, 0, NO, 0.0, a zeroed struct); a
/// void method is left alone.
void csr_invocation_setZeroReturn(CSRObject invocation);
/// The size in bytes of the invocation's return value (0 for void).
size_t csr_invocation_returnLength(CSRObject invocation);

/// Exactly what the runtime raises (reason of the NSInvalidArgumentException) when `selector` reaches `receiver`
/// (an instance or a class object) and nothing handles it. GCC's libobjc + GNUstep words it three ways depending on
/// the selector's type information ("X(instance) does not recognize s", "Can not determine type information for
/// -[X s]", "-[X s]: unrecognized selector sent to instance 0x..."), so the message is taken from the runtime
/// itself: the same selector is sent to a private probe object, and the probe's class name and address in the
/// reason are replaced by the receiver's. `untypedFailure`: the runtime had no type information at all for the
/// message (see `csr_forwarding_recall`) and fails before any signature exists. Cold path (raises and catches one
/// exception). Always fills `buffer`.
void csr_unrecognized_reason(CSRObject receiver, CSRSelector selector, bool untypedFailure, char *buffer, size_t size);

/// Per-thread memory of the message a guard answered `methodSignatureForSelector:` for: the selector it was really
/// sent with (GNUstep retypes it before `forwardInvocation:`), and whether the runtime had any type information for
/// it at that moment (an untyped selector with no typed twin registered). Answering registers a typed twin, which
/// is why this must be recorded before.
void csr_forwarding_remember(CSRObject receiver, CSRSelector selector);
/// The selector remembered for `receiver` on this thread if it has the same name as `selector` (else `selector`),
/// and in `untypedFailure` whether that message had no type information.
CSRSelector csr_forwarding_recall(CSRObject receiver, CSRSelector selector, bool *untypedFailure);

/// Per-thread mark that the runtime is resolving a message with no method: it sends `+resolveInstanceMethod:` /
/// `+resolveClassMethod:` to the class right before it forwards (both runtimes). Guards answer
/// `methodSignatureForSelector:` for a missing method only inside such a failing dispatch, so that code asking
/// `methodSignatureForSelector:` itself (to test whether an object handles a selector) gets the usual nil.
void csr_forwarding_markResolve(CSRObject cls, bool classSide, CSRSelector selector);
/// Whether the last resolution on this thread was for `receiver`'s class (instance side, or class side when
/// `receiver` is a class object) and a selector named like `selector`.
bool csr_forwarding_isResolving(CSRObject receiver, CSRSelector selector);
/// Forgets the mark (after the failing message was handled).
void csr_forwarding_clearResolve(void);

#ifdef __cplusplus
}
#endif
#endif
