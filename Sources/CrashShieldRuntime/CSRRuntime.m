// CSRRuntime.m: runtime primitives for both Objective-C runtimes (see CSRRuntime.h).
#define _GNU_SOURCE 1
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#if !defined(__APPLE__)
#include <objc/thr.h>
#endif
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <dlfcn.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#include "CSRRuntime.h"

#if !defined(__APPLE__)
#include "GNUstep/CSRDispatchTables.h"   // method_setImplementation without its process-wide walk
#endif

void csr_runtime_begin_batch(void) {
#if !defined(__APPLE__)
    csr_gnu_batch.depth++;
#endif
}

void csr_runtime_end_batch(void) {
#if !defined(__APPLE__)
    if (csr_gnu_batch.depth > 0 && --csr_gnu_batch.depth == 0) csr_gnu_flush_batch();
#endif
}

void csr_runtime_flush_batch(void) {
#if !defined(__APPLE__)
    csr_gnu_flush_batch();
#endif
}

#if !defined(__APPLE__)
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
#else
void csr_class_installDispatchTable(CSRClass cls, CSRSelector knownSelector) { (void)cls; (void)knownSelector; }
#endif

void csr_runtime_prepare_for_hooks(void) {
#if !defined(__APPLE__)
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, objc_thread_add);
#endif
}

CSRClass csr_class_lookup(const char *name) {
    if (name == NULL) return NULL;
    return (CSR_BRIDGE CSRClass)objc_lookUpClass(name);
}

const char *csr_class_getName(CSRClass cls) { return cls ? class_getName((CSR_BRIDGE Class)cls) : "nil"; }

CSRClass csr_class_getSuperclass(CSRClass cls) {
    if (cls == NULL) return NULL;
#if !defined(__APPLE__)
    // GCC's libobjc answers Nil for a metaclass's superclass; derive it from the class's own superclass.
    if (class_isMetaClass((CSR_BRIDGE Class)cls)) {
        Class instanceClass = objc_lookUpClass(class_getName((CSR_BRIDGE Class)cls));
        Class superclass = instanceClass ? class_getSuperclass(instanceClass) : Nil;
        return superclass ? (CSR_BRIDGE CSRClass)object_getClass((id)superclass) : NULL;
    }
#endif
    return (CSR_BRIDGE CSRClass)class_getSuperclass((CSR_BRIDGE Class)cls);
}

CSRClass csr_class_getMetaclass(CSRClass cls) {
    return cls ? (CSR_BRIDGE CSRClass)object_getClass((CSR_BRIDGE id)cls) : NULL;
}

bool csr_class_isMetaClass(CSRClass cls) { return cls && class_isMetaClass((CSR_BRIDGE Class)cls); }

bool csr_class_isKindOf(CSRClass cls, CSRClass ancestor) {
    for (CSRClass c = cls; c != NULL; c = csr_class_getSuperclass(c)) {
        if (c == ancestor) return true;
    }
    return false;
}

bool csr_class_releases_through_dealloc(CSRClass cls) {
    if (cls == NULL) return false;
    SEL release = sel_registerName("release");   // ARC forbids @selector(release)
    static IMP rootRelease;
    IMP root = __atomic_load_n(&rootRelease, __ATOMIC_ACQUIRE);
    if (root == NULL) {
        root = class_getMethodImplementation([NSObject class], release);
        __atomic_store_n(&rootRelease, root, __ATOMIC_RELEASE);
    }
    Class c = (CSR_BRIDGE Class)cls;
    return class_respondsToSelector(c, release) && class_getMethodImplementation(c, release) == root;
}

size_t csr_class_getInstanceSize(CSRClass cls) { return cls ? class_getInstanceSize((CSR_BRIDGE Class)cls) : 0; }

const char *csr_class_imagePath(CSRClass cls) {
    if (cls == NULL) return NULL;
#if defined(__APPLE__)
    return class_getImageName((CSR_BRIDGE Class)cls);
#else
    Dl_info info;
    if (dladdr(cls, &info) && info.dli_fname) return info.dli_fname;
    return NULL;
#endif
}

const char **csr_copy_class_names_in_image_of(CSRClass cls, unsigned int *count) {
    if (count) *count = 0;
    if (cls == NULL || count == NULL) return NULL;
#if defined(__APPLE__)
    // The image's class list, read without realizing its classes.
    const char *image = class_getImageName((CSR_BRIDGE Class)cls);
    return image ? objc_copyClassNamesForImage(image, count) : NULL;
#else
    Dl_info anchor;
    if (!dladdr(cls, &anchor) || anchor.dli_fbase == NULL) return NULL;
    int total = objc_getClassList(NULL, 0);
    if (total <= 0) return NULL;
    Class *classes = (Class *)malloc(sizeof(Class) * (size_t)total);
    const char **names = (const char **)malloc(sizeof(const char *) * (size_t)total);
    if (classes == NULL || names == NULL) {
        free(classes);
        free(names);
        return NULL;
    }
    total = objc_getClassList(classes, total);
    unsigned int found = 0;
    for (int i = 0; i < total; i++) {
        Dl_info info;
        if (dladdr((CSR_BRIDGE void *)classes[i], &info) && info.dli_fbase == anchor.dli_fbase) names[found++] = class_getName(classes[i]);
    }
    free(classes);
    *count = found;
    return names;
#endif
}

CSRSelector csr_sel_register(const char *name) { return (CSRSelector)(void *)sel_registerName(name); }

const char *csr_sel_getName(CSRSelector selector) { return selector ? sel_getName((SEL)selector) : "(null)"; }

bool csr_sel_isEqual(CSRSelector a, CSRSelector b) {
    if (a == b) return true;
    if (a == NULL || b == NULL) return false;
    return sel_isEqual((SEL)a, (SEL)b) ? true : false;
}

/// The method `cls` itself defines for `selector`, or NULL.
static Method csr_ownMethod(Class cls, SEL selector) {
    unsigned int count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    Method found = NULL;
    for (unsigned int i = 0; i < count; i++) {
        if (sel_isEqual(method_getName(methods[i]), selector)) { found = methods[i]; break; }
    }
    free(methods);
    return found;
}

bool csr_class_ownsMethod(CSRClass cls, CSRSelector selector) {
    return cls && selector && csr_ownMethod((CSR_BRIDGE Class)cls, (SEL)selector) != NULL;
}

CSRIMP csr_class_methodImplementation(CSRClass cls, CSRSelector selector) {
    if (!cls || !selector) return NULL;
    Method method = class_getInstanceMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    return method ? (CSRIMP)method_getImplementation(method) : NULL;
}

CSRIMP csr_class_dispatchImplementation(CSRClass cls, CSRSelector selector) {
    return (CSRIMP)class_getMethodImplementation((CSR_BRIDGE Class)cls, (SEL)selector);
}

const char *csr_class_methodTypes(CSRClass cls, CSRSelector selector) {
    if (!cls || !selector) return NULL;
    Method method = class_getInstanceMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    return method ? method_getTypeEncoding(method) : NULL;
}

CSRIMP csr_class_replaceOwnMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation) {
    if (!cls || !selector || !implementation) return NULL;
    Method method = csr_ownMethod((CSR_BRIDGE Class)cls, (SEL)selector);
    if (method == NULL) return NULL;
#if defined(__APPLE__)
    // objc4: method_setImplementation does not know the class, so it flushes the method caches of every realized
    // class and metaclass (flushCaches(Nil, ...) in objc-runtime-new.mm); class_replaceMethod on a method the class
    // owns reaches the same _method_setImplementation with the class, which flushes only it and its subclasses.
    return (CSRIMP)class_replaceMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation,
                                       method_getTypeEncoding(method));
#else
    csr_class_installDispatchTable(cls, selector);
    return (CSRIMP)csr_gnu_replace_own_method((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation);
#endif
}

bool csr_class_addMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation, const char *types) {
    if (!cls || !selector || !implementation || !types) return false;
    // Both runtimes refresh subclasses' dispatch tables when a method is added.
    return class_addMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation, types) ? true : false;
}

#if !defined(__APPLE__)
// 0 unknown, 1 main, 2 other; read inline by the main-thread trampolines (CSRMainThread.m). Initial-exec: one load
// from the thread pointer instead of a call to __tls_get_addr (the variable lives in the static TLS block; a
// library dlopen'ed later still gets it from glibc's reserve for such variables).
__attribute__((tls_model("initial-exec"))) _Thread_local int csr_thread_main_state;
#endif

bool csr_thread_isMain(void) {
#if defined(__APPLE__)
    return pthread_main_np() != 0;
#else
    // Two system calls the first time on each thread, then a thread-local read (main-thread guards ask per call).
    if (csr_thread_main_state == 0) csr_thread_main_state = getpid() == (pid_t)syscall(SYS_gettid) ? 1 : 2;
    return csr_thread_main_state == 1;
#endif
}

uint64_t csr_thread_id(void) {
#if defined(__APPLE__)
    uint64_t tid = 0;
    pthread_threadid_np(NULL, &tid);
    return tid;
#else
    return (uint64_t)syscall(SYS_gettid);
#endif
}

void csr_thread_name(char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = 0;
    pthread_getname_np(pthread_self(), buffer, size);
}
