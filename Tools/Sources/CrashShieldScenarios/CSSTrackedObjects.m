// CSSTrackedObjects.m: small app-side classes whose objects tests create and release from Objective-C, and that
// count their own deallocations. Tests use them instead of Foundation classes, so hooks they cause stay on these.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <string.h>
#include <pthread.h>
#include "CrashShieldScenarios.h"

static long css_count_tracked, css_count_child, css_count_unwatched, css_count_nestBase, css_count_nestDerived;

#if __has_feature(objc_arc)
#define CSS_SUPER_DEALLOC() ((void)0)
#else
#define CSS_SUPER_DEALLOC() [super dealloc]
#endif
#if __has_feature(objc_arc)
#define CSS_BRIDGE __bridge
#else
#define CSS_BRIDGE
#endif
#define CSS_COUNT(counter) __atomic_fetch_add(&(counter), 1, __ATOMIC_RELAXED)

/// Overrides -dealloc.
@interface CSSTrackedObject : NSObject
@end
@implementation CSSTrackedObject
- (void)dealloc { CSS_COUNT(css_count_tracked); CSS_SUPER_DEALLOC(); }
@end

#if !__has_feature(objc_arc)
/// Frees its objects by its own -release, without -dealloc, as Apple's toll-free-bridged classes do (their -release is
/// CFRelease's: `_CFRelease` finalizes and frees). Manual reference counting only (ARC forbids overriding -release).
@interface CSSSelfFreeingObject : CSSTrackedObject
@end
@implementation CSSSelfFreeingObject
- (oneway void)release {
    if (NSDecrementExtraRefCountWasZero(self)) NSDeallocateObject(self);
}
@end
#endif

/// Subclass of a tracked class that overrides -dealloc and calls super.
@interface CSSTrackedChild : CSSTrackedObject
@end
@implementation CSSTrackedChild
- (void)dealloc { CSS_COUNT(css_count_child); CSS_SUPER_DEALLOC(); }
@end

/// Inherits -dealloc from NSObject.
@interface CSSInheritingObject : NSObject
@end
@implementation CSSInheritingObject
@end

/// Never gets side storage in the tests: its -dealloc must stay untouched.
@interface CSSUnwatchedObject : NSObject
@end
@implementation CSSUnwatchedObject
- (void)dealloc { CSS_COUNT(css_count_unwatched); CSS_SUPER_DEALLOC(); }
@end

/// A pair whose subclass gets watched before its superclass (both end up hooked).
@interface CSSNestBase : NSObject
@end
@implementation CSSNestBase
- (void)dealloc { CSS_COUNT(css_count_nestBase); CSS_SUPER_DEALLOC(); }
@end
@interface CSSNestDerived : CSSNestBase
@end
@implementation CSSNestDerived
- (void)dealloc { CSS_COUNT(css_count_nestDerived); CSS_SUPER_DEALLOC(); }
@end

/// Used by the address-reuse and concurrency tests.
@interface CSSReuseObject : NSObject
@end
@implementation CSSReuseObject
@end
@interface CSSConcurrentObject : NSObject
@end
@implementation CSSConcurrentObject
@end

void *css_object_new(const char *className) {
    Class cls = className ? objc_lookUpClass(className) : Nil;
    if (cls == Nil) return NULL;
#if __has_feature(objc_arc)
    return (__bridge_retained void *)[[cls alloc] init];
#else
    return (void *)[[cls alloc] init];
#endif
}

void css_object_release(void *object) {
    if (object == NULL) return;
#if __has_feature(objc_arc)
    id released = (__bridge_transfer id)object;
    released = nil;
#else
    [(id)object release];
#endif
}

long css_dealloc_count(const char *className) {
    long *counter = NULL;
    if (strcmp(className, "CSSTrackedObject") == 0) counter = &css_count_tracked;
    else if (strcmp(className, "CSSTrackedChild") == 0) counter = &css_count_child;
    else if (strcmp(className, "CSSUnwatchedObject") == 0) counter = &css_count_unwatched;
    else if (strcmp(className, "CSSNestBase") == 0) counter = &css_count_nestBase;
    else if (strcmp(className, "CSSNestDerived") == 0) counter = &css_count_nestDerived;
    return counter ? __atomic_load_n(counter, __ATOMIC_RELAXED) : -1;
}

bool css_make_subclass(const char *superclassName, const char *name) {
    if (objc_lookUpClass(name) != Nil) return true;
    Class superclass = objc_lookUpClass(superclassName);
    if (superclass == Nil) return false;
    Class cls = objc_allocateClassPair(superclass, name, 0);
    if (cls == Nil) return false;
    objc_registerClassPair(cls);
    return true;
}

// MARK: Key-value observing (isa-swizzles the observed object to a subclass created at run time)

/// Observed after it gets side storage.
@interface CSSObservedObject : NSObject { int _level; }
- (int)level;
- (void)setLevel:(int)level;
@end
@implementation CSSObservedObject
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
@end

/// Observed before it gets side storage (not a subclass of CSSObservedObject: its hook must be its own).
@interface CSSObservedLateObject : NSObject { int _level; }
- (int)level;
- (void)setLevel:(int)level;
@end
@implementation CSSObservedLateObject
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
@end

@interface CSSKVOObserver : NSObject
@end
@implementation CSSKVOObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
}
@end

static CSSKVOObserver *css_kvo_observer;
static void css_kvo_makeObserver(void) { css_kvo_observer = [[CSSKVOObserver alloc] init]; }

static CSSKVOObserver *css_kvo_sharedObserver(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;   // no blocks (-fno-blocks), so no dispatch_once
    pthread_once(&once, css_kvo_makeObserver);
    return css_kvo_observer;
}

const char *css_kvo_observe(void *object) {
    id target = (CSS_BRIDGE id)object;
    [target addObserver: css_kvo_sharedObserver() forKeyPath: @"level" options: 0 context: NULL];
    [target setLevel: 1];
    return class_getName(object_getClass(target));
}

void css_kvo_unobserve(void *object) {
    id target = (CSS_BRIDGE id)object;
    [target removeObserver: css_kvo_sharedObserver() forKeyPath: @"level"];
}
