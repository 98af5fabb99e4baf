// CSSTestSupport.m: small classes and exported call sites for the hook engine and guard tests.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSSFamilies.h"
#include "CSSMemory.h"

/// Defines -value and +classValue itself.
@interface CSSHookBase : NSObject
- (long)value;
+ (long)classValue;
@end
@implementation CSSHookBase
- (long)value { return 1; }
+ (long)classValue { return 10; }
@end

/// Inherits -value from CSSHookBase.
@interface CSSHookChild : CSSHookBase
@end
@implementation CSSHookChild
@end

/// Inherits -value through CSSHookChild.
@interface CSSHookGrandchild : CSSHookChild
@end
@implementation CSSHookGrandchild
@end

/// An app's own NSArray subclass of two objects, as apps write them: `objectAtIndex:` raises for an index past the
/// end itself (`CSSAppArray`), or from a function of its own (`CSSAppArrayDeep`).
@interface CSSAppArray : NSArray
@end
@implementation CSSAppArray
- (NSUInteger)count { return 2; }
- (id)objectAtIndex: (NSUInteger)index {
    if (index >= 2) [NSException raise: NSRangeException format: @"CSSAppArray: index %lu beyond 2", (unsigned long)index];
    return index == 0 ? @"a" : @"b";
}
@end

__attribute__((noinline)) static void css_app_array_check(NSUInteger index) {
    if (index >= 2) [NSException raise: NSRangeException format: @"CSSAppArrayDeep: index %lu beyond 2", (unsigned long)index];
}

@interface CSSAppArrayDeep : CSSAppArray
@end
@implementation CSSAppArrayDeep
- (id)objectAtIndex: (NSUInteger)index {
    css_app_array_check(index);
    return index == 0 ? @"a" : @"b";
}
@end

void *css_test_app_array(bool deep) {
    NSArray *array = [(deep ? [CSSAppArrayDeep class] : [CSSAppArray class]) new];
#if __has_feature(objc_arc)
    return (__bridge_retained void *)array;   // ARC (Apple): the caller's pool does not own it; tests run under MRC
#else
    return (__bridge void *)[array autorelease];
#endif
}

long css_test_value(void *object) { return [(__bridge CSSHookBase *)object value]; }

long css_test_class_value(const char *className) { return [objc_lookUpClass(className) classValue]; }

void *css_test_array(void) { return (__bridge void *)[NSArray arrayWithObjects: @"a", @"b", nil]; }

void *css_test_call_objectAtIndex(void *array, unsigned long index) {
    return (__bridge void *)[(__bridge NSArray *)array objectAtIndex: index];
}

void *css_test_call_subscript(void *array, unsigned long index) {
    return (__bridge void *)[(__bridge NSArray *)array objectAtIndexedSubscript: index];   // what `array[index]` compiles to
}

unsigned short css_test_call_characterAtIndex(void *string, unsigned long index) {
    return [(__bridge NSString *)string characterAtIndex: index];
}

void *css_test_call_subscript_implementation_on_nil(void) {
    IMP subscript = class_getMethodImplementation([NSArray class], @selector(objectAtIndexedSubscript:));
    return (__bridge void *)((id (*)(id, SEL, NSUInteger))subscript)(nil, @selector(objectAtIndexedSubscript:), 0);
}

void *css_test_mutable_string(const char *text) {
    return (__bridge void *)[NSMutableString stringWithUTF8String: text];
}

void css_test_string_text(void *string, char *out, unsigned long size) {
    const char *text = [(__bridge NSString *)string UTF8String];
    snprintf(out, size, "%s", text ? text : "");
}

void css_test_call_replace(void *string, unsigned long location, unsigned long length, void *replacement) {
    // Not NSMakeRange: GNUstep's raises itself for a range whose end overflows.
    [(__bridge NSMutableString *)string replaceCharactersInRange: (NSRange){ location, length }
                                                      withString: (__bridge NSString *)replacement];
}

void css_test_call_replace_implementation(const void *implementation, void *string, unsigned long location,
                                          unsigned long length, void *replacement) {
    ((void (*)(id, SEL, NSRange, NSString *))implementation)((__bridge id)string,
        @selector(replaceCharactersInRange:withString:), (NSRange){ location, length }, (__bridge NSString *)replacement);
}

/// `length` raises NSRangeException: a string argument that fails inside the method it is passed to.
@interface CSSRaisingString : NSString
@end
@implementation CSSRaisingString
- (NSUInteger)length {
    [NSException raise: NSRangeException format: @"CSSRaisingString: length is out of range"];
    return 0;
}
- (unichar)characterAtIndex: (NSUInteger)index { (void)index; return 'x'; }
@end

void *css_test_string_raising_in_length(void) {
    NSString *string = [CSSRaisingString new];
#if __has_feature(objc_arc)
    return (__bridge_retained void *)string;
#else
    return (__bridge void *)[string autorelease];
#endif
}

void css_test_signature_text(void *object, const char *selector, char *out, unsigned long size) {
    css_test_signature_object_text((__bridge void *)[(__bridge id)object methodSignatureForSelector: sel_registerName(selector)],
                                   out, size);
}

void css_test_signature_object_text(void *object, char *out, unsigned long size) {
    NSMethodSignature *signature = (__bridge NSMethodSignature *)object;
    if (signature == nil) {
        snprintf(out, size, "nil");
        return;
    }
    NSMutableString *text = [NSMutableString stringWithUTF8String: [signature methodReturnType]];
    for (NSUInteger index = 0; index < [signature numberOfArguments]; index++) {
        [text appendFormat: @"%s", [signature getArgumentTypeAtIndex: index]];
    }
    snprintf(out, size, "%s", [text UTF8String]);
}

void *css_test_string_class(void) { return (__bridge void *)[NSString class]; }

int css_test_strings(void **out, int max) {
    unichar wide[] = { 0x3b1, 0x3b2, 0x3b3 };
    NSString *strings[] = {
        @"abc",
        [NSString stringWithUTF8String: "abc"],
        [NSString stringWithCharacters: wide length: 3],
        [NSMutableString stringWithString: @"abc"],
        [[NSString stringWithUTF8String: "xxabcxx"] substringWithRange: NSMakeRange(2, 3)],
        [NSString stringWithFormat: @"%@", @"abc"],
    };
    int count = 0;
    for (size_t index = 0; index < sizeof strings / sizeof *strings && count < max; index++) {
        out[count++] = (__bridge void *)strings[index];
    }
    return count;
}

unsigned long css_test_storm_characterAtIndex(unsigned long count) {
    unsigned long zeros = 0;
    @autoreleasepool {
        NSString *string = css_opaque([NSString stringWithUTF8String: "ab"]);
        for (unsigned long i = 0; i < count; i++) {
            if ([string characterAtIndex: css_opaque_index(2 + (i & 7))] == 0) zeros++;
        }
    }
    return zeros;
}

unsigned long css_test_storm_objectAtIndex(unsigned long count) {
    unsigned long nils = 0;
    @autoreleasepool {
        NSArray *array = css_opaque([NSArray arrayWithObjects: @"a", @"b", nil]);
        for (unsigned long i = 0; i < count; i++) {
            if ([array objectAtIndex: css_opaque_index(2 + (i & 7))] == nil) nils++;
        }
    }
    return nils;
}

/// Answers nil for every unknown key itself (no guard involved).
@interface CSSAnsweringModel : NSObject
@end
@implementation CSSAnsweringModel
- (id)valueForUndefinedKey:(NSString *)key { return nil; }
@end

/// The current pool's object count (GNUstep's -autoreleaseCount, asked through the runtime: not in Apple's API).
static unsigned long css_pool_count(void) {
    Class pools = NSClassFromString(@"NSAutoreleasePool");
    SEL current = NSSelectorFromString(@"currentPool"), counting = NSSelectorFromString(@"autoreleaseCount");
    if (![pools respondsToSelector: current]) return ULONG_MAX;
    id pool = ((id (*)(id, SEL))[pools methodForSelector: current])(pools, current);
    if (![pool respondsToSelector: counting]) return ULONG_MAX;
    return ((unsigned (*)(id, SEL))[pool methodForSelector: counting])(pool, counting);
}

unsigned long css_test_objects_left_in_pool(CSSPooledCall call, unsigned long count) {
    NSMutableArray *array = [[NSMutableArray alloc] initWithObjects: @"a", nil];
    NSObject *object = [[NSObject alloc] init];
    CSSAnsweringModel *answering = [[CSSAnsweringModel alloc] init];
    NSMutableDictionary *dictionary = [[NSMutableDictionary alloc] init];
    NSString *key = [[NSString alloc] initWithUTF8String: "noSuchKey"];
    unsigned long left = ULONG_MAX;
    @autoreleasepool {
        unsigned long start = css_pool_count();
        for (unsigned long i = 0; i < count && start != ULONG_MAX; i++) {
            switch (call) {
            case CSSPooledRemoveAtIndex: [array removeObjectAtIndex: css_opaque_index(5)]; break;
            case CSSPooledUnknownKey: (void)[object valueForKey: key]; break;
            case CSSPooledAnsweredKey: (void)[answering valueForKey: key]; break;
            case CSSPooledNilValue: [dictionary setObject: css_opaque(nil) forKey: key]; break;
            }
        }
        if (start != ULONG_MAX) left = css_pool_count() - start;
    }
    CSS_RELEASE(array); CSS_RELEASE(object); CSS_RELEASE(answering); CSS_RELEASE(dictionary); CSS_RELEASE(key);
    return left;
}

unsigned long css_test_mixed_calls(unsigned long count) {
    unsigned long correct = 0;
    @autoreleasepool {
        NSArray *arrays[3] = {
            [NSArray arrayWithObjects: @"a", @"b", nil],
            [NSMutableArray arrayWithObjects: @"a", @"b", nil],
            [[NSArray arrayWithObjects: @"z", @"a", @"b", nil] subarrayWithRange: NSMakeRange(1, 2)],
        };
        for (unsigned long i = 0; i < count; i++) {
            NSArray *array = css_opaque(arrays[i % 3]);
            if ([[array objectAtIndex: css_opaque_index(1)] isEqual: @"b"]) correct++;
            @try { (void)[array objectAtIndex: css_opaque_index(5)]; } @catch (NSException *ignored) { }
        }
    }
    return correct;
}

// MARK: Indexed classes for the hot-read trampolines (one trampoline per installed class)

/// Three distinct implementations of objectAtIndex:, so a test sees which one a call reached: implementation k
/// answers k * 100 + index, and raises NSRangeException from index 3 on (whatever `count` says).
#define CSS_INDEXED_IMPLEMENTATION(K)                                                                           \
    static id css_indexed_object_##K(id self, SEL _cmd, NSUInteger index) {                                     \
        if (index >= 3) [NSException raise: NSRangeException format: @"index %lu beyond bounds [0 .. 2]", (unsigned long)index]; \
        return [NSNumber numberWithUnsignedLong: K * 100 + index];                                              \
    }
CSS_INDEXED_IMPLEMENTATION(0)
CSS_INDEXED_IMPLEMENTATION(1)
CSS_INDEXED_IMPLEMENTATION(2)

static NSUInteger css_indexed_count_3(id self, SEL _cmd) { return 3; }
static NSUInteger css_indexed_count_10(id self, SEL _cmd) { return 10; }

bool css_make_indexed_class(const char *name, int implementation, bool countsTen) {
    if (objc_lookUpClass(name) != Nil) return true;
    IMP implementations[3] = { (IMP)css_indexed_object_0, (IMP)css_indexed_object_1, (IMP)css_indexed_object_2 };
    if (implementation < 0 || implementation > 2) return false;
    Class cls = objc_allocateClassPair([NSObject class], name, 0);
    if (cls == Nil) return false;
    const char *objectTypes = method_getTypeEncoding(class_getInstanceMethod([NSArray class], @selector(objectAtIndex:)));
    const char *countTypes = method_getTypeEncoding(class_getInstanceMethod([NSArray class], @selector(count)));
    class_addMethod(cls, @selector(objectAtIndex:), implementations[implementation], objectTypes);
    class_addMethod(cls, @selector(count), countsTen ? (IMP)css_indexed_count_10 : (IMP)css_indexed_count_3, countTypes);
    objc_registerClassPair(cls);
    return true;
}

long css_indexed_value(void *object, unsigned long index) {
    NSNumber *value = [(__bridge id)object objectAtIndex: index];
    return value == nil ? -1 : (long)[value unsignedLongValue];
}

// MARK: Two call sites of one bad call: the app's own, and Foundation's (through NSInvocation)

/// `[array addObject:nil]` `times` times from this function (app code), each inside @try. Returns how many raised.
unsigned long css_test_add_nil_direct(unsigned long times) {
    unsigned long raised = 0;
    @autoreleasepool {
        NSMutableArray *array = [NSMutableArray array];
        for (unsigned long i = 0; i < times; i++) {
            @try { [array addObject: css_opaque(nil)]; } @catch (NSException *exception) { raised++; }
        }
    }
    return raised;
}

/// The same bad call made by Foundation's NSInvocation (a system caller), `times` times. Returns how many raised.
unsigned long css_test_add_nil_through_invocation(unsigned long times) {
    unsigned long raised = 0;
    @autoreleasepool {
        NSMutableArray *array = [NSMutableArray array];
        SEL selector = @selector(addObject:);
        NSInvocation *invocation =
            [NSInvocation invocationWithMethodSignature: [array methodSignatureForSelector: selector]];
        id nothing = nil;
        [invocation setTarget: array];
        [invocation setSelector: selector];
        [invocation setArgument: &nothing atIndex: 2];
        for (unsigned long i = 0; i < times; i++) {
            @try { [invocation invoke]; } @catch (NSException *exception) { raised++; }
        }
    }
    return raised;
}

/// One bad call, not caught here: `[array objectAtIndex:5]` on a two-object array. Returns the result (nil when
/// a guard recovered it).
void *css_test_bad_call(void) {
    void *result;
    @autoreleasepool {   // the array, and the exception a recovered call leaves; callers may have no pool
        NSArray *array = css_opaque([NSArray arrayWithObjects: @"a", @"b", nil]);
        result = (__bridge void *)[array objectAtIndex: css_opaque_index(5)];
    }
    return result;
}

/// `[@"abc" mutableCopy] setString:` given an NSNumber: GNUstep's own code then sends `-length` to the number. Returns
/// the string afterwards ("abc" when the call raised before changing it); `raised` tells whether it raised.
const char *css_test_set_string_to_number(bool *raised) {
    static char result[64];
    *raised = false;
    @autoreleasepool {
        NSMutableString *string = [NSMutableString stringWithString: @"abc"];
        @try {
            [string setString: css_opaque([NSNumber numberWithInt: 7])];
        } @catch (NSException *exception) {
            *raised = true;
        }
        snprintf(result, sizeof result, "%s", [string UTF8String]);
    }
    return result;
}

__attribute__((noinline)) int css_test_walk_from_broken_frame(int (*walk)(void **frames, int max), void **frames,
                                                             int max) {
#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm64__)
    // Asking for the frame address keeps a frame record {saved frame pointer, return address} at it.
    volatile uintptr_t *record = (volatile uintptr_t *)__builtin_frame_address(0);
    uintptr_t savedFramePointer = record[0], savedReturnAddress = record[1];
    double one = 1.0, two = 2.0;
    uintptr_t oneBits, twoBits;
    memcpy(&oneBits, &one, sizeof oneBits);
    memcpy(&twoBits, &two, sizeof twoBits);
    record[0] = oneBits;
    record[1] = twoBits;
    __asm__ volatile("" ::: "memory");
    int count = walk(frames, max);
    __asm__ volatile("" ::: "memory");
    record[0] = savedFramePointer;
    record[1] = savedReturnAddress;
    return count;
#else
    return walk(frames, max);
#endif
}

@interface CSSGroupingCaller : NSObject
@end

@implementation CSSGroupingCaller
- (id)firstList { return [[NSArray arrayWithObject: @"a"] objectAtIndex: 3]; }
+ (id)secondList { return [[NSArray arrayWithObject: @"b"] objectAtIndex: 4]; }
@end

int css_test_grouping_calls(void) {
    (void)[[CSSGroupingCaller new] firstList];   // leaked under manual counting: one small object per test run
    (void)[CSSGroupingCaller secondList];
    return 0;
}

#include "CSSMemory.h"

/// Apple's timer shape (see css_test_cf_timer_init): the initializer keeps what it is given, never calls NSTimer's.
@interface CSSCFTimer : NSTimer {
    id cssTarget;
}
@end

@implementation CSSCFTimer
- (id)initWithFireDate:(NSDate *)date interval:(NSTimeInterval)interval target:(id)target selector:(SEL)selector
              userInfo:(id)userInfo repeats:(BOOL)repeats {
    (void)date; (void)interval; (void)selector; (void)userInfo; (void)repeats;
    cssTarget = CSS_RETAIN(target);   // a timer retains its target
    return self;
}
- (void)invalidate { CSS_RELEASE(cssTarget); cssTarget = nil; }
@end

@interface CSSCFTimerTarget : NSObject
@end
@implementation CSSCFTimerTarget
- (void)tick:(id)timer { (void)timer; }
@end

bool css_test_cf_timer_init(const char *selector) {
    bool made = false;
    @autoreleasepool {
        CSSCFTimerTarget *target = [[CSSCFTimerTarget alloc] init];
        CSSCFTimer *timer = [[CSSCFTimer alloc] initWithFireDate: [NSDate date] interval: 1 target: target
                                                        selector: sel_registerName(selector) userInfo: nil repeats: NO];
        made = timer != nil;
        [timer invalidate];
        CSS_RELEASE(timer);
        CSS_RELEASE(target);
    }
    return made;
}
