// CSRRuntimeApple.m: CSRRuntime.h's functions as objc4 (Apple's runtime) needs them; the code a phone runs. The same
// functions for GCC's libobjc are GNUstep/CSRRuntimeGNUstep.m's.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <mach-o/dyld.h>
#include <pthread.h>
#include <stdlib.h>
#include "CSRRuntime.h"
#include "../CSRRuntimePlatform.h"

// objc4 installs a method with method_setImplementation / class_replaceMethod alone: nothing to batch or prepare.
void csr_runtime_begin_batch(void) {}
void csr_runtime_end_batch(void) {}
void csr_runtime_flush_batch(void) {}
void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector) { (void)cls; (void)knownSelector; }
void csr_runtime_prepare_for_hooks(void) {}

CSRClass csr_class_getSuperclass(CSRClass cls) {
    return cls ? (CSR_BRIDGE CSRClass)class_getSuperclass((CSR_BRIDGE Class)cls) : NULL;
}

const char *csr_class_imagePath(CSRClass cls) {
    return cls ? class_getImageName((CSR_BRIDGE Class)cls) : NULL;
}

const char **csr_copy_class_names_in_image_of(CSRClass cls, unsigned int *count) {
    if (count) *count = 0;
    if (cls == NULL || count == NULL) return NULL;
    // The image's class list, read without realizing its classes.
    const char *image = class_getImageName((CSR_BRIDGE Class)cls);
    return image ? objc_copyClassNamesForImage(image, count) : NULL;
}

const char **csr_copy_class_names_in_image(const char *imagePath, unsigned int *count) {
    if (count) *count = 0;
    if (imagePath == NULL || count == NULL) return NULL;
    return objc_copyClassNamesForImage(imagePath, count);   // objc4: objc-runtime-new.mm
}

CSRClass *csr_copy_app_classes(bool (*isAppImage)(void *context, const char *path),
                               bool (*isAppClass)(void *context, CSRClass cls), void *context, unsigned int *count) {
    (void)isAppClass;   // every class of an app image is the app's
    *count = 0;
    CSRClass *classes = NULL;
    uint32_t images = _dyld_image_count();
    for (uint32_t index = 0; index < images; index++) {
        const char *image = _dyld_get_image_name(index);
        if (image == NULL || !isAppImage(context, image)) continue;
        unsigned int found = 0;
        const char **names = objc_copyClassNamesForImage(image, &found);
        if (names == NULL) continue;
        CSRClass *grown = found > 0 ? (CSRClass *)realloc(classes, sizeof(CSRClass) * (*count + found)) : NULL;
        if (grown != NULL) classes = grown;
        for (unsigned int name = 0; grown != NULL && name < found; name++) {
            Class cls = objc_lookUpClass(names[name]);
            if (cls != Nil) classes[(*count)++] = (CSR_BRIDGE CSRClass)cls;
        }
        free(names);
    }
    return classes;
}

CSRIMP csr_class_replaceOwnMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation) {
    if (!cls || !selector || !implementation) return NULL;
    Method method = csr_runtime_own_method((CSR_BRIDGE Class)cls, (SEL)selector);
    if (method == NULL) return NULL;
    // objc4: method_setImplementation does not know the class, so it flushes the method caches of every realized
    // class and metaclass (flushCaches(Nil, ...) in objc-runtime-new.mm); class_replaceMethod on a method the class
    // owns reaches the same _method_setImplementation with the class, which flushes only it and its subclasses.
    return (CSRIMP)class_replaceMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation,
                                       method_getTypeEncoding(method));
}

bool csr_thread_isMain(void) { return pthread_main_np() != 0; }

uint64_t csr_thread_id(void) {
    uint64_t tid = 0;
    pthread_threadid_np(NULL, &tid);
    return tid;
}
#endif
