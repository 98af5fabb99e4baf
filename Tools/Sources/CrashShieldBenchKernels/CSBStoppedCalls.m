// CSBStoppedCalls.m: one bad call per guard family, repeated at one call site (what a bug in a loop costs once the
// guard stops it), and app classes made at run time (to see whether start() grows with the number of classes).
// Each stopped-call kernel crashes without its guard: run it only with that guard on.
#include "CrashShieldBenchKernels.h"
#include "CSBSupport.h"
#include <objc/runtime.h>

/// An app class (defined in the benchmark's own binary, so the unrecognized-selector guard protects it).
@interface CSBProfile : NSObject
@end
@implementation CSBProfile
@end

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wundeclared-selector"
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"

/// Times `iterations` runs of `body` (a block would need -fblocks, which GCC's runtime build does not use).
#define CSB_TIME_LOOP(iterations, body) ({                                                    \
    double start_ = csb_now();                                                                \
    for (unsigned long i_ = 0; i_ < (iterations); i_++) { @autoreleasepool { body; } }        \
    (csb_now() - start_) / (double)(iterations);                                              \
})

static double badObjectAtIndex(unsigned long iterations) {
    @autoreleasepool {
        NSArray *array = csb_opaque([NSArray arrayWithObjects: @"a", @"b", @"c", nil]);
        return CSB_TIME_LOOP(iterations, csb_opaque([array objectAtIndex: 3]));
    }
}

static double badSetObjectForKey(unsigned long iterations) {
    @autoreleasepool {
        NSMutableDictionary *dictionary = csb_opaque([NSMutableDictionary dictionary]);
        return CSB_TIME_LOOP(iterations, [dictionary setObject: csb_opaque(nil) forKey: @"k"]);
    }
}

static double badSubstringFromIndex(unsigned long iterations) {
    @autoreleasepool {
        NSString *string = csb_opaque([NSString stringWithUTF8String: "short"]);
        return CSB_TIME_LOOP(iterations, csb_opaque([string substringFromIndex: 99]));
    }
}

static double badValueForKey(unsigned long iterations) {
    @autoreleasepool {
        CSBProfile *profile = csb_opaque(CSB_AUTORELEASE([[CSBProfile alloc] init]));
        return CSB_TIME_LOOP(iterations, csb_opaque([profile valueForKey: @"nickname"]));
    }
}

static double badAddObserverEmptyKeyPath(unsigned long iterations) {
    @autoreleasepool {
        CSBProfile *profile = csb_opaque(CSB_AUTORELEASE([[CSBProfile alloc] init]));
        NSObject *observer = csb_opaque(CSB_AUTORELEASE([[NSObject alloc] init]));
        return CSB_TIME_LOOP(iterations, [profile addObserver: observer forKeyPath: @"" options: 0 context: NULL]);
    }
}

static double badUnrecognizedSelector(unsigned long iterations) {
    @autoreleasepool {
        CSBProfile *profile = csb_opaque(CSB_AUTORELEASE([[CSBProfile alloc] init]));
        SEL missing = NSSelectorFromString(@"refreshToken");
        return CSB_TIME_LOOP(iterations, csb_opaque([profile performSelector: missing]));
    }
}

static double badNSNullMessage(unsigned long iterations) {
    @autoreleasepool {
        id null = csb_opaque([NSNull null]);
        return CSB_TIME_LOOP(iterations, csb_opaque([(NSString *)null length] == 0 ? nil : null));
    }
}

static double badNilObserver(unsigned long iterations) {
    @autoreleasepool {
        NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
        return CSB_TIME_LOOP(iterations, [center addObserver: csb_opaque(nil) selector: @selector(description)
                                                        name: @"CSBBench.Note" object: nil]);
    }
}

#pragma clang diagnostic pop

static const CSBBenchmark csb_stopped_table[] = {
    { "objectAtIndex: past the end", badObjectAtIndex, "container" },
    { "setObject:nil forKey:", badSetObjectForKey, "container" },
    { "substringFromIndex: past the end", badSubstringFromIndex, "string" },
    { "valueForKey: undefined key", badValueForKey, "kvc" },
    { "addObserver: empty key path", badAddObserverEmptyKeyPath, "kvo" },
    { "unrecognized selector (app class)", badUnrecognizedSelector, "unrecognizedSelector" },
    { "length sent to NSNull", badNSNullMessage, "nsNull" },
    { "addObserver:nil (notification)", badNilObserver, "notification" },
};

const CSBBenchmark *csb_stopped_calls(int *count) {
    *count = (int)(sizeof csb_stopped_table / sizeof csb_stopped_table[0]);
    return csb_stopped_table;
}

static id csbAppMethod(id self, SEL _cmd) { return self; }

int csb_register_app_classes(int count) {
    static int made = 0;
    char name[64];
    int registered = 0;
    for (int i = 0; i < count; i++) {
        snprintf(name, sizeof name, "CSBGeneratedAppClass%d", made + i);
        Class cls = objc_allocateClassPair([NSObject class], name, 0);
        if (cls == Nil) continue;
        // An app class has methods of its own: a few per class.
        class_addMethod(cls, sel_registerName("viewDidLoad"), (IMP)csbAppMethod, "@@:");
        class_addMethod(cls, sel_registerName("reload"), (IMP)csbAppMethod, "@@:");
        objc_registerClassPair(cls);
        registered++;
    }
    made += count;
    return registered;
}

/// The receiver of the forwarding lookup measurement: a class in this binary, as an app's model class is in the app.
@interface CSBForwardingReceiver : NSObject
@end
@implementation CSBForwardingReceiver
@end

void *csb_forwarding_receiver(void) {
#if __has_feature(objc_arc)
    return (__bridge_retained void *)[[CSBForwardingReceiver alloc] init];
#else
    return (void *)[[CSBForwardingReceiver alloc] init];
#endif
}
