// CSRForwarding.m: method signatures, invocations and exact "unrecognized selector" messages (see CSRForwarding.h).
#if !defined(__APPLE__)
#define _GNU_SOURCE 1   // dladdr, dl_iterate_phdr
#endif
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSRForwarding.h"
#include "CSRMemory.h"

/// The object the exact failure message is taken from. It overrides `methodSignatureForSelector:` (calling super,
/// so it answers exactly as NSObject does), which makes every CrashShield forwarding guard leave it alone: guards
/// never protect a class that takes part in forwarding itself.
@interface CSRForwardingProbe : NSObject
@end

@implementation CSRForwardingProbe
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    return [super methodSignatureForSelector: selector];
}
+ (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    return [super methodSignatureForSelector: selector];
}
@end

/// A SEL as the opaque pointer Swift sees (a plain cast of SEL is deprecated).
static CSRSelector csr_sel_opaque(SEL selector) {
    CSRSelector result;
    memcpy(&result, &selector, sizeof result);
    return result;
}

const char *csr_sel_getTypes(CSRSelector selector) {
    if (selector == NULL) return NULL;
#if defined(__APPLE__)
    return NULL;   // Apple's selectors carry no types
#else
    const char *types = sel_getTypeEncoding((SEL)selector);
    return (types && *types) ? types : NULL;
#endif
}

/// The return type of an encoding, without qualifiers (r, n, N, o, O, R, V).
static char csr_return_type(const char *types) {
    while (*types && strchr("rnNoORV", *types)) types++;
    return *types;
}

/// What an untyped message's types are looked for in, and what it found (the calling thread's lookup).
typedef struct CSRTypeSearch {
    SEL selector;
    const char *found;   ///< the first encoding seen (owned by the runtime: method types live as long as the class)
    bool agree;          ///< all encodings seen return the same type
} CSRTypeSearch;

static __thread size_t csr_classes_examined;

size_t csr_test_forwarding_classes_examined(void) { return csr_classes_examined; }

/// Adds one method's encoding to the search.
static void csr_type_search_merge(CSRTypeSearch *search, const char *types) {
    if (types == NULL || *types == 0) return;
    if (search->found == NULL) search->found = types;
    else if (csr_return_type(search->found) != csr_return_type(types)) search->agree = NO;
}

/// Reads `cls`'s own methods (one side) for the searched name.
static void csr_type_search_class(CSRTypeSearch *search, Class cls) {
    if (cls == Nil || !search->agree) return;
    unsigned int count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    csr_classes_examined++;
    for (unsigned int m = 0; m < count && search->agree; m++) {
        if (sel_isEqual(method_getName(methods[m]), search->selector)) csr_type_search_merge(search, method_getTypeEncoding(methods[m]));
    }
    free(methods);
}

/// Whether `cls` is `ancestor` or inherits from it (no message sent: any class, root classes too).
static bool csr_class_inherits(Class cls, Class ancestor) {
    for (Class c = cls; c != Nil; c = class_getSuperclass(c)) if (c == ancestor) return true;
    return false;
}

/// `cls` and its superclasses, instance and class side.
static void csr_type_search_lineage(CSRTypeSearch *search, Class cls) {
    for (Class c = cls; c != Nil && search->agree; c = class_getSuperclass(c)) {
        csr_type_search_class(search, c);
        csr_type_search_class(search, object_getClass((id)c));
    }
}

#if !defined(__APPLE__)
#include <link.h>

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
#endif

/// The classes of the image that defines `cls` (an app's model classes are in the app, where the class the message
/// was meant for usually is too): objc4's `objc_copyClassNamesForImage` reads the image's class list without
/// realizing anything, and `objc_lookUpClass` realizes only these. GCC's libobjc realizes nothing lazily:
/// `objc_getClassList` is a walk of its class table, and the image's classes are those inside its loaded segments
/// (a class made at run time is in none).
static void csr_type_search_image(CSRTypeSearch *search, Class cls) {
#if defined(__APPLE__)
    const char *image = class_getImageName(cls);
    if (image == NULL) return;
    unsigned int count = 0;
    const char **names = objc_copyClassNamesForImage(image, &count);
    for (unsigned int i = 0; i < count && search->agree; i++) {
        Class member = objc_lookUpClass(names[i]);
        csr_type_search_class(search, member);
        if (member != Nil) csr_type_search_class(search, object_getClass((id)member));
    }
    free(names);
#else
    Dl_info info;
    if (dladdr((CSR_BRIDGE void *)cls, &info) == 0 || info.dli_fbase == NULL) return;
    CSRImageSegments segments = { (uintptr_t)info.dli_fbase, 0, {0}, {0} };
    dl_iterate_phdr(csr_image_segments_visit, &segments);
    if (segments.count == 0) return;
    int total = objc_getClassList(NULL, 0);
    Class *classes = (Class *)malloc(sizeof(Class) * (size_t)(total > 0 ? total : 1));
    if (classes == NULL) return;
    total = objc_getClassList(classes, total);
    for (int i = 0; i < total && search->agree; i++) {
        uintptr_t address = (uintptr_t)(CSR_BRIDGE void *)classes[i];
        bool inside = false;
        for (int s = 0; s < segments.count && !inside; s++) inside = address >= segments.start[s] && address < segments.end[s];
        if (!inside) continue;
        csr_type_search_class(search, classes[i]);
        csr_type_search_class(search, object_getClass((id)classes[i]));
    }
    free(classes);
#endif
}

/// The type encoding of the methods named like `selector` that the likely classes implement, when they all agree on
/// the return type: a message nothing answers was usually meant for one of them (a JSON number used as a string,
/// `length` sent to an NSNumber; an app object of the wrong one of its own classes). NULL when none has one, or when
/// they disagree. The likely classes: the receiver's lineage (both sides), the classes of its image, and
/// Foundation's value classes and NSObject (both sides). Never every class in the process: on Apple `objc_getClassList` and
/// `objc_copyClassList` realize every class of every loaded image under the runtime lock (`realizeAllClasses`,
/// objc-runtime-new.mm), tens of thousands in an iOS app, on the thread that sent the bad message. Remembered per
/// receiver class and name; the image's part per image and name.
static const char *csr_types_from_implementations(id receiver, SEL selector) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static NSMutableDictionary *known = nil;   // "class name" and "image image name" -> answers, kept for the process
    csr_classes_examined = 0;
    BOOL isClass = receiver != nil && class_isMetaClass(object_getClass(receiver));
    Class cls = receiver == nil ? Nil : isClass ? (Class)receiver : object_getClass(receiver);
    const char *name = sel_getName(selector);
    NSString *key = [NSString stringWithFormat: @"%p %s", (CSR_BRIDGE void *)cls, name];
    pthread_mutex_lock(&lock);
    if (known == nil) known = [[NSMutableDictionary alloc] init];
    id cached = [known objectForKey: key];
    pthread_mutex_unlock(&lock);
    if (cached != nil) return cached == [NSNull null] ? NULL : [(NSString *)cached UTF8String];

    CSRTypeSearch search = { selector, NULL, YES };
    if (cls != Nil) {
        csr_type_search_lineage(&search, cls);
        // The image's part, once per image and name: its encoding, @"" (nothing there) or NSNull (its classes
        // disagree). A class made at run time is in no image.
        Dl_info info;
        NSString *imageKey = dladdr((CSR_BRIDGE void *)cls, &info) != 0 && info.dli_fbase != NULL
            ? [NSString stringWithFormat: @"image %p %s", info.dli_fbase, name] : nil;
        if (imageKey != nil) {
            pthread_mutex_lock(&lock);
            id image = [known objectForKey: imageKey];
            pthread_mutex_unlock(&lock);
            if (image == nil) {
                CSRTypeSearch part = { selector, NULL, YES };
                csr_type_search_image(&part, cls);
                image = !part.agree ? (id)[NSNull null] : part.found ? (id)[NSString stringWithUTF8String: part.found] : (id)@"";
                pthread_mutex_lock(&lock);
                [known setObject: image forKey: imageKey];
                pthread_mutex_unlock(&lock);
            }
            if (image == [NSNull null]) search.agree = NO;
            else if ([(NSString *)image length] > 0) csr_type_search_merge(&search, [(NSString *)image UTF8String]);
        }
    }
    static const char *const valueClasses[] = {
        "NSString", "NSMutableString", "NSNumber", "NSValue", "NSArray", "NSMutableArray", "NSDictionary",
        "NSMutableDictionary", "NSSet", "NSMutableSet", "NSData", "NSMutableData", "NSDate", "NSURL", "NSNull",
    };
    for (size_t i = 0; i < sizeof valueClasses / sizeof *valueClasses && search.agree; i++) {
        Class value = objc_lookUpClass(valueClasses[i]);
        if (value == Nil || csr_class_inherits(cls, value)) continue;   // in the receiver's lineage already
        csr_type_search_class(&search, value);
        csr_type_search_class(&search, object_getClass((id)value));
    }
    csr_type_search_lineage(&search, objc_lookUpClass("NSObject"));
    id answer = (search.agree && search.found != NULL) ? (id)[NSString stringWithUTF8String: search.found] : (id)[NSNull null];
    pthread_mutex_lock(&lock);
    [known setObject: answer forKey: key];
    pthread_mutex_unlock(&lock);
    return answer == [NSNull null] ? NULL : [(NSString *)answer UTF8String];
}

static SEL csr_typed_twin(SEL selector);

CSRObject csr_signature_for_selector(CSRObject receiver, CSRSelector selector) {
    if (selector == NULL) return NULL;
    const char *types = csr_sel_getTypes(selector);
    // An untyped selector: the one typed selector of that name the runtime knows, as GNUstep's own forwarding picks
    // it when the receiver has no signature (gs_find_best_typed_sel). Any other guess would make GNUstep register a
    // second typed selector of the name, and change how it handles the name from then on.
    if (types == NULL) {
        SEL twin = csr_typed_twin((SEL)selector);
        if (twin != NULL) types = csr_sel_getTypes(csr_sel_opaque(twin));
    }
    if (types == NULL) types = csr_types_from_implementations((CSR_BRIDGE id)receiver, (SEL)selector);
    char fallback[256];
    if (types == NULL) {
        // An untyped selector no class implements: an object-returning method with an object per argument (what
        // performSelector:, performSelector:withObject: and friends call it as).
        const char *name = sel_getName((SEL)selector);
        size_t used = (size_t)snprintf(fallback, sizeof fallback, "@@:");
        for (const char *c = name; c && *c && used + 2 < sizeof fallback; c++) {
            if (*c == ':') { fallback[used++] = '@'; fallback[used] = '\0'; }
        }
        types = fallback;
    }
    NSMethodSignature *signature = nil;
    @try { signature = [NSMethodSignature signatureWithObjCTypes: types]; }
    @catch (NSException *ignored) { signature = nil; }
    // The runtime takes a methodSignatureForSelector: answer at +0: the pool keeps it alive under ARC too, where the
    // strong local would release it here (and objc4's optimized return may have handed it over at +1).
    return CSR_PASS_AUTORELEASED(signature);
}

CSRSelector csr_invocation_getSelector(CSRObject invocation) {
    if (invocation == NULL) return NULL;
    return csr_sel_opaque([(CSR_BRIDGE NSInvocation *)invocation selector]);
}

size_t csr_invocation_returnLength(CSRObject invocation) {
    if (invocation == NULL) return 0;
    NSMethodSignature *signature = [(CSR_BRIDGE NSInvocation *)invocation methodSignature];
    const char *type = [signature methodReturnType];
    if (type == NULL || *type == 'v') return 0;
    return (size_t)[signature methodReturnLength];
}

void csr_invocation_setZeroReturn(CSRObject invocation) {
    size_t length = csr_invocation_returnLength(invocation);
    if (length == 0) return;
    void *zero = calloc(1, length < 16 ? 16 : length);
    if (zero == NULL) return;
    [(CSR_BRIDGE NSInvocation *)invocation setReturnValue: zero];
    free(zero);
}

// MARK: Exact messages

#if !defined(__APPLE__)
static NSString *csr_replace(NSString *text, NSString *target, NSString *replacement) {
    if (text == nil || [target length] == 0) return text;
    return [text stringByReplacingOccurrencesOfString: target withString: replacement];
}
#endif

/// A typed selector of the same name the runtime would pick for an untyped one (GCC's libobjc: the only type
/// registered for the name), or NULL.
static SEL csr_typed_twin(SEL selector) {
#if defined(__APPLE__)
    return NULL;
#else
    if (selector == NULL) return NULL;
    if (csr_sel_getTypes(selector) != NULL) return selector;
    return sel_getTypedSelector(sel_getName(selector));
#endif
}

void csr_unrecognized_reason(CSRObject receiver, CSRSelector selector, bool untypedFailure, char *buffer, size_t size) {
    if (size == 0) return;
    id object = (CSR_BRIDGE id)receiver;
    SEL sel = (SEL)selector;
    BOOL isClass = object != nil && class_isMetaClass(object_getClass(object));
    const char *className = object == nil ? "nil"
        : class_getName(isClass ? (Class)object : object_getClass(object));
    const char *name = sel ? sel_getName(sel) : "(null)";
#if defined(__APPLE__)
    snprintf(buffer, size, "%c[%s %s]: unrecognized selector sent to %s %p", isClass ? '+' : '-', className, name,
             isClass ? "class" : "instance", (void *)receiver);
#else
    if (!untypedFailure) sel = csr_typed_twin(sel);
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
#endif
}

// MARK: Per-thread memory of the sent selector

static __thread CSRObject csr_rememberedReceiver;
static __thread CSRSelector csr_rememberedSelector;
static __thread bool csr_rememberedUntyped;

void csr_forwarding_remember(CSRObject receiver, CSRSelector selector) {
    if (receiver == csr_rememberedReceiver && selector == csr_rememberedSelector) return;   // asked again
    csr_rememberedReceiver = receiver;
    csr_rememberedSelector = selector;
    csr_rememberedUntyped = selector != NULL && csr_typed_twin((SEL)selector) == NULL;
}

CSRSelector csr_forwarding_recall(CSRObject receiver, CSRSelector selector, bool *untypedFailure) {
    if (receiver != NULL && receiver == csr_rememberedReceiver && csr_rememberedSelector != NULL && selector != NULL
        && strcmp(sel_getName((SEL)csr_rememberedSelector), sel_getName((SEL)selector)) == 0) {
        if (untypedFailure) *untypedFailure = csr_rememberedUntyped;
        return csr_rememberedSelector;
    }
    if (untypedFailure) *untypedFailure = selector != NULL && csr_typed_twin((SEL)selector) == NULL;
    return selector;
}

// MARK: Per-thread mark of a failing dispatch

static __thread CSRObject csr_dispatchClass;
static __thread bool csr_dispatchClassSide;
static __thread CSRSelector csr_dispatchSelector;

void csr_forwarding_markDispatch(CSRObject receiver, CSRSelector selector) {
    if (receiver == NULL || selector == NULL) return;
    id object = (CSR_BRIDGE id)receiver;
    Class isa = object_getClass(object);
    BOOL classSide = class_isMetaClass(isa);
    csr_dispatchClass = classSide ? receiver : (CSR_BRIDGE CSRObject)isa;
    csr_dispatchClassSide = classSide ? true : false;
    csr_dispatchSelector = selector;
}

bool csr_forwarding_isDispatching(CSRObject receiver, CSRSelector selector) {
    if (receiver == NULL || selector == NULL || csr_dispatchSelector == NULL) return false;
    id object = (CSR_BRIDGE id)receiver;
    BOOL isClass = class_isMetaClass(object_getClass(object));
    CSRObject cls = isClass ? receiver : (CSR_BRIDGE CSRObject)object_getClass(object);
    if (cls != csr_dispatchClass || (isClass ? true : false) != csr_dispatchClassSide) return false;
    if (selector == csr_dispatchSelector) return true;
    return strcmp(sel_getName((SEL)selector), sel_getName((SEL)csr_dispatchSelector)) == 0;
}

void csr_forwarding_clearDispatch(void) {
    csr_dispatchClass = NULL;
    csr_dispatchSelector = NULL;
}

// MARK: The runtime's forwarding entry

/// Set by a test only: GCC's libobjc dispatches as objc4 and CoreFoundation do (see csr_test_emulateAppleForwarding).
static bool csr_appleForwarding;

#if !defined(__APPLE__)
#include <objc/message.h>

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
#endif

void csr_forwarding_watchEntry(unsigned owner, bool watch) {
#if !defined(__APPLE__)
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
#else
    // Apple: the forwarding handler CoreFoundation installs (objc_setForwardHandler) is an assembly trampoline
    // that takes the message's whole register frame; its first step, forwardingTargetForSelector:, marks instead.
    (void)owner;
    (void)watch;
#endif
}

void csr_test_emulateAppleForwarding(bool emulate) {
    csr_appleForwarding = emulate;
}
