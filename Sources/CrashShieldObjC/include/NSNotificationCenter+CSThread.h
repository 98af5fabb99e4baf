// NSNotificationCenter+CSThread.h: post a notification whose observers run on a given thread.
#import "CSTypes.h"

NS_ASSUME_NONNULL_BEGIN

/// Posting where the observers' handlers run: every handler of the post, registered with
/// `addObserver:selector:name:object:` or with `-[NSObject cs_observeNotificationName:...]`, runs on `thread`:
/// - `[NSThread mainThread]`: on the main thread, from its run loop (UI work in handlers is safe);
/// - a background NSThread: from its run loop, which that thread must run (as for `performSelector:onThread:...`);
/// - nil: now, on the caller's thread (what `postNotification:` does).
/// With a thread and `waitUntilDone` YES, the call returns after every handler returned. Works whether CrashShield
/// is started or not. Swift apps: `NotificationPoster.post(name:object:userInfo:on:)`.
@interface NSNotificationCenter (CSThread)

- (void)cs_postNotification:(NSNotification *)notification onThread:(nullable NSThread *)thread
              waitUntilDone:(BOOL)waitUntilDone CS_OBJC_ONLY;
- (void)cs_postNotificationName:(NSString *)name object:(nullable id)object
                       userInfo:(nullable NSDictionary *)userInfo onThread:(nullable NSThread *)thread
                  waitUntilDone:(BOOL)waitUntilDone CS_OBJC_ONLY;
/// Without waiting.
- (void)cs_postNotificationName:(NSString *)name object:(nullable id)object
                       onThread:(nullable NSThread *)thread CS_OBJC_ONLY;

@end

NS_ASSUME_NONNULL_END
