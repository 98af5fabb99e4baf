// CSRNotification.m: the notification guard's Objective-C half (see CSRNotification.h).
#import <Foundation/Foundation.h>
#import <objc/runtime.h>   // Apple: not re-exported by Foundation under modules
#include "CSRMemory.h"
#include "CSRKind.h"
#include "CSRNotification.h"

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

// What the running center does with deallocated observers (`csr_notification_center_forgets_deallocated_observers`,
// `csr_test_emulateAppleNotificationCenter`): each Foundation's answer is a whole file, Apple/CSRNotificationApple.m
// and GNUstep/CSRNotificationGNUstep.m.

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

bool csr_notification_is_trampoline(CSRObject object) {
    return csr_is_kind(object, [CSRNotificationTrampoline class]);
}
