// CSRTimer.h: the timer guard's Objective-C half (CSRTimer.m): the proxy that stands between an NSTimer and its
// target.
#ifndef CSR_TIMER_H
#define CSR_TIMER_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Events a timer proxy reports.
typedef enum CSRTimerEvent {
    /// The proxy is being deallocated (its timer released it); it releases its target right after the handler.
    CSRTimerEventProxyDeallocating = 1,
} CSRTimerEvent;
typedef void (*CSRTimerHandler)(CSRTimerEvent event, CSRObject proxy);
void csr_timer_set_handler(CSRTimerHandler handler);
/// A new proxy (+1, owned by the caller) that retains `target` and forwards each fire to it with `selector` (what
/// NSTimer's -fire sends); it releases the target when it is deallocated. Once its target is cleared
/// (`csr_timer_proxy_clear`), a fire invalidates the timer instead.
CSRObject csr_timer_proxy_new(CSRObject target, CSRSelector selector) CSR_RETURNS_RETAINED;
/// The selector a timer must send to a proxy.
CSRSelector csr_timer_proxy_selector(void);
/// The target is being deallocated while the proxy holds it (it was over-released): the proxy drops it without
/// releasing it and invalidates its timer at the next fire.
void csr_timer_proxy_clear(CSRObject proxy);
/// YES when `object` is a timer proxy.
bool csr_timer_is_proxy(CSRObject object);
/// `[timer invalidate]`.
void csr_timer_invalidate(CSRObject timer);
/// YES when `object` is a class (a class object, not an instance).
bool csr_object_is_class(CSRObject object);

#ifdef __cplusplus
}
#endif
#endif
