// CSRForwardingApple.m: CSRForwarding.m's runtime answers on objc4 and CoreFoundation (CSRForwardingPlatform.h): the
// code a phone runs. GCC's libobjc's are GNUstep/CSRForwardingGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include "../CSRForwardingPlatform.h"

const char *csr_sel_getTypes(CSRSelector selector) {
    (void)selector;
    return NULL;   // Apple's selectors carry no types
}

SEL csr_forwarding_typed_twin(SEL selector) {
    (void)selector;
    return NULL;
}

/// objc4's `objc_copyClassNamesForImage` reads the image's class list without realizing anything, and
/// `objc_lookUpClass` realizes only the classes visited.
void csr_forwarding_visit_image_classes(Class cls, bool (*visit)(void *context, Class member), void *context) {
    const char *image = class_getImageName(cls);
    if (image == NULL) return;
    unsigned int count = 0;
    const char **names = objc_copyClassNamesForImage(image, &count);
    for (unsigned int i = 0; i < count; i++) {
        Class member = objc_lookUpClass(names[i]);
        if (member != Nil && !visit(context, member)) break;
    }
    free(names);
}

/// objc4's wording (`__forwarding__`, CoreFoundation): "class" for a class object.
void csr_unrecognized_reason(CSRObject receiver, CSRSelector selector, bool untypedFailure, char *buffer, size_t size) {
    (void)untypedFailure;
    if (size == 0) return;
    id object = (CSR_BRIDGE id)receiver;
    SEL sel = (SEL)selector;
    BOOL isClass = object != nil && class_isMetaClass(object_getClass(object));
    const char *className = object == nil ? "nil" : class_getName(isClass ? (Class)object : object_getClass(object));
    const char *name = sel ? sel_getName(sel) : "(null)";
    snprintf(buffer, size, "%c[%s %s]: unrecognized selector sent to %s %p", isClass ? '+' : '-', className, name,
             isClass ? "class" : "instance", (void *)receiver);
}

void csr_forwarding_watchEntry(unsigned owner, bool watch) {
    // The forwarding handler CoreFoundation installs (objc_setForwardHandler) is an assembly trampoline that takes
    // the message's whole register frame; its first step, forwardingTargetForSelector:, marks instead.
    (void)owner;
    (void)watch;
}

void csr_test_emulateAppleForwarding(bool emulate) { (void)emulate; }   // Apple's forwarding is the real one
#endif
