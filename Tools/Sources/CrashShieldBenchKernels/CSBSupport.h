// CSBSupport.h: what every kernel file shares (private to CrashShieldBenchKernels).
#ifndef CSB_SUPPORT_H
#define CSB_SUPPORT_H
#import <Foundation/Foundation.h>
#include <time.h>

static inline double csb_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/// Hides a value from the optimizer.
static inline id csb_opaque(id object) { __asm__ volatile("" : : "r"(object) : "memory"); return object; }

#if __has_feature(objc_arc)
#define CSB_RELEASE(object) ((void)0)
#define CSB_AUTORELEASE(object) (object)
#else
#define CSB_AUTORELEASE(object) [(object) autorelease]
#define CSB_RELEASE(object) [(object) release]
#endif
#endif
