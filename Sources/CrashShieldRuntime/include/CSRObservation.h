// CSRObservation.h: key-value observing plumbing that only Objective-C can do: the proxy object Foundation sees as
// the observer, change dictionaries, and the messages KVO sends.
#ifndef CSR_OBSERVATION_H
#define CSR_OBSERVATION_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Called by every KVO proxy's `-observeValueForKeyPath:ofObject:change:context:`.
typedef void (*CSRKVOHandler)(CSRObject proxy, CSRObject keyPath, CSRObject object, CSRObject change, void *context);
/// Sets the handler proxies call (NULL: proxies ignore changes).
void csr_kvo_set_handler(CSRKVOHandler handler);
/// A new KVO proxy. +1: the caller releases it (`csr_object_release_owned`).
CSRObject csr_kvo_proxy_new(void) CSR_RETURNS_RETAINED;
/// YES when `object` is a KVO proxy.
bool csr_kvo_is_proxy(CSRObject object);
/// `[object copy]`. +1: the caller releases it (`csr_object_release_owned`); NULL for NULL.
CSRObject csr_object_copy_owned(CSRObject object) CSR_RETURNS_RETAINED;
/// `[object retain]`: +1, the caller owns one more reference and releases it (`csr_object_release_owned`); NULL for
/// NULL.
CSRObject csr_object_retain_owned(CSRObject object) CSR_RETURNS_RETAINED;
/// Releases one reference the caller owns (a +1 result of a `_new`/`_owned` function; NULL is ignored).
void csr_object_release_owned(CSRObject object);

/// `[observed addObserver:observer forKeyPath:keyPath options:options context:context]` (a plain message send).
void csr_kvo_add(CSRObject observed, CSRObject observer, CSRObject keyPath, unsigned long options, void *context);
/// `[observed removeObserver:observer forKeyPath:keyPath]` (a plain message send).
void csr_kvo_remove(CSRObject observed, CSRObject observer, CSRObject keyPath);
/// Removes the registration of `observer` for `keyPath` with `context` (Apple: `removeObserver:forKeyPath:context:`;
/// GNUstep, which keeps one registration per observer and key path: `removeObserver:forKeyPath:`).
void csr_kvo_remove_registration(CSRObject observed, CSRObject observer, CSRObject keyPath, void *context);
/// Whether Foundation has any key-value observer registered with `object` (`-observationInfo` is not NULL).
bool csr_kvo_has_observation_info(CSRObject object);
/// Called with the observer when an exception leaves its `-observeValueForKeyPath:ofObject:change:context:`.
typedef void (*CSRKVOUnwind)(CSRObject observer);
/// `[observer observeValueForKeyPath:keyPath ofObject:object change:change context:context]`. When that raises,
/// `onUnwind(observer)` runs (if not NULL) before the exception goes on to the caller's handler.
void csr_kvo_deliver(CSRObject observer, CSRObject keyPath, CSRObject object, CSRObject change, void *context,
                     CSRKVOUnwind onUnwind);
/// YES when the observer's class overrides NSObject's `-observeValueForKeyPath:ofObject:change:context:`.
bool csr_kvo_observer_handles(CSRObject observer);
/// `change` without the new and/or old value. +0: `change` itself when nothing is removed (borrowed from the
/// caller); else a copy, autoreleased (alive until the current pool drains, which the delivery to the observer runs
/// inside).
CSRObject csr_kvo_change_filtered(CSRObject change, bool keepNew, bool keepOld);
/// YES when `change` is a prior notification (NSKeyValueChangeNotificationIsPriorKey).
bool csr_kvo_change_is_prior(CSRObject change);

// MARK: Observed objects Foundation forgets by itself (Docs/AppleRuntime.md §5)

/// Whether the running Foundation forgets an observed object's remaining observers when the object is deallocated,
/// for keys its class notifies automatically (Apple: iOS 11, macOS 10.13 and later), and the runtime can tell the
/// guard when such an object is gone without a `-dealloc` hook (associated objects). GNUstep: false, unless emulated.
bool csr_kvo_foundation_forgets_dead_observed_objects(void);
/// Whether the running Foundation raises when an observed object whose observers it has not forgotten (above) is
/// deallocated with observers registered. Apple: yes (NSInternalInconsistencyException). GNUstep 1.28: no, for any
/// key (GSKVOBase's -dealloc drops the observation info), unless Apple is emulated. The guard still watches such an
/// object on GNUstep, to clean up its own entry, but reports its death only where Foundation raises.
bool csr_kvo_foundation_raises_for_dead_observed_objects(void);
/// Whether the class of `object` notifies observers of the first key of `keyPath` automatically
/// (`+automaticallyNotifiesObserversForKey:`) and keeps KVO's state in NSObject's own `observationInfo` accessors:
/// the two conditions of Apple's relaxed rule.
bool csr_kvo_class_notifies_automatically(CSRObject object, CSRObject keyPath);
/// Called with `token` when an object marked by `csr_kvo_mark_end` is destroyed (or its mark is replaced).
typedef void (*CSRKVOEndHandler)(uintptr_t address, uintptr_t token);
void csr_kvo_set_end_handler(CSRKVOEndHandler handler);
/// Marks `object` so that the end handler runs with (its address, `token`) when it is destroyed. Apple: an associated
/// object, released by `objc_destructInstance` after the object's whole `-dealloc` chain, before its memory is freed.
/// Only where `csr_kvo_foundation_forgets_dead_observed_objects()`.
void csr_kvo_mark_end(CSRObject object, uintptr_t token);
/// Test only: make GNUstep answer as Apple's Foundation (iOS 11+) does. GCC's libobjc has no associated objects: the
/// marks are kept in a table, and the test ends them (`csr_test_kvo_destroyed`) right after releasing the object,
/// where Apple's `objc_destructInstance` would.
void csr_test_emulateAppleKVO(bool emulate);
/// Test only (emulation): the object at `address` was destroyed: runs the end handler for its mark, if any.
void csr_test_kvo_destroyed(uintptr_t address);

/// `[object doesNotRecognizeSelector:selector]` (raises).
void csr_object_does_not_recognize(CSRObject object, CSRSelector selector);
/// `[object respondsToSelector:selector]`.
bool csr_object_responds(CSRObject object, CSRSelector selector);

#ifdef __cplusplus
}
#endif
#endif
