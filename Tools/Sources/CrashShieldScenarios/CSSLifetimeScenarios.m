// CSSLifetimeScenarios.m: messages to deallocated objects, and UI methods called off the main thread.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "CSSFamilies.h"

#if __has_feature(objc_arc)
// ARC forbids -release; an over-release in ARC code comes from a bridged CF release or an unsafe_unretained pointer.
extern void objc_release(id object);
#define CSS_OVER_RELEASE(object) objc_release(object)
#define CSS_SUPER_DEALLOC() ((void)0)
#define CSS_RELEASE(object) ((void)0)
#define CSS_UNRETAINED __unsafe_unretained
#else
#define CSS_OVER_RELEASE(object) [(object) release]
#define CSS_SUPER_DEALLOC() [super dealloc]
#define CSS_RELEASE(object) [(object) release]
#define CSS_UNRETAINED
#endif
#if __has_feature(objc_arc)
#define CSS_BRIDGE __bridge
#define CSS_BRIDGE_ID __bridge id
#define CSS_BRIDGE_RETAINED __bridge_retained
#else
#define CSS_BRIDGE
#define CSS_BRIDGE_ID id
#define CSS_BRIDGE_RETAINED
#endif
#define CSS_COUNT(counter) __atomic_fetch_add(&(counter), 1, __ATOMIC_RELAXED)

static long css_zombie_target_deallocs, css_zombie_part_deallocs;

// MARK: Zombies

/// What a CSSZombieTarget owns: its release by the target's -dealloc must still happen when the target becomes a
/// zombie.
@interface CSSZombiePart : NSObject
@end
@implementation CSSZombiePart
- (void)dealloc { CSS_COUNT(css_zombie_part_deallocs); CSS_SUPER_DEALLOC(); }
@end

/// An app object (200 bytes of state) that owns a part and counts its deallocations.
/// Four doubles: returned in memory on x86_64 (objc_msgSend_stret on Apple).
typedef struct CSSZombieFrame { double x, y, width, height; } CSSZombieFrame;

@interface CSSZombieTarget : NSObject {
    CSSZombiePart *part;
    char state[192];
}
- (long)value;
- (CSSZombieFrame)frame;
@end
@implementation CSSZombieTarget
- (instancetype)init {
    if ((self = [super init]) != nil) {
        part = [[CSSZombiePart alloc] init];
        memset(state, 7, sizeof state);
    }
    return self;
}
- (long)value { return 42; }
- (CSSZombieFrame)frame { return (CSSZombieFrame){ 1, 2, 3, 4 }; }
- (void)dealloc {
    CSS_COUNT(css_zombie_target_deallocs);
    CSS_RELEASE(part);
    CSS_SUPER_DEALLOC();
}
@end

/// Keeps a reference without owning it (an `assign` delegate, a cache of unretained pointers).
typedef struct CSSUnownedReference { CSS_UNRETAINED CSSZombieTarget *target; } CSSUnownedReference;

/// The target's only owner releases it, but a holder still points at it and messages it. Unprotected: GNUstep sets
/// a freed object's class pointer to 0xdeadface, so the message faults in the runtime's method lookup (SIGSEGV);
/// nothing allocates in between, so the freed memory is not reused.
static const char *messageAfterOverRelease(void) {
    CSSUnownedReference holder;
    CSSZombieTarget *target = [[CSSZombieTarget alloc] init];
    holder.target = target;
    CSS_OVER_RELEASE(target);                      // the last release: the holder never retained it
    long value = [(CSSZombieTarget *)css_opaque(holder.target) value];
    return css_format("%ld", value);
}

/// Released twice: the second -release is itself a message to a deallocated object.
static const char *releaseTwice(void) {
    CSSZombieTarget *target = [[CSSZombieTarget alloc] init];
    CSS_OVER_RELEASE(target);
    CSS_OVER_RELEASE(css_opaque(target));
    return "released twice";
}

/// A rectangle laid out as CGRect/NSRect on 64-bit platforms (NSRect exists only on macOS and GNUstep).
typedef struct CSSRect { double x, y, width, height; } CSSRect;

// MARK: A view whose layout methods are main-thread-only (UIKit's UIView does not exist here)

/// Records the thread each call ran on; off the main thread, raises what UIKit raises.
@interface CSSView : NSObject {
@public
    long mainCalls;
    long backgroundCalls;
    CSSRect lastRect;
    BOOL raisedOffMain;
}
- (void)setNeedsLayout;
- (void)setNeedsDisplay;
- (void)setNeedsDisplayInRect:(CSSRect)rect;
- (void)layoutIfNeeded;
- (void)setNeedsUpdateConstraints;
- (void)invalidateIntrinsicContentSize;
@end

@implementation CSSView
- (void)record {
    if ([NSThread isMainThread]) {
        __atomic_fetch_add(&mainCalls, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_add(&backgroundCalls, 1, __ATOMIC_RELAXED);
        [NSException raise: NSInternalInconsistencyException
                    format: @"Modifications to the layout engine must not be performed from a background thread "
                            @"after it has been accessed from the main thread."];
    }
}
- (void)setNeedsLayout { [self record]; }
- (void)setNeedsDisplay { [self record]; }
- (void)setNeedsDisplayInRect:(CSSRect)rect { lastRect = rect; [self record]; }
- (void)layoutIfNeeded { [self record]; }
- (void)setNeedsUpdateConstraints { [self record]; }
- (void)invalidateIntrinsicContentSize { [self record]; }
@end

/// A view whose -dealloc invalidates its own layout (a view released on a background queue whose teardown touches
/// itself): counts the calls that ran inside -dealloc, on the thread that deallocates it, and catches what
/// CSSView raises there (off the main thread, as UIKit does).
@interface CSSDyingView : CSSView
@end

static long css_dying_view_in_place;

@implementation CSSDyingView
- (void)dealloc {
    @try {
        [self setNeedsLayout];
    } @catch (NSException *raised) {
        (void)raised;
    }
    __atomic_fetch_add(&css_dying_view_in_place, backgroundCalls + mainCalls, __ATOMIC_RELEASE);
    CSS_SUPER_DEALLOC();
}
@end

/// A view whose setNeedsLayout another library swizzles by exchanging implementations (css_swizzled_view_exchange):
/// its `css_swizzled_setNeedsLayout` counts, then sends itself the alias to reach the original.
@interface CSSSwizzledView : CSSView
@end

static long css_swizzled_view_calls;

@implementation CSSSwizzledView
- (void)setNeedsLayout { [super setNeedsLayout]; }
- (void)css_swizzled_setNeedsLayout {
    __atomic_fetch_add(&css_swizzled_view_calls, 1, __ATOMIC_RELAXED);
    [self css_swizzled_setNeedsLayout];   // the original, after the exchange
}
@end

/// Work for a background thread: calls a view method `times` times, catching what it raises when asked to.
@interface CSSBackgroundCaller : NSObject {
@public
    CSSView *view;
    SEL selector;
    unsigned long times;
    BOOL catches;
    volatile int finished;
    char exception[512];
}
@end

@implementation CSSBackgroundCaller
- (void)callView {
    CSSRect rect = { 1, 2, 3, 4 };
    for (unsigned long i = 0; i < times; i++) {
        if (sel_isEqual(selector, @selector(setNeedsDisplayInRect:))) {
            [view setNeedsDisplayInRect: rect];
        } else if (sel_isEqual(selector, @selector(setNeedsDisplay))) {
            [view setNeedsDisplay];
        } else if (sel_isEqual(selector, @selector(layoutIfNeeded))) {
            [view layoutIfNeeded];
        } else if (sel_isEqual(selector, @selector(setNeedsUpdateConstraints))) {
            [view setNeedsUpdateConstraints];
        } else if (sel_isEqual(selector, @selector(invalidateIntrinsicContentSize))) {
            [view invalidateIntrinsicContentSize];
        } else {
            [view setNeedsLayout];
        }
    }
}
- (void)main:(id)ignored {
    @autoreleasepool {
        if (catches) {
            @try {
                [self callView];
            } @catch (NSException *raised) {
                snprintf(exception, sizeof exception, "%s: %s", [[raised name] UTF8String], [[raised reason] UTF8String]);
            }
        } else {
            [self callView];
        }
    }
    __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
}
@end

/// Runs the calls on a new thread and waits for it (without running the main run loop).
static CSSBackgroundCaller *css_call_in_background(CSSView *view, SEL selector, unsigned long times, BOOL catches) {
    CSSBackgroundCaller *caller = [[CSSBackgroundCaller alloc] init];
    caller->view = view;
    caller->selector = selector;
    caller->times = times;
    caller->catches = catches;
    [NSThread detachNewThreadSelector: @selector(main:) toTarget: caller withObject: nil];
    while (!__atomic_load_n(&caller->finished, __ATOMIC_ACQUIRE)) usleep(1000);
    return caller;   // owned by the caller of this function
}

/// Spins the main run loop until the view ran `calls` times on the main thread, or 5 seconds passed.
static void css_spin_until(CSSView *view, long calls, double seconds) {
    NSDate *deadline = [NSDate dateWithTimeIntervalSinceNow: seconds];
    while (__atomic_load_n(&view->mainCalls, __ATOMIC_ACQUIRE) < calls && [deadline timeIntervalSinceNow] > 0) {
        @autoreleasepool {
            [[NSRunLoop currentRunLoop] runMode: NSDefaultRunLoopMode
                                     beforeDate: [NSDate dateWithTimeIntervalSinceNow: 0.01]];
        }
    }
}

static const char *css_view_outcome(CSSView *view) {
    return css_format("main=%ld background=%ld", view->mainCalls, view->backgroundCalls);
}

/// A background thread (a network callback, say) invalidates the layout of a view.
static const char *setNeedsLayoutInBackground(void) {
    CSSView *view = [[CSSView alloc] init];
    CSSBackgroundCaller *caller = css_call_in_background(view, @selector(setNeedsLayout), 1, NO);
    css_spin_until(view, 1, 5);
    const char *outcome = css_view_outcome(view);
    CSS_RELEASE(caller);
    CSS_RELEASE(view);
    return outcome;
}

/// The same with a rect argument, which must reach the main thread intact.
static const char *setNeedsDisplayInRectInBackground(void) {
    CSSView *view = [[CSSView alloc] init];
    CSSBackgroundCaller *caller = css_call_in_background(view, @selector(setNeedsDisplayInRect:), 1, NO);
    css_spin_until(view, 1, 5);
    const char *outcome = css_format("%s rect={%g,%g,%g,%g}", css_view_outcome(view), view->lastRect.x,
                                     view->lastRect.y, view->lastRect.width, view->lastRect.height);
    CSS_RELEASE(caller);
    CSS_RELEASE(view);
    return outcome;
}

/// Auto Layout invalidation from a background thread (issue 32: the invalidations peers defer).
static const char *setNeedsUpdateConstraintsInBackground(void) {
    CSSView *view = [[CSSView alloc] init];
    CSSBackgroundCaller *caller = css_call_in_background(view, @selector(setNeedsUpdateConstraints), 1, NO);
    css_spin_until(view, 1, 5);
    const char *outcome = css_view_outcome(view);
    CSS_RELEASE(caller);
    CSS_RELEASE(view);
    return outcome;
}

static const CSSScenario css_lifetime_table[] = {
    { "zombie.message.afterOverRelease", "zombie", "value", "SIGSEGV", "0", 1, messageAfterOverRelease },
    { "zombie.release.twice", "zombie", "release", "SIGSEGV", "released twice", 1, releaseTwice },
    { "mainThread.setNeedsLayout.background", "mainThreadUI", "setNeedsLayout", "NSInternalInconsistencyException",
      "main=1 background=0", 1, setNeedsLayoutInBackground },
    { "mainThread.setNeedsDisplayInRect.background", "mainThreadUI", "setNeedsDisplayInRect:",
      "NSInternalInconsistencyException", "main=1 background=0 rect={1,2,3,4}", 1, setNeedsDisplayInRectInBackground },
    { "mainThread.setNeedsUpdateConstraints.background", "mainThreadUI", "setNeedsUpdateConstraints",
      "NSInternalInconsistencyException", "main=1 background=0", 1, setNeedsUpdateConstraintsInBackground },
};

const CSSScenario *css_lifetime_scenarios(int *count) {
    *count = (int)(sizeof css_lifetime_table / sizeof css_lifetime_table[0]);
    return css_lifetime_table;
}

// MARK: Test support

long css_zombie_send_value(void *object) { return [(CSS_BRIDGE CSSZombieTarget *)object value]; }
void css_zombie_send_release(void *object) { CSS_OVER_RELEASE((CSS_BRIDGE_ID)object); }
const char *css_zombie_send_description(void *object) {
    NSString *text = [(CSS_BRIDGE_ID)object description];
    return text == nil ? "nil" : [text UTF8String];
}
double css_zombie_send_frame(void *object) {
    CSSZombieFrame frame = [(CSS_BRIDGE CSSZombieTarget *)object frame];
    return frame.x + frame.y + frame.width + frame.height;
}
long css_zombie_target_dealloc_count(void) { return __atomic_load_n(&css_zombie_target_deallocs, __ATOMIC_RELAXED); }
long css_zombie_part_dealloc_count(void) { return __atomic_load_n(&css_zombie_part_deallocs, __ATOMIC_RELAXED); }

unsigned long css_object_retain_count(void *object) {
#if __has_feature(objc_arc)
    return 0;
#else
    return (unsigned long)[(id)object retainCount];
#endif
}

void *css_view_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSView alloc] init]; }

bool css_view_call_in_background(void *view, const char *selector, unsigned long times, char *exception, size_t size) {
    CSSBackgroundCaller *caller = css_call_in_background((CSS_BRIDGE CSSView *)view, sel_registerName(selector), times, YES);
    bool raised = caller->exception[0] != 0;
    if (exception != NULL && size > 0) snprintf(exception, size, "%s", caller->exception);
    CSS_RELEASE(caller);
    return raised;
}

void css_view_call_on_main(void *view, const char *selector) {
    CSSBackgroundCaller *caller = [[CSSBackgroundCaller alloc] init];
    caller->view = (CSS_BRIDGE CSSView *)view;
    caller->selector = sel_registerName(selector);
    caller->times = 1;
    [caller callView];
    CSS_RELEASE(caller);
}

long css_view_calls(void *view, bool onMain) {
    CSSView *v = (CSS_BRIDGE CSSView *)view;
    return onMain ? __atomic_load_n(&v->mainCalls, __ATOMIC_ACQUIRE) : __atomic_load_n(&v->backgroundCalls, __ATOMIC_ACQUIRE);
}

const char *css_view_last_rect(void *view) {
    CSSView *v = (CSS_BRIDGE CSSView *)view;
    return css_format("{%g,%g,%g,%g}", v->lastRect.x, v->lastRect.y, v->lastRect.width,
                      v->lastRect.height);
}

bool css_view_wait_for_main_calls(void *view, long calls, double seconds) {
    css_spin_until((CSS_BRIDGE CSSView *)view, calls, seconds);
    return css_view_calls(view, true) >= calls;
}

void *css_dying_view_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSDyingView alloc] init]; }

long css_dying_view_in_place_calls(void) { return __atomic_load_n(&css_dying_view_in_place, __ATOMIC_ACQUIRE); }

/// Work for a background thread: releases one object.
@interface CSSBackgroundReleaser : NSObject {
@public
    void *object;
    volatile int finished;
}
@end

@implementation CSSBackgroundReleaser
- (void)main:(id)ignored {
    @autoreleasepool { css_object_release(object); }
    __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
}
@end

void css_release_in_background(void *object) {
    CSSBackgroundReleaser *releaser = [[CSSBackgroundReleaser alloc] init];
    releaser->object = object;
    [NSThread detachNewThreadSelector: @selector(main:) toTarget: releaser withObject: nil];
    while (!__atomic_load_n(&releaser->finished, __ATOMIC_ACQUIRE)) usleep(1000);
    CSS_RELEASE(releaser);
}

void *css_swizzled_view_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSSwizzledView alloc] init]; }

void css_swizzled_view_exchange(void) {
    Class cls = [CSSSwizzledView class];
    method_exchangeImplementations(class_getInstanceMethod(cls, @selector(setNeedsLayout)),
                                   class_getInstanceMethod(cls, @selector(css_swizzled_setNeedsLayout)));
}

long css_swizzled_view_swizzle_calls(void) { return __atomic_load_n(&css_swizzled_view_calls, __ATOMIC_ACQUIRE); }
