// CSRMemory.h (private): retain/release that compile under ARC (Apple, SwiftPM's default) and under manual
// reference counting (GCC's libobjc has no ARC).
//
// Objects typed as objects (`id`, `NSString *`) are managed by each compiler: CSR_RETAIN/CSR_RELEASE/CSR_AUTORELEASE
// are the MRC calls that ARC makes by itself. An object that leaves a function as a CSRObject (`void *`: returned, or
// stored for the caller) is managed by neither: under ARC, `(__bridge void *)` of a strong local or of a message's
// result transfers nothing, and the object is released when the local's scope (or the statement) ends, while under
// MRC the same code hands it on. So such an object leaves only through one of the CSR_PASS_ macros below, which hand
// out exactly the same ownership under both compilers (scripts/check-ownership.sh rejects any other `__bridge` way
// out), and the function's header comment says which:
//   +1 (the caller releases it, `csr_object_release_owned`):
//     CSR_PASS_RETAINED_NEW(x)      x made here: the result of alloc/init, new, copy or mutableCopy (its +1 moves on);
//     CSR_PASS_RETAINED(x)          any other object (retained once more);
//   +0, in the current autorelease pool (alive until the pool drains, whoever else releases it):
//     CSR_PASS_AUTORELEASED_NEW(x)  x made here (its +1 goes to the pool);
//     CSR_PASS_AUTORELEASED(x)      any other object, e.g. a convenience constructor's result (retained and
//                                   autoreleased: under ARC, objc4's optimized-return handshake may have handed it to
//                                   this function at +1 and out of the pool, prepareOptimizedReturn/
//                                   acceptOptimizedReturn in objc-object.h);
//   +0, borrowed:
//     CSR_PASS_BORROWED(x)          x is kept alive by something that outlives the caller's use (the notification
//                                   that holds its name, a singleton, the exception that holds its userInfo): say
//                                   which next to the call.
// A parameter (borrowed from the caller), a class or a string literal may leave through a plain CSR_BRIDGE cast.
#ifndef CSR_MEMORY_H
#define CSR_MEMORY_H

#include "include/CSRTypes.h"

#if __has_feature(objc_arc)
#define CSR_RETAIN(x) (x)
#define CSR_RELEASE(x) ((void)(x))
#define CSR_AUTORELEASE(x) (x)
#else
#define CSR_RETAIN(x) [(x) retain]
#define CSR_RELEASE(x) [(x) release]
#define CSR_AUTORELEASE(x) [(x) autorelease]
#endif

#if defined(__OBJC__)
#if __has_feature(objc_arc)
// ARC: the argument is a strong parameter (ARC keeps the caller's value alive for the call and releases a +1
// temporary, an alloc/init result, after it). __bridge_retained adds the +1 handed out; a store into an
// __autoreleasing variable is objc_retainAutorelease, which puts the object in the pool (the optimized-return
// handshake applies only to a value returned as an object, never to this).
static inline CSRObject csr_pass_retained_new(id object) CSR_RETURNS_RETAINED;
static inline CSRObject csr_pass_retained_new(id object) { return (__bridge_retained CSRObject)object; }
static inline CSRObject csr_pass_retained(id object) CSR_RETURNS_RETAINED;
static inline CSRObject csr_pass_retained(id object) { return (__bridge_retained CSRObject)object; }
static inline CSRObject csr_pass_autoreleased_new(id object) {
    __autoreleasing id pooled = object;
    return (__bridge CSRObject)pooled;
}
static inline CSRObject csr_pass_autoreleased(id object) {
    __autoreleasing id pooled = object;
    return (__bridge CSRObject)pooled;
}
#else
// MRC: the `_new` forms take over the +1 of the call that made the object; the others add their own.
static inline CSRObject csr_pass_retained_new(id object) CSR_RETURNS_RETAINED;
static inline CSRObject csr_pass_retained_new(id object) { return (CSRObject)object; }
static inline CSRObject csr_pass_retained(id object) CSR_RETURNS_RETAINED;
static inline CSRObject csr_pass_retained(id object) { return (CSRObject)[object retain]; }
static inline CSRObject csr_pass_autoreleased_new(id object) { return (CSRObject)[object autorelease]; }
static inline CSRObject csr_pass_autoreleased(id object) { return (CSRObject)[[object retain] autorelease]; }
#endif
static inline CSRObject csr_pass_borrowed(id object) { return (CSR_BRIDGE CSRObject)object; }

#define CSR_PASS_RETAINED_NEW(x) csr_pass_retained_new(x)
#define CSR_PASS_RETAINED(x) csr_pass_retained(x)
#define CSR_PASS_AUTORELEASED_NEW(x) csr_pass_autoreleased_new(x)
#define CSR_PASS_AUTORELEASED(x) csr_pass_autoreleased(x)
#define CSR_PASS_BORROWED(x) csr_pass_borrowed(x)
#endif

#endif
