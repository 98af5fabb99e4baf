// CSRZombieApple.m: the zombie guard's platform answers on Apple (CSRZombiePlatform.h): the code a phone runs.
// GNUstep's are GNUstep/CSRZombieGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <dlfcn.h>
#include <stdlib.h>
#include "../CSRMemory.h"
#include "../CSRZombiePlatform.h"

const char *csr_zombie_selector_types(SEL selector) {
    (void)selector;
    return NULL;   // objc4's selectors carry no types
}

/// objc_destructInstance, which ARC code may not name: C++/ARC ivars, associated objects, weak references.
static void csr_destruct_instance(void *object) {
    static void *(*destruct)(void *);
    if (destruct == NULL) destruct = (void *(*)(void *))dlsym(RTLD_DEFAULT, "objc_destructInstance");
    if (destruct != NULL) destruct(object);
}

void csr_zombie_destroy_and_set_class(CSRObject object, Class zombie) {
    csr_destruct_instance(object);
    object_setClass((CSR_BRIDGE id)object, zombie);
}

void csr_zombie_free_as(CSRObject object, Class corpse) {
    object_setClass((CSR_BRIDGE id)object, corpse);
    free(object);   // objc_destructInstance ran when it became a zombie
}
#endif
