// NSNotificationCenter+CSThread.m: posting whose observers run on a given thread, on NotificationPoster's engine (csbridge_post_notification).
#import "NSNotificationCenter+CSThread.h"
#import "CSBridge.h"
#import "CSSupport.h"

@implementation NSNotificationCenter (CSThread)

- (void)cs_postNotification:(NSNotification *)notification onThread:(NSThread *)thread
              waitUntilDone:(BOOL)waitUntilDone {
    if (![notification isKindOfClass:[NSNotification class]]) return;
    [self cs_postNotificationName:[notification name] object:[notification object] userInfo:[notification userInfo]
                         onThread:thread waitUntilDone:waitUntilDone];
}

- (void)cs_postNotificationName:(NSString *)name object:(id)object userInfo:(NSDictionary *)userInfo
                       onThread:(NSThread *)thread waitUntilDone:(BOOL)waitUntilDone {
    // Foundation raises for a nil name; a post nobody can observe is dropped instead.
    if (![name isKindOfClass:[NSString class]]) return;
    csbridge_post_notification((CSR_BRIDGE void *)self, (CSR_BRIDGE void *)name, (CSR_BRIDGE void *)object,
                               (CSR_BRIDGE void *)userInfo, (CSR_BRIDGE void *)thread, waitUntilDone ? true : false);
}

- (void)cs_postNotificationName:(NSString *)name object:(id)object onThread:(NSThread *)thread {
    [self cs_postNotificationName:name object:object userInfo:nil onThread:thread waitUntilDone:NO];
}

@end
