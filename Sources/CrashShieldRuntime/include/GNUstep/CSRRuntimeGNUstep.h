// CSRRuntimeGNUstep.h: CSRRuntime.h's hot-path inlines as GCC's libobjc answers them (the Linux proving ground). A
// phone never compiles this header: objc4 has object_getClass for tagged pointers and objc_msgSend
// (Apple/CSRRuntimeApple.h).
#ifndef CSR_RUNTIME_GNUSTEP_H
#define CSR_RUNTIME_GNUSTEP_H
#if !defined(__APPLE__)

#include "../CSRTypes.h"
#if defined(__OBJC__)
#include <objc/runtime.h>
#include <objc/message.h>
#else
// GCC's libobjc, seen from C (the Swift importer): declare the one lookup we inline, with opaque types.
#ifdef __cplusplus
extern "C"
#endif
CSRIMP objc_msg_lookup(CSRObject receiver, CSRSelector selector);
#endif

static inline CSRClass csr_object_getClass(CSRObject object) {
    // GCC's libobjc: the first word of every object is its class pointer (`class_pointer`).
    return object ? *(CSRClass *)object : (CSRClass)0;
}

static inline CSRIMP csr_msg_lookup(CSRObject receiver, CSRSelector selector) {
#if defined(__OBJC__)
    return (CSRIMP)objc_msg_lookup((CSR_BRIDGE id)receiver, (SEL)selector);
#else
    return (CSRIMP)objc_msg_lookup(receiver, selector);
#endif
}

static inline uintptr_t csr_msg_send_word(CSRObject receiver, CSRSelector selector) {
    // GCC's libobjc sends a message as a lookup and a call (a nil receiver's lookup answers a method returning 0).
    return ((uintptr_t (*)(CSRObject, CSRSelector))csr_msg_lookup(receiver, selector))(receiver, selector);
}

#endif
#endif
