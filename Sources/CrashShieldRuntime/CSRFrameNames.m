// CSRFrameNames.m: names a call site's function from the Objective-C runtime (see CSRFrameNames.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include "CSRFrameNames.h"
#include "CSRRuntime.h"
#if __has_feature(ptrauth_calls)
#include <ptrauth.h>
#endif

/// A code address as unwind tables and stack walks give it (arm64e: without its signature).
static uintptr_t csr_code_address(IMP implementation) {
#if __has_feature(ptrauth_calls)
    return (uintptr_t)ptrauth_strip((void *)implementation, ptrauth_key_function_pointer);
#else
    return (uintptr_t)implementation;
#endif
}

/// Looks for `start` among the methods of `cls` (its instance side, or its class side for a metaclass).
static bool csr_method_named(Class cls, uintptr_t start, bool classSide, char *out, size_t size) {
    unsigned int count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    bool found = false;
    for (unsigned int index = 0; index < count && !found; index++) {
        if (csr_code_address(method_getImplementation(methods[index])) != start) continue;
        snprintf(out, size, "%c[%s %s]", classSide ? '+' : '-', class_getName(cls),
                 sel_getName(method_getName(methods[index])));
        found = true;
    }
    free(methods);
    return found;
}

static bool csr_class_method_named(Class cls, uintptr_t start, char *out, size_t size) {
    return csr_method_named(cls, start, false, out, size)
        || csr_method_named(object_getClass((id)cls), start, true, out, size);
}

bool csr_method_name_for_function(uintptr_t start, const char *imagePath, char *out, size_t size) {
    if (start == 0 || imagePath == NULL || out == NULL || size == 0) return false;
    // Only the image's own classes (Apple: read from its class list without realizing the rest of the process's).
    unsigned int count = 0;
    const char **names = csr_copy_class_names_in_image(imagePath, &count);
    bool found = false;
    for (unsigned int index = 0; index < count && !found; index++) {
        Class cls = objc_getClass(names[index]);
        found = cls != Nil && csr_class_method_named(cls, start, out, size);
    }
    free(names);
    return found;
}
