// CSRKind.h: private to CrashShieldRuntime (not in include/): the class-chain test shared by CSRNotification.m (is
// this a trampoline?) and CSRTimer.m (is this a timer proxy?).
#ifndef CSR_KIND_H
#define CSR_KIND_H

#import <Foundation/Foundation.h>
#import <objc/runtime.h>   // Apple: not re-exported by Foundation under modules
#include <stdbool.h>
#include "CSRMemory.h"

/// Whether `object`'s class is `ancestor` or inherits from it (no message sent to `object`). false for NULL.
static inline bool csr_is_kind(CSRObject object, Class ancestor) {
    if (!object) return false;
    for (Class cls = object_getClass((CSR_BRIDGE id)object); cls; cls = class_getSuperclass(cls)) {
        if (cls == ancestor) return true;
    }
    return false;
}

#endif
