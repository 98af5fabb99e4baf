// CSRDeallocatingApple.m: `csr_object_is_deallocating` on Apple (CSRDeallocating.h): the code a phone runs. GNUstep's
// is GNUstep/CSRDeallocatingGNUstep.m (it has no deallocating flag to ask).
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <objc/message.h>
#include "CSRDeallocating.h"

bool csr_object_is_deallocating(CSRObject object) {
    if (object == NULL) return false;
    __unsafe_unretained id target = (__bridge id)object;
    SEL allows = sel_registerName("allowsWeakReference");
    // A class that has no such method (a root class of its own, NSProxy without it) cannot say: not deallocating,
    // as objc4's weak_register_no_lock treats it (it refuses the weak reference, it does not call it deallocating).
    if (class_getInstanceMethod(object_getClass(target), allows) == NULL) return false;
    // Declared UNAVAILABLE_ATTRIBUTE in objc/NSObject.h (ARC code must not call it directly), sent as objc4 sends it.
    return !((BOOL (*)(id, SEL))objc_msgSend)(target, allows);
}
#endif
