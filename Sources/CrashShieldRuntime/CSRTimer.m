// CSRTimer.m: the timer guard's Objective-C half: the proxy that stands between a timer and its target (see
// CSRTimer.h).
#import <Foundation/Foundation.h>
#import <objc/runtime.h>   // Apple: not re-exported by Foundation under modules
#include <pthread.h>
#include "CSRMemory.h"
#include "CSRKind.h"
#include "CSRTimer.h"
#include "CSRObservation.h"   // csr_object_retain_owned, csr_object_release_owned

#if __has_feature(objc_arc)
#define CSR_SUPER_DEALLOC() ((void)0)
#else
#define CSR_SUPER_DEALLOC() [super dealloc]
#endif

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
