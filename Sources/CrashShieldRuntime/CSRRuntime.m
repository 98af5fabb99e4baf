// CSRRuntime.m: runtime primitives for both Objective-C runtimes (see CSRRuntime.h). The functions whose forms differ
// between the runtimes are the platform units' (CSRRuntimePlatform.h): Apple/CSRRuntimeApple.m, what a phone runs,
// and GNUstep/CSRRuntimeGNUstep.m, GCC's libobjc on Linux.
#define _GNU_SOURCE 1
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include "CSRRuntime.h"
#include "CSRRuntimePlatform.h"

CSRClass csr_class_lookup(const char *name) {
    if (name == NULL) return NULL;
    return (CSR_BRIDGE CSRClass)objc_lookUpClass(name);
}

const char *csr_class_getName(CSRClass cls) { return cls ? class_getName((CSR_BRIDGE Class)cls) : "nil"; }

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

CSRSelector csr_sel_register(const char *name) { return (CSRSelector)(void *)sel_registerName(name); }

const char *csr_sel_getName(CSRSelector selector) { return selector ? sel_getName((SEL)selector) : "(null)"; }

bool csr_sel_isEqual(CSRSelector a, CSRSelector b) {
    if (a == b) return true;
    if (a == NULL || b == NULL) return false;
    return sel_isEqual((SEL)a, (SEL)b) ? true : false;
}

Method csr_runtime_own_method(Class cls, SEL selector) {
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
    return cls && selector && csr_runtime_own_method((CSR_BRIDGE Class)cls, (SEL)selector) != NULL;
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

bool csr_class_addMethod(CSRClass cls, CSRSelector selector, CSRIMP implementation, const char *types) {
    if (!cls || !selector || !implementation || !types) return false;
    // Both runtimes refresh subclasses' dispatch tables when a method is added.
    return class_addMethod((CSR_BRIDGE Class)cls, (SEL)selector, (IMP)implementation, types) ? true : false;
}

void csr_thread_name(char *buffer, size_t size) {
    if (size == 0) return;
    buffer[0] = 0;
    pthread_getname_np(pthread_self(), buffer, size);
}
