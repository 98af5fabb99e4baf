// CSBKernels.m: valid hot-path calls, timed with a monotonic clock around the loop.
#include "CrashShieldBenchKernels.h"
#include "CSBSupport.h"

/// `[array objectAtIndex: i]` (`subscript` false) or `array[i]` (true: what the subscript syntax compiles to).
static double arrayRead(unsigned long iterations, bool subscript) {
    double ns;
    @autoreleasepool {
        NSArray *array = csb_opaque([NSArray arrayWithObjects: @"a", @"b", @"c", @"d", @"e", @"f", @"g", @"h", nil]);
        uintptr_t sink = 0;
        double start = csb_now();
        if (subscript) {
            for (unsigned long i = 0; i < iterations; i++) sink ^= (uintptr_t)[array objectAtIndexedSubscript: i & 7];
        } else {
            for (unsigned long i = 0; i < iterations; i++) sink ^= (uintptr_t)[array objectAtIndex: i & 7];
        }
        ns = (csb_now() - start) / (double)iterations;
        csb_opaque((__bridge id)(void *)sink == nil ? nil : array);
    }
    return ns;
}

static double objectAtIndex(unsigned long iterations) { return arrayRead(iterations, false); }
static double objectAtIndexedSubscript(unsigned long iterations) { return arrayRead(iterations, true); }

static double objectForKey(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        id keys[4] = { @"k0", @"k1", @"k2", @"k3" };
        NSDictionary *dictionary = csb_opaque([NSDictionary dictionaryWithObjects: keys forKeys: keys count: 4]);
        uintptr_t sink = 0;
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) sink ^= (uintptr_t)[dictionary objectForKey: keys[i & 3]];
        ns = (csb_now() - start) / (double)iterations;
        csb_opaque((__bridge id)(void *)sink == nil ? nil : dictionary);
    }
    return ns;
}

static double setObjectForKey(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        id keys[4] = { @"k0", @"k1", @"k2", @"k3" };
        NSMutableDictionary *dictionary = csb_opaque([NSMutableDictionary dictionaryWithCapacity: 8]);
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) [dictionary setObject: keys[(i + 1) & 3] forKey: keys[i & 3]];
        ns = (csb_now() - start) / (double)iterations;
    }
    return ns;
}

static double addObject(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSMutableArray *array = csb_opaque([NSMutableArray arrayWithCapacity: 1024]);
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) {
            [array addObject: @"x"];
            if ((i & 1023) == 1023) [array removeAllObjects];
        }
        ns = (csb_now() - start) / (double)iterations;
    }
    return ns;
}

static double substringWithRange(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSString *string = csb_opaque([NSString stringWithUTF8String: "benchmark string"]);
        uintptr_t sink = 0;
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) {
            @autoreleasepool { sink ^= (uintptr_t)[string substringWithRange: NSMakeRange(i & 7, 4)]; }
        }
        ns = (csb_now() - start) / (double)iterations;
        csb_opaque((__bridge id)(void *)sink == nil ? nil : string);
    }
    return ns;
}

static double characterAtIndex(unsigned long iterations) {
    double ns;
    @autoreleasepool {
        NSString *string = csb_opaque([NSString stringWithUTF8String: "benchmark string"]);
        unsigned long sink = 0;
        double start = csb_now();
        for (unsigned long i = 0; i < iterations; i++) sink += [string characterAtIndex: i & 15];
        ns = (csb_now() - start) / (double)iterations;
        csb_opaque(sink == 0 ? nil : string);
    }
    return ns;
}

/// A small keyed archive unarchived (the unarchiver's initializer runs under `@try` when guarded). A cold call next to
/// the hot reads: it makes one call per 100 iterations.
static double unarchiveObjectWithData(unsigned long iterations) {
    double ns;
    unsigned long calls = iterations / 100 + 1;
    @autoreleasepool {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
        NSArray *root = [NSArray arrayWithObjects: @"a", @"b", nil];
        NSData *archive = csb_opaque([NSKeyedArchiver archivedDataWithRootObject: root]);
        uintptr_t sink = 0;
        double start = csb_now();
        for (unsigned long i = 0; i < calls; i++) {
            @autoreleasepool { sink ^= (uintptr_t)[NSKeyedUnarchiver unarchiveObjectWithData: archive]; }
        }
#pragma clang diagnostic pop
        ns = (csb_now() - start) / (double)calls;
        csb_opaque(sink == 0 ? nil : archive);
    }
    return ns;
}

/// An app class (defined in the benchmark's own binary, so the zombie guard protects it).
@interface CSBAppObject : NSObject {
    long state[4];
}
@end
@implementation CSBAppObject
@end

/// Stands in for UIView: its setNeedsLayout is configured main-thread-only by the benchmark.
@interface CSBView : NSObject {
@public
    unsigned long layouts;
}
- (void)setNeedsLayout;
@end
@implementation CSBView
- (void)setNeedsLayout { layouts++; }
@end

static double appObjectAllocRelease(unsigned long iterations) {
    double start = csb_now();
    for (unsigned long i = 0; i < iterations; i++) {
        CSBAppObject *object = [[CSBAppObject alloc] init];
        CSB_RELEASE(csb_opaque(object));
    }
    return (csb_now() - start) / (double)iterations;
}

static double systemObjectAllocRelease(unsigned long iterations) {
    double start = csb_now();
    for (unsigned long i = 0; i < iterations; i++) {
        NSObject *object = [[NSObject alloc] init];
        CSB_RELEASE(csb_opaque(object));
    }
    return (csb_now() - start) / (double)iterations;
}

/// An app class whose -dealloc the dealloc watcher hooks: one of its objects observes a notification once (the first
/// call, the warm-up), which with the notification guard on hooks the class; then objects nobody watches come and go.
@interface CSBWatchedObject : NSObject
- (void)ping:(NSNotification *)notification;
@end
@implementation CSBWatchedObject
- (void)ping:(NSNotification *)notification { (void)notification; }
@end

static double watchedClassAllocRelease(unsigned long iterations) {
    static int observedOnce;
    if (!observedOnce) {
        observedOnce = 1;
        CSBWatchedObject *observer = [[CSBWatchedObject alloc] init];
        NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
        [center addObserver:observer selector:@selector(ping:) name:@"CSBWatchedPing" object:nil];
        [center removeObserver:observer];
        CSB_RELEASE(observer);
    }
    double start = csb_now();
    for (unsigned long i = 0; i < iterations; i++) {
        CSBWatchedObject *object = [[CSBWatchedObject alloc] init];
        CSB_RELEASE(csb_opaque(object));
    }
    return (csb_now() - start) / (double)iterations;
}

static double setNeedsLayoutOnMain(unsigned long iterations) {
    CSBView *view = csb_opaque([[CSBView alloc] init]);
    double start = csb_now();
    for (unsigned long i = 0; i < iterations; i++) [view setNeedsLayout];
    double ns = (csb_now() - start) / (double)iterations;
    CSB_RELEASE(view);
    return ns;
}

double csb_replace_characters(unsigned long iterations);
double csb_insert_string(unsigned long iterations);
double csb_string_by_replacing_characters(unsigned long iterations);
double csb_append_attributed(unsigned long iterations);
double csb_insert_attributed(unsigned long iterations);
double csb_set_attributed(unsigned long iterations);
double csb_replace_with_attributed(unsigned long iterations);

static const CSBBenchmark csb_table[] = {
    { "objectAtIndex:", objectAtIndex, "container" },
    { "array[i]", objectAtIndexedSubscript, "container" },
    { "objectForKey:", objectForKey, "container" },
    { "setObject:forKey:", setObjectForKey, "container" },
    { "addObject:", addObject, "container" },
    { "substringWithRange:", substringWithRange, "string" },
    { "characterAtIndex:", characterAtIndex, "string" },
    { "unarchiveObjectWithData:", unarchiveObjectWithData, "container" },
    { "alloc+release app", appObjectAllocRelease, "zombie" },
    { "alloc+release app+st", appObjectAllocRelease, "zombie/stack" },
    { "alloc+release NSObj", systemObjectAllocRelease, "zombie" },
    { "setNeedsLayout main", setNeedsLayoutOnMain, "mainThreadUI" },
    { "dealloc watched class", watchedClassAllocRelease, "notification" },
    { "replaceCharactersInRange:withString:", csb_replace_characters, "string" },
    { "insertString:atIndex:", csb_insert_string, "string" },
    { "stringByReplacingCharactersInRange:", csb_string_by_replacing_characters, "string" },
    { "appendAttributedString:", csb_append_attributed, "string" },
    { "insertAttributedString:atIndex:", csb_insert_attributed, "string" },
    { "setAttributedString:", csb_set_attributed, "string" },
    { "replace...withAttributedString:", csb_replace_with_attributed, "string" },
};

const CSBBenchmark *csb_benchmarks(int *count) {
    *count = (int)(sizeof csb_table / sizeof csb_table[0]);
    return csb_table;
}

double csb_run_measured(CSBKernel kernel, unsigned long iterations) { return kernel(iterations); }

#define CSB_STRING(x) CSB_STRING_(x)
#define CSB_STRING_(x) #x
const char *csb_foundation_version(void) {
#if defined(GNUSTEP_BASE_VERSION)
    return CSB_STRING(GNUSTEP_BASE_VERSION);
#else
    return "Apple";  // Apple's Foundation has no GNUstep version
#endif
}
