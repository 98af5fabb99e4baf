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

/// An NSMethodSignature for `selector`, for a receiver that has no method for it: built from the selector's own type
/// information when it has some; otherwise (untyped selector) from the one typed selector of that name, else the
/// types of a method of that name the receiver's classes, image or Foundation define, else the signature of a method
/// returning an object and taking an object per colon of the name, as `performSelector:` callers expect. NULL if the
/// runtime rejects the types. +0, autoreleased (what a `methodSignatureForSelector:` implementation hands the
/// runtime): alive until the current autorelease pool drains.
CSRObject csr_signature_for_selector(CSRObject receiver, CSRSelector selector);

/// Test support: how many classes (each side counted) the calling thread's last lookup of an untyped selector's
/// types read the method lists of (0 when the answer was remembered).
size_t csr_test_forwarding_classes_examined(void);

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

/// Per-thread mark that the runtime is forwarding a message that found no method, set at the runtime's forwarding
/// entry for every such message: on Apple, NSObject's `forwardingTargetForSelector:` (CoreFoundation's forwarding
/// handler sends it first, before `methodSignatureForSelector:`); on GCC's libobjc, `__objc_msg_forward2` (see
/// `csr_forwarding_watchEntry`). Guards answer `methodSignatureForSelector:` for a missing method only inside such a
/// failing dispatch, so that code asking `methodSignatureForSelector:` itself (to test whether an object handles a
/// selector) gets the usual nil. Not the resolver: objc4 sends `+resolveInstanceMethod:` once per class and
/// selector, then caches the forwarding entry (`_objc_msgForward_impcache`), and `respondsToSelector:` sends it too.
void csr_forwarding_markDispatch(CSRObject receiver, CSRSelector selector);
/// Whether the last failing dispatch on this thread was for `receiver`'s class (instance side, or class side when
/// `receiver` is a class object) and a selector named like `selector`.
bool csr_forwarding_isDispatching(CSRObject receiver, CSRSelector selector);
/// Forgets the mark (after the failing message was handled).
void csr_forwarding_clearDispatch(void);

/// Owners of the forwarding-entry watch (one bit each).
enum { CSRForwardingOwnerUnrecognizedSelector = 1, CSRForwardingOwnerNSNull = 2 };
/// GCC's libobjc: wraps `__objc_msg_forward2` (marking the dispatch, then calling GNUstep's handler) while at least
/// one owner watches; restores it when the last one stops. Apple: nothing (the guards hook forwardingTargetForSelector:).
void csr_forwarding_watchEntry(unsigned owner, bool watch);

/// Test switch (GCC's libobjc only; nothing on Apple): dispatches messages nothing answers as objc4 and
/// CoreFoundation do. objc4's lookUpImpOrForward sends +resolveInstanceMethod:/+resolveClassMethod: once per class
/// and selector, then caches the forwarding entry (_objc_msgForward_impcache), so a repeated message never reaches
/// the resolver; CoreFoundation's forwarding handler sends forwardingTargetForSelector:, then
/// methodSignatureForSelector: and forwardInvocation:. With the switch on, the GNU forwarding entry no longer marks
/// the dispatch and sends forwardingTargetForSelector: instead, as CoreFoundation does (a design that needed the
/// resolver for every message fails: see the messaging tests).
void csr_test_emulateAppleForwarding(bool emulate);

#ifdef __cplusplus
}
#endif
#endif
