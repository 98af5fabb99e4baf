// CSSTestSupport.m: small classes and exported call sites for the hook engine and guard tests.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSSFamilies.h"

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

long css_test_value(void *object) { return [(__bridge CSSHookBase *)object value]; }

long css_test_class_value(const char *className) { return [objc_lookUpClass(className) classValue]; }

void *css_test_array(void) { return (__bridge void *)[NSArray arrayWithObjects: @"a", @"b", nil]; }

void *css_test_call_objectAtIndex(void *array, unsigned long index) {
    return (__bridge void *)[(__bridge NSArray *)array objectAtIndex: index];
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
