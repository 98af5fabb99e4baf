// CSRNotification.h: notification plumbing that only Objective-C can do (CSRNotification.m): the message sends of
// NSNotificationCenter and the trampoline observer behind closure-based observation.
#ifndef CSR_NOTIFICATION_H
#define CSR_NOTIFICATION_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `[NSNotificationCenter defaultCenter]`. +0, borrowed (a singleton).
CSRObject csr_notification_default_center(void);
/// `[center addObserver:observer selector:selector name:name object:object]`.
void csr_notification_add(CSRObject center, CSRObject observer, CSRSelector selector, CSRObject name, CSRObject object);
/// `[center removeObserver:observer name:name object:object]`.
void csr_notification_remove(CSRObject center, CSRObject observer, CSRObject name, CSRObject object);
/// `[notification name]`, `[notification object]`, `[notification userInfo]`. +0, borrowed: alive as long as the
/// notification.
CSRObject csr_notification_name(CSRObject notification);
CSRObject csr_notification_object(CSRObject notification);
CSRObject csr_notification_userInfo(CSRObject notification);
/// Posts `[NSNotification notificationWithName:name object:object userInfo:userInfo]` through `center` on `thread`
/// (`performSelector:onThread:withObject:waitUntilDone:`; the thread must run its run loop). NULL thread: posts now,
/// on the calling thread.
void csr_notification_post(CSRObject center, CSRObject name, CSRObject object, CSRObject userInfo, CSRObject thread,
                           bool waitUntilDone);

/// `[NSThread mainThread]`. +0, borrowed (lives for the process).
CSRObject csr_nsthread_main(void);

/// Whether the running NSNotificationCenter never messages a deallocated selector-based observer: Apple since
/// OS X 10.11 / iOS 9 (every OS the package supports); GNUstep Base 1.28 does message it (false), unless a test
/// emulates Apple's center.
bool csr_notification_center_forgets_deallocated_observers(void);
/// Test switch (GNUstep only; nothing on Apple): makes the check above answer as Apple's center does. GNUstep still
/// messages a deallocated observer: a test that sets it must not post to one.
void csr_test_emulateAppleNotificationCenter(bool emulate);

/// Called by every trampoline's `-csr_receive:` with the trampoline and the notification.
typedef void (*CSRNotificationHandler)(CSRObject trampoline, CSRObject notification);
void csr_notification_set_handler(CSRNotificationHandler handler);
/// A new trampoline observer (selector `csr_notification_trampoline_selector()`). +1: the caller releases it
/// (`csr_object_release_owned`).
CSRObject csr_notification_trampoline_new(void) CSR_RETURNS_RETAINED;
CSRSelector csr_notification_trampoline_selector(void);
/// YES when `object` is a trampoline.
bool csr_notification_is_trampoline(CSRObject object);

#ifdef __cplusplus
}
#endif
#endif
