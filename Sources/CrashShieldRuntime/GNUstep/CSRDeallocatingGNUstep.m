// CSRDeallocatingGNUstep.m: `csr_object_is_deallocating` on GNUstep (CSRDeallocating.h). A phone never compiles this
// file: objc4 keeps a deallocating flag, which Apple/CSRDeallocatingApple.m asks. GNUstep Base has no deallocating
// flag: `-release` resets the count to 0 and sends `-dealloc` (NSObject.m, `objc_release_fast_no_destroy_internal`), so
// an object inside its `-dealloc` looks like any object with one reference. It counts as deallocating while a
// `-dealloc` implementation of its class chain is on this thread's stack: the frame of the function the class (or a
// superclass) answers for `dealloc`, or, where the dealloc watcher hooked that class, of the original it keeps (its
// trampoline tail-calls, leaving no frame of its own). Another object of the same classes deallocating on this thread
// and messaging this one counts too: the call then runs in place, as without CrashShield, which is never worse than
// running it later.
#if !defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSRDeallocating.h"
#include "CSRCallStack.h"
#include "CSRDeallocHook.h"
#include "../CSRMemory.h"

enum { CSRDeallocatingFrames = 128, CSRDeallocatingImplementations = 64 };

/// The `-dealloc` implementations objects of `cls` run: each class's answer, and the watcher's originals for
/// hooked classes of the chain. Returns how many were written (duplicates included).
static int csr_dealloc_implementations(Class cls, uintptr_t *out, int max) {
    SEL dealloc = sel_registerName("dealloc");   // ARC forbids @selector(dealloc)
    int count = 0;
    for (Class current = cls; current != Nil && count < max; current = class_getSuperclass(current)) {
        out[count++] = csr_strip_code_pointer((const void *)class_getMethodImplementation(current, dealloc));
        long slot = csr_hook_table_index(&csr_dealloc_table, (uintptr_t)current);
        if (slot >= 0 && count < max) {
            uintptr_t original = csr_hook_table_resolve(&csr_dealloc_table, slot);
            if (original != 0) out[count++] = csr_strip_code_pointer((const void *)original);
        }
    }
    return count;
}

bool csr_object_is_deallocating(CSRObject object) {
    if (object == NULL) return false;
    Class cls = object_getClass((CSR_BRIDGE id)object);
    if (cls == Nil || class_isMetaClass(cls)) return false;
    uintptr_t implementations[CSRDeallocatingImplementations];
    int known = csr_dealloc_implementations(cls, implementations, CSRDeallocatingImplementations);
    void *frames[CSRDeallocatingFrames];
    int depth = csr_backtrace(frames, CSRDeallocatingFrames);
    for (int i = 0; i < depth; i++) {
        uintptr_t address = csr_strip_code_pointer(frames[i]);
        if (address == 0) continue;
        uintptr_t start = (uintptr_t)csr_enclosing_function((const void *)(address - 1));
        if (start == 0) continue;
        for (int k = 0; k < known; k++) {
            if (implementations[k] == start) return true;
        }
    }
    return false;
}
#endif
