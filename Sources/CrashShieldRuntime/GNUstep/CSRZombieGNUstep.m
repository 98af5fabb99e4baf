// CSRZombieGNUstep.m: the zombie guard's platform answers on GNUstep (CSRZombiePlatform.h). A phone never compiles
// this file: objc4's objc_destructInstance and free do this work there (Apple/CSRZombieApple.m).
#if !defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "../CSRMemory.h"
#include "../CSRZombiePlatform.h"

const char *csr_zombie_selector_types(SEL selector) { return sel_getTypeEncoding(selector); }

void csr_zombie_destroy_and_set_class(CSRObject object, Class zombie) {
    // GCC's libobjc: C++ destructors (.cxx_destruct), when a class in the chain has them, as NSDeallocateObject
    // would run them. No associated objects, no weak references.
    Class cls = object_getClass((CSR_BRIDGE id)object);
    static SEL destructSelector;
    if (destructSelector == NULL) destructSelector = sel_registerName(".cxx_destruct");
    // The dispatch table answers whether any class in the chain has one (class_getInstanceMethod would search
    // every method list of the chain, and ask +resolveInstanceMethod: when none has it).
    if (class_respondsToSelector(cls, destructSelector)) {
        IMP previous = NULL;
        for (Class c = cls; c != Nil; c = class_getSuperclass(c)) {
            Method method = class_getInstanceMethod(c, destructSelector);
            if (method == NULL) break;
            IMP imp = method_getImplementation(method);
            if (imp != previous) ((void (*)(id, SEL))imp)((CSR_BRIDGE id)object, destructSelector);
            previous = imp;
        }
    }
    *(Class *)object = zombie;
}

void csr_zombie_free_as(CSRObject object, Class corpse) {
    *(Class *)object = corpse;
    NSDeallocateObject((CSR_BRIDGE id)object);   // the root -dealloc's work, on a class without destructors
}
#endif
