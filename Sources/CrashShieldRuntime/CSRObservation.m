// CSRObservation.m: the Objective-C side of the KVO guard (see CSRObservation.h). How an observed object's end is
// learned, and a registration removed by its context, are the platform units' (CSRObservationPlatform.h).
#import <Foundation/Foundation.h>
#import <objc/runtime.h>   // Apple: not re-exported by Foundation under modules
#include "CSRMemory.h"
#include "CSRObservation.h"
#include "CSRObservationPlatform.h"
#include <pthread.h>

static CSRKVOHandler csr_kvo_handler;

void csr_kvo_set_handler(CSRKVOHandler handler) {
    __atomic_store_n(&csr_kvo_handler, handler, __ATOMIC_RELEASE);
}

/// The one real observer of an observed object: Foundation delivers every change to it; the guard forwards them.
@interface CSRKVOProxy : NSObject
@end

@implementation CSRKVOProxy
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    CSRKVOHandler handler = __atomic_load_n(&csr_kvo_handler, __ATOMIC_ACQUIRE);
    if (handler) handler((CSR_BRIDGE CSRObject)self, (CSR_BRIDGE CSRObject)keyPath, (CSR_BRIDGE CSRObject)object,
                         (CSR_BRIDGE CSRObject)change, context);
}
@end

CSRObject csr_kvo_proxy_new(void) {
    return CSR_PASS_RETAINED_NEW([[CSRKVOProxy alloc] init]);
}

bool csr_kvo_is_proxy(CSRObject object) {
    if (!object) return false;
    Class cls = object_getClass((CSR_BRIDGE id)object);
    Class proxy = [CSRKVOProxy class];
    for (; cls; cls = class_getSuperclass(cls)) if (cls == proxy) return true;
    return false;
}

CSRObject csr_object_copy_owned(CSRObject object) {
    if (!object) return NULL;
    return CSR_PASS_RETAINED_NEW([(CSR_BRIDGE id)object copy]);
}

CSRObject csr_object_retain_owned(CSRObject object) {
    if (!object) return NULL;
    return CSR_PASS_RETAINED((CSR_BRIDGE id)object);
}

void csr_object_release_owned(CSRObject object) {
    if (!object) return;
#if __has_feature(objc_arc)
    (void)(__bridge_transfer id)object;   // the strong temporary takes the caller's +1 and releases it
#else
    [(id)object release];
#endif
}

void csr_kvo_add(CSRObject observed, CSRObject observer, CSRObject keyPath, unsigned long options, void *context) {
    [(CSR_BRIDGE id)observed addObserver: (CSR_BRIDGE id)observer forKeyPath: (CSR_BRIDGE NSString *)keyPath
                                 options: (NSKeyValueObservingOptions)options context: context];
}

void csr_kvo_remove(CSRObject observed, CSRObject observer, CSRObject keyPath) {
    [(CSR_BRIDGE id)observed removeObserver: (CSR_BRIDGE id)observer forKeyPath: (CSR_BRIDGE NSString *)keyPath];
}

bool csr_kvo_has_observation_info(CSRObject object) {
    if (!object) return false;
    bool observed;
    // GNUstep's -observationInfo returns the info retained and autoreleased.
    @autoreleasepool { observed = [(CSR_BRIDGE id)object observationInfo] != NULL; }
    return observed;
}

void csr_kvo_deliver(CSRObject observer, CSRObject keyPath, CSRObject object, CSRObject change, void *context,
                     CSRKVOUnwind onUnwind) {
    if (!onUnwind) {
        [(CSR_BRIDGE id)observer observeValueForKeyPath: (CSR_BRIDGE NSString *)keyPath ofObject: (CSR_BRIDGE id)object
                                                 change: (CSR_BRIDGE NSDictionary *)change context: context];
        return;
    }
    @try {
        [(CSR_BRIDGE id)observer observeValueForKeyPath: (CSR_BRIDGE NSString *)keyPath ofObject: (CSR_BRIDGE id)object
                                                 change: (CSR_BRIDGE NSDictionary *)change context: context];
    } @catch (id exception) {
        // The caller's bookkeeping (the observer is "in delivery") must not outlive the call; the exception goes on.
        onUnwind(observer);
        @throw;   // a rethrow (objc_exception_rethrow on Apple): Foundation's preprocessor does not run again
    }
}

bool csr_kvo_observer_handles(CSRObject observer) {
    if (!observer) return false;
    SEL sel = @selector(observeValueForKeyPath:ofObject:change:context:);
    IMP base = class_getMethodImplementation([NSObject class], sel);
    IMP own = class_getMethodImplementation(object_getClass((CSR_BRIDGE id)observer), sel);
    return own != base;
}

CSRObject csr_kvo_change_filtered(CSRObject change, bool keepNew, bool keepOld) {
    NSDictionary *dictionary = (CSR_BRIDGE NSDictionary *)change;
    if (!dictionary) return change;
    bool dropNew = !keepNew && [dictionary objectForKey: NSKeyValueChangeNewKey] != nil;
    bool dropOld = !keepOld && [dictionary objectForKey: NSKeyValueChangeOldKey] != nil;
    if (!dropNew && !dropOld) return change;
    NSMutableDictionary *copy = [dictionary mutableCopy];
    if (dropNew) [copy removeObjectForKey: NSKeyValueChangeNewKey];
    if (dropOld) [copy removeObjectForKey: NSKeyValueChangeOldKey];
    // In the pool under ARC too: the observer is handed it after this returns, and may raise out of the delivery.
    return CSR_PASS_AUTORELEASED_NEW(copy);
}

bool csr_kvo_change_is_prior(CSRObject change) {
    NSDictionary *dictionary = (CSR_BRIDGE NSDictionary *)change;
    return [[dictionary objectForKey: NSKeyValueChangeNotificationIsPriorKey] boolValue] ? true : false;
}

// MARK: Observed objects Foundation forgets by itself

static CSRKVOEndHandler csr_kvo_end_handler;

void csr_kvo_set_end_handler(CSRKVOEndHandler handler) {
    __atomic_store_n(&csr_kvo_end_handler, handler, __ATOMIC_RELEASE);
}

void csr_kvo_ended(uintptr_t address, uintptr_t token) {
    CSRKVOEndHandler handler = __atomic_load_n(&csr_kvo_end_handler, __ATOMIC_ACQUIRE);
    if (handler) handler(address, token);
}

bool csr_kvo_class_notifies_automatically(CSRObject object, CSRObject keyPath) {
    NSString *path = (CSR_BRIDGE NSString *)keyPath;
    NSRange dot = [path rangeOfString: @"."];
    NSString *key = dot.location == NSNotFound ? path : [path substringToIndex: dot.location];
    Class cls = [(CSR_BRIDGE id)object class];   // KVO's subclass answers with the original class
    // Apple's second condition: "must not override the (private) accessors for internal KVO state".
    Class root = [NSObject class];
    SEL getter = @selector(observationInfo), setter = @selector(setObservationInfo:);
    if (class_getMethodImplementation(cls, getter) != class_getMethodImplementation(root, getter)
        || class_getMethodImplementation(cls, setter) != class_getMethodImplementation(root, setter)) return false;
    return [cls automaticallyNotifiesObserversForKey: key] ? true : false;
}

void csr_object_does_not_recognize(CSRObject object, CSRSelector selector) {
    [(CSR_BRIDGE id)object doesNotRecognizeSelector: (SEL)selector];
}

bool csr_object_responds(CSRObject object, CSRSelector selector) {
    return object && [(CSR_BRIDGE id)object respondsToSelector: (SEL)selector] ? true : false;
}
