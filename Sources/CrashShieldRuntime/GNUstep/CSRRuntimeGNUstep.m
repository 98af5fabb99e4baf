// CSRRuntimeGNUstep.m: CSRRuntime.h's functions as GCC's libobjc needs them (GNUstep on Linux, the proving ground).
// A phone never compiles this file: objc4 installs a method with class_replaceMethod alone, answers a metaclass's
// superclass, names a class's image and knows its main thread (Apple/CSRRuntimeApple.m).
#if !defined(__APPLE__)
#define _GNU_SOURCE 1
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <objc/thr.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CSRRuntime.h"
#include "../CSRRuntimePlatform.h"
#include "CSRDispatchTables.h"   // method_setImplementation without its process-wide walk

void csr_runtime_begin_batch(void) { csr_gnu_batch.depth++; }

void csr_runtime_end_batch(void) {
    if (csr_gnu_batch.depth > 0 && --csr_gnu_batch.depth == 0) csr_gnu_flush_batch();
}

void csr_runtime_flush_batch(void) { csr_gnu_flush_batch(); }

void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector) {
    // GCC's libobjc: every class that was never messaged shares one "uninstalled" dispatch table, and
    // method_setImplementation writes the new implementation into the owning class's table: into that shared one,
    // so that every class not messaged yet would answer the selector with it. A lookup installs the class's own
    // table (running +initialize, as the first message would). Look up a selector the class answers: for a class
    // whose +initialize is running on this thread, libobjc loops forever on a selector nothing implements.
    static SEL never;
    if (never == NULL) never = sel_registerName("_csr_installDispatchTable");
    if (cls == NULL) return;
    (void)class_getMethodImplementation((CSR_BRIDGE Class)cls, knownSelector ? (SEL)knownSelector : never);
}

void csr_runtime_prepare_for_hooks(void) {
    // libobjc frees a replaced dispatch table at once while it thinks the process has one thread, and it counts only
    // the threads it started: this keeps replaced tables alive for the others.
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, objc_thread_add);
}

CSRClass csr_class_getSuperclass(CSRClass cls) {
    if (cls == NULL) return NULL;
    // GCC's libobjc answers Nil for a metaclass's superclass; derive it from the class's own superclass.
    if (class_isMetaClass((CSR_BRIDGE Class)cls)) {
        Class instanceClass = objc_lookUpClass(class_getName((CSR_BRIDGE Class)cls));
        Class superclass = instanceClass ? class_getSuperclass(instanceClass) : Nil;
        return superclass ? (CSR_BRIDGE CSRClass)object_getClass((id)superclass) : NULL;
    }
    return (CSR_BRIDGE CSRClass)class_getSuperclass((CSR_BRIDGE Class)cls);
}

const char *csr_class_imagePath(CSRClass cls) {
    if (cls == NULL) return NULL;
    Dl_info info;
    if (dladdr(cls, &info) && info.dli_fname) return info.dli_fname;
    return NULL;
}

/// Every registered class, in a malloc'd array (NULL when none): GCC's libobjc registers every class at load and keeps
/// no class list per image.
static CSRClass *csr_gnu_copy_class_list(int *count) {
    int total = objc_getClassList(NULL, 0);
    CSRClass *classes = total > 0 ? (CSRClass *)calloc((size_t)total, sizeof(CSRClass)) : NULL;
    // Class pointers only, never retained (ARC: unretained; the runtime keeps its classes).
    *count = classes ? objc_getClassList((__unsafe_unretained Class *)(void *)classes, total) : 0;
    return classes;
}

/// The names of the registered classes where dladdr finds an image `inImage` accepts, as csr_copy_class_names_in_image.
static const char **csr_gnu_copy_class_names(bool (*inImage)(const Dl_info *info, const void *image), const void *image,
                                             unsigned int *count) {
    int total = 0;
    CSRClass *classes = csr_gnu_copy_class_list(&total);
    const char **names = classes ? (const char **)malloc(sizeof(const char *) * (size_t)total) : NULL;
    unsigned int found = 0;
    for (int i = 0; names != NULL && i < total; i++) {
        Dl_info info;
        if (dladdr(classes[i], &info) && inImage(&info, image))
            names[found++] = class_getName((CSR_BRIDGE Class)classes[i]);
    }
    free(classes);
    *count = found;
    return names;
}

static bool csr_gnu_image_at(const Dl_info *info, const void *base) { return info->dli_fbase == base; }
static bool csr_gnu_image_named(const Dl_info *info, const void *path) {
    return info->dli_fname != NULL && strcmp(info->dli_fname, (const char *)path) == 0;
}

const char **csr_copy_class_names_in_image_of(CSRClass cls, unsigned int *count) {
    if (count) *count = 0;
    if (cls == NULL || count == NULL) return NULL;
    Dl_info anchor;
    if (!dladdr(cls, &anchor) || anchor.dli_fbase == NULL) return NULL;
    return csr_gnu_copy_class_names(csr_gnu_image_at, anchor.dli_fbase, count);
}

const char **csr_copy_class_names_in_image(const char *imagePath, unsigned int *count) {
    if (count) *count = 0;
    if (imagePath == NULL || count == NULL) return NULL;
    return csr_gnu_copy_class_names(csr_gnu_image_named, imagePath, count);
}

CSRClass *csr_copy_app_classes(bool (*isAppImage)(void *context, const char *path),
                               bool (*isAppClass)(void *context, CSRClass cls), void *context, unsigned int *count) {
    (void)isAppImage;
    int total = 0;
    CSRClass *classes = csr_gnu_copy_class_list(&total);
    *count = 0;
    for (int i = 0; i < total; i++) {
        if (isAppClass(context, classes[i])) classes[(*count)++] = classes[i];
    }
    return classes;
}

CSRIMP csr_class_replaceOwnMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation) {
    if (!cls || !selector || !implementation) return NULL;
    Method method = csr_runtime_own_method((CSR_BRIDGE Class)cls, (SEL)selector);
    if (method == NULL) return NULL;
    csr_class_installDispatchTable(cls, selector);
    return (CSRIMP)csr_gnu_replace_own_method((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation);
}

/// 0 unknown, 1 main, 2 other. Initial-exec: one load from the thread pointer instead of a call to __tls_get_addr.
static __attribute__((tls_model("initial-exec"))) _Thread_local int csr_thread_main_state;

bool csr_thread_isMain(void) {
    // Two system calls the first time on each thread, then a thread-local read (main-thread guards ask per call).
    if (csr_thread_main_state == 0) csr_thread_main_state = getpid() == (pid_t)syscall(SYS_gettid) ? 1 : 2;
    return csr_thread_main_state == 1;
}

uint64_t csr_thread_id(void) { return (uint64_t)syscall(SYS_gettid); }
#endif
