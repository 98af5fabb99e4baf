// CSRFrameNames.m: names a call site's function from the Objective-C runtime (see CSRFrameNames.h).
#define _GNU_SOURCE 1
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSRFrameNames.h"
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
#if defined(__APPLE__)
    // Only the image's own classes: objc_copyClassNamesForImage reads the image's class list without realizing the
    // rest of the process's classes (objc4: objc-runtime-new.mm).
    unsigned int count = 0;
    const char **names = objc_copyClassNamesForImage(imagePath, &count);
    bool found = false;
    for (unsigned int index = 0; index < count && !found; index++) {
        Class cls = objc_getClass(names[index]);
        found = cls != Nil && csr_class_method_named(cls, start, out, size);
    }
    free(names);
    return found;
#else
    // GCC's libobjc has no per-image class list: every class, kept when its data lies in the image.
    int count = objc_getClassList(NULL, 0);
    if (count <= 0) return false;
    Class *classes = (Class *)calloc((size_t)count, sizeof(Class));
    if (classes == NULL) return false;
    count = objc_getClassList(classes, count);
    bool found = false;
    for (int index = 0; index < count && !found; index++) {
        Dl_info info;
        if (dladdr((CSR_BRIDGE void *)classes[index], &info) == 0 || info.dli_fname == NULL) continue;
        if (strcmp(info.dli_fname, imagePath) != 0) continue;
        found = csr_class_method_named(classes[index], start, out, size);
    }
    free(classes);
    return found;
#endif
}
