// CSRMainThreadGNUstep.m: the main-thread guard's platform answer on GNUstep (CSRMainThreadPlatform.h). A phone never
// compiles this file: there libdispatch's main queue, which the main run loop drains, runs the call
// (Apple/CSRMainThreadApple.m); the Linux build links no libdispatch, and GNUstep's main run loop runs what
// -performSelectorOnMainThread: queues.
#if !defined(__APPLE__)
#import <Foundation/Foundation.h>
#include "../CSRMainThreadPlatform.h"

void csr_main_run_later(CSRMainCall *call) {
    [call performSelectorOnMainThread: @selector(run) withObject: nil waitUntilDone: NO];   // retains it until then
}
#endif
