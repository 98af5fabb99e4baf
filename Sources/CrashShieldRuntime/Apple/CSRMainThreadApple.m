// CSRMainThreadApple.m: the main-thread guard's platform answer on Apple (CSRMainThreadPlatform.h): the code a phone
// runs. GNUstep's is GNUstep/CSRMainThreadGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include <dispatch/dispatch.h>
#include "../CSRMainThreadPlatform.h"

static void csr_main_call_run(void *context) {
#if __has_feature(objc_arc)
    CSRMainCall *call = (__bridge_transfer CSRMainCall *)context;
    @autoreleasepool { [call run]; }
#else
    CSRMainCall *call = (CSRMainCall *)context;
    @autoreleasepool { [call run]; }
    [call release];
#endif
}

void csr_main_run_later(CSRMainCall *call) {
#if __has_feature(objc_arc)
    dispatch_async_f(dispatch_get_main_queue(), (__bridge_retained void *)call, csr_main_call_run);
#else
    dispatch_async_f(dispatch_get_main_queue(), (void *)[call retain], csr_main_call_run);   // released by the call
#endif
}
#endif
