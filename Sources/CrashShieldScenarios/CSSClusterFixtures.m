// CSSClusterFixtures.m: classes shaped like Apple's cluster classes, for the class-family tests. Tests add them to the
// families' samples by name (csr_test_cluster_sample_class_named); nothing samples them otherwise.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSSFamilies.h"

/// What clang's constant array literal is on Apple (NSConstantArray: its own storage, its own `objectAtIndex:`,
/// which raises for an index past the end), for a test that samples it by name as CrashShield samples the literal
/// classes. Two objects.
@interface CSSLiteralArray : NSArray
@end
@implementation CSSLiteralArray
- (NSUInteger)count { return 2; }
- (id)objectAtIndex: (NSUInteger)index {
    if (index >= 2) {
        [NSException raise: NSRangeException format: @"*** -[CSSLiteralArray objectAtIndex:]: index %lu beyond bounds [0 .. 1]",
                                                      (unsigned long)index];
    }
    return index == 0 ? @"l0" : @"l1";
}
@end

void *css_cluster_fixture_new(const char *className) {
    Class cls = objc_lookUpClass(className);
    if (cls == Nil) return NULL;
    NSArray *list = [cls new];
#if __has_feature(objc_arc)
    return (__bridge_retained void *)list;   // ARC (Apple): the caller's pool does not own it; tests run under MRC
#else
    return (__bridge void *)[list autorelease];
#endif
}
