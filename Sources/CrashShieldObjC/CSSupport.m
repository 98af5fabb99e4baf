// CSSupport.m: see CSSupport.h.
#import "CSSupport.h"
#include <stdlib.h>

NSString *const CSErrorDomain = @"CrashShieldErrorDomain";

void CSReleaseContext(void *context) {
    if (!context) return;
#if __has_feature(objc_arc)
    (void)(__bridge_transfer id)context;
#else
    [(id)context release];
#endif
}

static BOOL CSFail(NSInteger code, NSString *text, NSError **error) {
    if (error) {
        *error = [NSError errorWithDomain:CSErrorDomain code:code
                                 userInfo:@{NSLocalizedDescriptionKey: text}];
    }
    return NO;
}

BOOL CSBridgeResult(int32_t status, char *message, NSError **error) {
    NSString *text = message ? [NSString stringWithUTF8String:message] : nil;
    free(message);
    if (status == 0) return YES;
    return CSFail(status, text ?: @"CrashShield could not do it", error);
}

BOOL CSInvalidArgument(NSString *text, NSError **error) {
    return CSFail(CSErrorInvalidArgument, text, error);
}

@implementation CSBlockBox

- (instancetype)initWithBlock:(id)block {
    if ((self = [super init])) _block = CS_BLOCK_COPY(block);
    return self;
}

- (void)dealloc {
    CS_BLOCK_RELEASE(_block);
    CS_SUPER_DEALLOC();
}

@end
