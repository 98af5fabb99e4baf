// CSRMainThreadPlatform.h (private to the runtime layer): what CSRMainThread.m asks of the platform to run a call on
// the main thread later. Each platform's answer is a whole file: Apple/CSRMainThreadApple.m (libdispatch's main
// queue: what a phone runs) and GNUstep/CSRMainThreadGNUstep.m (the main thread's run loop); each compiles to nothing
// on the other.
#ifndef CSR_MAIN_THREAD_PLATFORM_H
#define CSR_MAIN_THREAD_PLATFORM_H

#import <Foundation/Foundation.h>
#include "CSRMainThread.h"

/// One call waiting for the main thread (CSRMainThread.m): `-run` makes it.
@interface CSRMainCall : NSObject {
@public
    id receiver;
    SEL selector;
    IMP implementation;
    CSRCallShape shape;
    id object;
    long word;
    double number;
    CSRRect rect;
}
- (void)run;
@end

/// Sends `call` `-run` on the main thread later, inside an autorelease pool, and keeps it alive until then. The caller
/// keeps its own reference.
void csr_main_run_later(CSRMainCall *call);

#endif
