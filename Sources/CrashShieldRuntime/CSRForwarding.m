// CSRForwarding.m: method signatures, invocations and exact "unrecognized selector" messages (see CSRForwarding.h).
// What differs between the runtimes (selector types, an image's classes, the failure's wording, the forwarding
// entry) is the platform units' (CSRForwardingPlatform.h): Apple/CSRForwardingApple.m and
// GNUstep/CSRForwardingGNUstep.m.
#define _GNU_SOURCE 1   // dladdr
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSRForwarding.h"
#include "CSRMemory.h"
#include "CSRForwardingPlatform.h"

CSRSelector csr_sel_opaque(SEL selector) {
    CSRSelector result;
    memcpy(&result, &selector, sizeof result);
    return result;
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

/// Reads `cls`'s own methods (one side) for the searched name; false once the search has its answer (disagreement).
static bool csr_type_search_class(CSRTypeSearch *search, Class cls) {
    if (cls == Nil || !search->agree) return search->agree;
    unsigned int count = 0;
    Method *methods = class_copyMethodList(cls, &count);
    csr_classes_examined++;
    for (unsigned int m = 0; m < count && search->agree; m++) {
        if (sel_isEqual(method_getName(methods[m]), search->selector)) csr_type_search_merge(search, method_getTypeEncoding(methods[m]));
    }
    free(methods);
    return search->agree;
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

/// One class of the receiver's image, both sides (`csr_forwarding_visit_image_classes`).
static bool csr_type_search_image_class(void *search, Class member) {
    return csr_type_search_class((CSRTypeSearch *)search, member)
        && csr_type_search_class((CSRTypeSearch *)search, object_getClass((id)member));
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
                csr_forwarding_visit_image_classes(cls, csr_type_search_image_class, &part);
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

CSRObject csr_signature_for_selector(CSRObject receiver, CSRSelector selector) {
    if (selector == NULL) return NULL;
    const char *types = csr_sel_getTypes(selector);
    // An untyped selector: the one typed selector of that name the runtime knows, as GNUstep's own forwarding picks
    // it when the receiver has no signature (gs_find_best_typed_sel). Any other guess would make GNUstep register a
    // second typed selector of the name, and change how it handles the name from then on.
    if (types == NULL) {
        SEL twin = csr_forwarding_typed_twin((SEL)selector);
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

// MARK: Per-thread memory of the sent selector

static __thread CSRObject csr_rememberedReceiver;
static __thread CSRSelector csr_rememberedSelector;
static __thread bool csr_rememberedUntyped;

void csr_forwarding_remember(CSRObject receiver, CSRSelector selector) {
    if (receiver == csr_rememberedReceiver && selector == csr_rememberedSelector) return;   // asked again
    csr_rememberedReceiver = receiver;
    csr_rememberedSelector = selector;
    csr_rememberedUntyped = selector != NULL && csr_forwarding_typed_twin((SEL)selector) == NULL;
}

CSRSelector csr_forwarding_recall(CSRObject receiver, CSRSelector selector, bool *untypedFailure) {
    if (receiver != NULL && receiver == csr_rememberedReceiver && csr_rememberedSelector != NULL && selector != NULL
        && strcmp(sel_getName((SEL)csr_rememberedSelector), sel_getName((SEL)selector)) == 0) {
        if (untypedFailure) *untypedFailure = csr_rememberedUntyped;
        return csr_rememberedSelector;
    }
    if (untypedFailure) *untypedFailure = selector != NULL && csr_forwarding_typed_twin((SEL)selector) == NULL;
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
