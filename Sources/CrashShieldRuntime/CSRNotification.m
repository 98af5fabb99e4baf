// CSRNotification.m: the Objective-C side of the notification and timer guards (see CSRNotification.h).
#import <Foundation/Foundation.h>
#import <objc/runtime.h>   // Apple: not re-exported by Foundation under modules
#include <pthread.h>
#include "CSRMemory.h"
#include "CSRNotification.h"
#include "CSRObservation.h"   // csr_object_retain_owned, csr_object_release_owned

#if __has_feature(objc_arc)
#define CSR_SUPER_DEALLOC() ((void)0)
#else
#define CSR_SUPER_DEALLOC() [super dealloc]
#endif

// MARK: Notification centers

CSRObject csr_notification_default_center(void) {
    return CSR_PASS_BORROWED([NSNotificationCenter defaultCenter]);   // a singleton, kept for the process
}

void csr_notification_add(CSRObject center, CSRObject observer, CSRSelector selector, CSRObject name, CSRObject object) {
    [(CSR_BRIDGE NSNotificationCenter *)center addObserver: (CSR_BRIDGE id)observer selector: (SEL)selector
                                                      name: (CSR_BRIDGE NSString *)name object: (CSR_BRIDGE id)object];
}

void csr_notification_remove(CSRObject center, CSRObject observer, CSRObject name, CSRObject object) {
    [(CSR_BRIDGE NSNotificationCenter *)center removeObserver: (CSR_BRIDGE id)observer
                                                         name: (CSR_BRIDGE NSString *)name
                                                       object: (CSR_BRIDGE id)object];
}

// Each held by the notification, which the caller holds.
CSRObject csr_notification_name(CSRObject notification) {
    return CSR_PASS_BORROWED([(CSR_BRIDGE NSNotification *)notification name]);
}

CSRObject csr_notification_object(CSRObject notification) {
    return CSR_PASS_BORROWED([(CSR_BRIDGE NSNotification *)notification object]);
}

CSRObject csr_notification_userInfo(CSRObject notification) {
    return CSR_PASS_BORROWED([(CSR_BRIDGE NSNotification *)notification userInfo]);
}

void csr_notification_post(CSRObject center, CSRObject name, CSRObject object, CSRObject userInfo, CSRObject thread,
                           bool waitUntilDone) {
    NSNotificationCenter *target = (CSR_BRIDGE NSNotificationCenter *)center;
    NSNotification *notification = [NSNotification notificationWithName: (CSR_BRIDGE NSString *)name
                                                                  object: (CSR_BRIDGE id)object
                                                                userInfo: (CSR_BRIDGE NSDictionary *)userInfo];
    if (!thread) {
        [target postNotification: notification];
        return;
    }
    [target performSelector: @selector(postNotification:) onThread: (CSR_BRIDGE NSThread *)thread
                 withObject: notification waitUntilDone: waitUntilDone ? YES : NO];
}

CSRObject csr_nsthread_main(void) { return CSR_PASS_BORROWED([NSThread mainThread]); }   // lives for the process

// MARK: What the running center does with deallocated observers

static bool csr_emulateAppleCenter;

bool csr_notification_center_forgets_deallocated_observers(void) {
#if defined(__APPLE__)
    // Foundation release notes (OS X 10.11, iOS 9): NSNotificationCenter no longer sends notifications to registered
    // selector-based observers that may be deallocated (it holds them as zeroing references). Block-based observers
    // (addObserverForName:object:queue:usingBlock:) still need removal: their token keeps the block alive.
    if (@available(macOS 10.11, iOS 9.0, tvOS 9.0, watchOS 2.0, *)) return true;
    return false;
#else
    // GNUstep Base 1.28 keeps a raw pointer and messages a deallocated observer (the seed case crashes: SIGSEGV).
    return csr_emulateAppleCenter;
#endif
}

void csr_test_emulateAppleNotificationCenter(bool emulate) { csr_emulateAppleCenter = emulate; }

// MARK: Trampolines

static CSRNotificationHandler csr_notification_handler;

void csr_notification_set_handler(CSRNotificationHandler handler) {
    __atomic_store_n(&csr_notification_handler, handler, __ATOMIC_RELEASE);
}

/// The observer behind closure-based observation: hands every notification to the Swift side.
@interface CSRNotificationTrampoline : NSObject
- (void)csr_receive:(NSNotification *)notification;
@end

@implementation CSRNotificationTrampoline
- (void)csr_receive:(NSNotification *)notification {
    CSRNotificationHandler handler = __atomic_load_n(&csr_notification_handler, __ATOMIC_ACQUIRE);
    if (handler) handler((CSR_BRIDGE CSRObject)self, (CSR_BRIDGE CSRObject)notification);
}
@end

CSRObject csr_notification_trampoline_new(void) {
    return CSR_PASS_RETAINED_NEW([[CSRNotificationTrampoline alloc] init]);
}

CSRSelector csr_notification_trampoline_selector(void) {
    SEL selector = @selector(csr_receive:);
    return (CSRSelector)(void *)selector;
}

static bool csr_is_kind(CSRObject object, Class ancestor) {
    if (!object) return false;
    for (Class cls = object_getClass((CSR_BRIDGE id)object); cls; cls = class_getSuperclass(cls)) {
        if (cls == ancestor) return true;
    }
    return false;
}

bool csr_notification_is_trampoline(CSRObject object) {
    return csr_is_kind(object, [CSRNotificationTrampoline class]);
}

// MARK: Timers

static CSRTimerHandler csr_timer_handler;
/// Guards every proxy's target word: a fire takes the target (retained) under it, a dying proxy takes it to release
/// it, an over-released target is dropped under it.
static pthread_mutex_t csr_timer_lock = PTHREAD_MUTEX_INITIALIZER;

void csr_timer_set_handler(CSRTimerHandler handler) {
    __atomic_store_n(&csr_timer_handler, handler, __ATOMIC_RELEASE);
}

/// Stands between a timer and its target: the timer retains the proxy, the proxy retains the target (as the timer
/// itself would) and releases it when the timer releases the proxy (at its invalidation).
@interface CSRTimerProxy : NSObject {
@public
    CSRObject _target;   // owned (+1, `csr_object_retain_owned`); NULL once it was freed behind the proxy's back
    SEL _selector;
}
- (void)csr_fire:(NSTimer *)timer;
@end

@implementation CSRTimerProxy
- (void)csr_fire:(NSTimer *)timer {
    pthread_mutex_lock(&csr_timer_lock);
    CSRObject held = csr_object_retain_owned(_target);   // for the call, as NSTimer's -fire retains its target
    pthread_mutex_unlock(&csr_timer_lock);
    if (held) {
        id target = (CSR_BRIDGE id)held;
        // What NSTimer's -fire sends its target (an exception goes to NSTimer's own handler, as before).
        @try {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"   // a timer's action returns void: nothing to leak
            [target performSelector: _selector withObject: timer];
#pragma clang diagnostic pop
        } @finally {
            csr_object_release_owned(held);
        }
        return;
    }
    // The target was freed while the timer held it (over-released; reported when it was deallocated): without
    // CrashShield this fire would message freed memory. Never fired again.
    [timer invalidate];
}

- (void)dealloc {
    // First off the registry (a target freed from now on is not over-released by the app), then release the target.
    CSRTimerHandler handler = __atomic_load_n(&csr_timer_handler, __ATOMIC_ACQUIRE);
    if (handler) handler(CSRTimerEventProxyDeallocating, (CSR_BRIDGE CSRObject)self);
    pthread_mutex_lock(&csr_timer_lock);
    CSRObject target = _target;
    _target = NULL;
    pthread_mutex_unlock(&csr_timer_lock);
    csr_object_release_owned(target);
    CSR_SUPER_DEALLOC();
}
@end

CSRObject csr_timer_proxy_new(CSRObject target, CSRSelector selector) {
    CSRTimerProxy *proxy = [[CSRTimerProxy alloc] init];
    proxy->_target = csr_object_retain_owned(target);
    proxy->_selector = (SEL)selector;
    return CSR_PASS_RETAINED_NEW(proxy);
}

CSRSelector csr_timer_proxy_selector(void) {
    SEL selector = @selector(csr_fire:);
    return (CSRSelector)(void *)selector;
}

void csr_timer_proxy_clear(CSRObject proxy) {
    pthread_mutex_lock(&csr_timer_lock);
    ((CSR_BRIDGE CSRTimerProxy *)proxy)->_target = NULL;   // being deallocated: never released or messaged again
    pthread_mutex_unlock(&csr_timer_lock);
}

bool csr_timer_is_proxy(CSRObject object) { return csr_is_kind(object, [CSRTimerProxy class]); }

void csr_timer_invalidate(CSRObject timer) { [(CSR_BRIDGE NSTimer *)timer invalidate]; }

bool csr_object_is_class(CSRObject object) {
    return object && class_isMetaClass(object_getClass((CSR_BRIDGE id)object)) ? true : false;
}
