// CSRForwardingGNUstep.m: CSRForwarding.m's runtime answers on GCC's libobjc and GNUstep's forwarding
// (CSRForwardingPlatform.h), the Linux proving ground. A phone never compiles this file: its selectors carry no
// types, objc4 lists an image's classes, CoreFoundation words the failure one way and its forwarding handler marks a
// failing dispatch itself (Apple/CSRForwardingApple.m).
#if !defined(__APPLE__)
#define _GNU_SOURCE 1   // dladdr, dl_iterate_phdr
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <objc/message.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../CSRForwardingPlatform.h"
#include "../CSRMemory.h"

/// The object the exact failure message is taken from. It overrides `methodSignatureForSelector:` (calling super,
/// so it answers exactly as NSObject does), which makes every CrashShield forwarding guard leave it alone: guards
/// never protect a class that takes part in forwarding itself.
@interface CSRForwardingProbe : NSObject
@end

@implementation CSRForwardingProbe- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    return [super methodSignatureForSelector: selector];
}
+ (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    return [super methodSignatureForSelector: selector];
}
@end

const char *csr_sel_getTypes(CSRSelector selector) {
    if (selector == NULL) return NULL;
    const char *types = sel_getTypeEncoding((SEL)selector);
    return (types && *types) ? types : NULL;
}

/// GCC's libobjc: the only type registered for the name.
SEL csr_forwarding_typed_twin(SEL selector) {
    if (selector == NULL) return NULL;
    if (csr_sel_getTypes(csr_sel_opaque(selector)) != NULL) return selector;
    return sel_getTypedSelector(sel_getName(selector));
}

/// The loaded segments of one image (by its load address), for telling its classes from the others'.
typedef struct CSRImageSegments {
    uintptr_t base;
    int count;
    uintptr_t start[16], end[16];
} CSRImageSegments;

static int csr_image_segments_visit(struct dl_phdr_info *info, size_t size, void *argument) {
    (void)size;
    CSRImageSegments *image = (CSRImageSegments *)argument;
    uintptr_t first = UINTPTR_MAX;
    for (int h = 0; h < info->dlpi_phnum; h++) {
        if (info->dlpi_phdr[h].p_type == PT_LOAD && info->dlpi_addr + info->dlpi_phdr[h].p_vaddr < first)
            first = info->dlpi_addr + info->dlpi_phdr[h].p_vaddr;
    }
    if (first == UINTPTR_MAX || (first & ~(uintptr_t)0xfff) != (image->base & ~(uintptr_t)0xfff)) return 0;
    for (int h = 0; h < info->dlpi_phnum && image->count < 16; h++) {
        if (info->dlpi_phdr[h].p_type != PT_LOAD) continue;
        image->start[image->count] = info->dlpi_addr + info->dlpi_phdr[h].p_vaddr;
        image->end[image->count] = image->start[image->count] + info->dlpi_phdr[h].p_memsz;
        image->count++;
    }
    return 1;
}

/// GCC's libobjc realizes nothing lazily: `objc_getClassList` is a walk of its class table, and the image's classes
/// are those inside its loaded segments (a class made at run time is in none).
void csr_forwarding_visit_image_classes(Class cls, bool (*visit)(void *context, Class member), void *context) {
    Dl_info info;
    if (dladdr((CSR_BRIDGE void *)cls, &info) == 0 || info.dli_fbase == NULL) return;
    CSRImageSegments segments = { (uintptr_t)info.dli_fbase, 0, {0}, {0} };
    dl_iterate_phdr(csr_image_segments_visit, &segments);
    if (segments.count == 0) return;
    int total = objc_getClassList(NULL, 0);
    Class *classes = (Class *)malloc(sizeof(Class) * (size_t)(total > 0 ? total : 1));
    if (classes == NULL) return;
    total = objc_getClassList(classes, total);
    for (int i = 0; i < total; i++) {
        uintptr_t address = (uintptr_t)(CSR_BRIDGE void *)classes[i];
        bool inside = false;
        for (int s = 0; s < segments.count && !inside; s++) inside = address >= segments.start[s] && address < segments.end[s];
        if (!inside) continue;
        if (!visit(context, classes[i])) break;
    }
    free(classes);
}

static NSString *csr_replace(NSString *text, NSString *target, NSString *replacement) {
    if (text == nil || [target length] == 0) return text;
    return [text stringByReplacingOccurrencesOfString: target withString: replacement];
}

/// GNUstep words the failure three ways; the probe (which no guard protects: it overrides
/// `methodSignatureForSelector:`) is sent the same typed selector and GNUstep words it.
void csr_unrecognized_reason(CSRObject receiver, CSRSelector selector, bool untypedFailure, char *buffer, size_t size) {
    if (size == 0) return;
    id object = (CSR_BRIDGE id)receiver;
    SEL sel = (SEL)selector;
    BOOL isClass = object != nil && class_isMetaClass(object_getClass(object));
    const char *className = object == nil ? "nil"
        : class_getName(isClass ? (Class)object : object_getClass(object));
    const char *name = sel ? sel_getName(sel) : "(null)";
    if (!untypedFailure) sel = csr_forwarding_typed_twin(sel);
    if (untypedFailure || sel == NULL) {
        // No type information: the message fails before any signature exists, in GNUstep's forwarding hook, worded
        // like this ("instance" for a class object too).
        snprintf(buffer, size, "%c[%s %s]: unrecognized selector sent to instance %p", isClass ? '+' : '-',
                 className, name, (void *)receiver);
        return;
    }
    // Send the same typed selector to the probe and let GNUstep word the failure.
    static CSRForwardingProbe *probeInstance = nil;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (probeInstance == nil) probeInstance = [[CSRForwardingProbe alloc] init];   // kept for the process
    pthread_mutex_unlock(&lock);
    id probe = isClass ? (id)[CSRForwardingProbe class] : (id)probeInstance;
    NSString *reason = nil;
    @autoreleasepool {
        NSMethodSignature *signature = (CSR_BRIDGE NSMethodSignature *)csr_signature_for_selector(receiver, csr_sel_opaque(sel));
        if (signature != nil && sel != NULL) {
            @try {
                NSInvocation *invocation = [NSInvocation invocationWithMethodSignature: signature];
                [invocation setSelector: sel];
                [invocation invokeWithTarget: probe];
            } @catch (NSException *exception) {
                reason = CSR_RETAIN([exception reason]);
            }
        }
        if (reason != nil) {
            NSString *probeAddress = [NSString stringWithFormat: @"%p", (CSR_BRIDGE void *)probe];
            NSString *receiverAddress = [NSString stringWithFormat: @"%p", (void *)receiver];
            NSString *text = csr_replace(reason, probeAddress, receiverAddress);
            text = csr_replace(text, @"CSRForwardingProbe", [NSString stringWithUTF8String: className]);
            snprintf(buffer, size, "%s", [text UTF8String] ?: "");
            CSR_RELEASE(reason);
        } else {
            snprintf(buffer, size, "%c[%s %s]: unrecognized selector sent to instance %p", isClass ? '+' : '-',
                     className, name, (void *)receiver);
        }
    }
}

/// Set by a test only: GCC's libobjc dispatches as objc4 and CoreFoundation do (see csr_test_emulateAppleForwarding).
static bool csr_appleForwarding;

/// GCC's libobjc asks `__objc_msg_forward2` (GNUstep's gs_objc_msg_forward2) for the forwarding implementation of
/// every message that found no method, each time: the resolver does not matter here.
static IMP (*csr_previousForward2)(id, SEL);
static pthread_mutex_t csr_forwardLock = PTHREAD_MUTEX_INITIALIZER;
static unsigned csr_forwardOwners;

static IMP csr_forward2(id receiver, SEL selector) {
    if (receiver != nil) {
        if (!csr_appleForwarding) {
            csr_forwarding_markDispatch((CSR_BRIDGE CSRObject)receiver, (CSRSelector)(void *)selector);
        } else if (class_respondsToSelector(object_getClass(receiver), @selector(forwardingTargetForSelector:))) {
            // Apple: CoreFoundation's forwarding handler sends forwardingTargetForSelector: first, before
            // methodSignatureForSelector: and forwardInvocation: (a non-nil answer would take the message).
            (void)[receiver forwardingTargetForSelector: selector];
        }
    }
    // Written under csr_forwardLock by the thread that installs the entry, read here by every thread that forwards.
    IMP (*previous)(id, SEL) = __atomic_load_n(&csr_previousForward2, __ATOMIC_ACQUIRE);
    return previous ? previous(receiver, selector) : NULL;
}

void csr_forwarding_watchEntry(unsigned owner, bool watch) {
    pthread_mutex_lock(&csr_forwardLock);
    unsigned before = csr_forwardOwners;
    csr_forwardOwners = watch ? (before | owner) : (before & ~owner);
    if (before == 0 && csr_forwardOwners != 0 && __objc_msg_forward2 != csr_forward2) {
        __atomic_store_n(&csr_previousForward2, __objc_msg_forward2, __ATOMIC_RELEASE);   // before the entry is ours
        __objc_msg_forward2 = csr_forward2;
    } else if (before != 0 && csr_forwardOwners == 0 && __objc_msg_forward2 == csr_forward2) {
        __objc_msg_forward2 = csr_previousForward2;   // csr_previousForward2 stays valid for calls under way
    }
    pthread_mutex_unlock(&csr_forwardLock);
}

void csr_test_emulateAppleForwarding(bool emulate) {
    csr_appleForwarding = emulate;
}
#endif
