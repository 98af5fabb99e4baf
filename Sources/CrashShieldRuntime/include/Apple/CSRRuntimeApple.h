// CSRRuntimeApple.h: CSRRuntime.h's hot-path inlines as objc4 (Apple's runtime) answers them: the code a phone runs.
// GCC's libobjc's are GNUstep/CSRRuntimeGNUstep.h; each header is empty on the other runtime.
#ifndef CSR_RUNTIME_APPLE_H
#define CSR_RUNTIME_APPLE_H
#if defined(__APPLE__)

#include <objc/runtime.h>
#include <objc/message.h>
#include "../CSRTypes.h"

static inline CSRClass csr_object_getClass(CSRObject object) {
    return (CSR_BRIDGE CSRClass)object_getClass((CSR_BRIDGE id)object);   // tagged pointers included
}

static inline CSRIMP csr_msg_lookup(CSRObject receiver, CSRSelector selector) {
    return (CSRIMP)class_getMethodImplementation(object_getClass((CSR_BRIDGE id)receiver), (SEL)selector);
}

static inline uintptr_t csr_msg_send_word(CSRObject receiver, CSRSelector selector) {
    return ((uintptr_t (*)(CSRObject, CSRSelector))objc_msgSend)(receiver, selector);
}

#endif
#endif
