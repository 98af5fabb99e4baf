// CSSClusterFixtures.m: class trees shaped like Apple's clusters, for the class-family tests. Tests add them to the
// NSArray family's samples by name (csr_test_cluster_sample_class_named); nothing samples them otherwise.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSSFamilies.h"

static long css_list_override_calls, css_list_abstract_calls;

/// Apple's NSArray implements `subarrayWithRange:` itself, checks the range there and raises naming itself
/// (`*** -[NSArray subarrayWithRange:]: range {0, 2} extends beyond bounds [0 .. 0]`); concrete classes inherit it,
/// some override it. This abstract list is that NSArray: its subclasses answer `count` and `objectAtIndex:`.
@interface CSSAbstractList : NSArray
@end
@implementation CSSAbstractList
- (NSArray *)subarrayWithRange: (NSRange)range {
    css_list_abstract_calls++;
    NSUInteger count = [self count];
    if (range.location > count || range.length > count - range.location) {
        if (count == 0) {
            [NSException raise: NSRangeException format: @"*** -[CSSAbstractList subarrayWithRange:]: range {%lu, %lu} "
                                                          @"extends beyond bounds for empty array",
                                                          (unsigned long)range.location, (unsigned long)range.length];
        }
        [NSException raise: NSRangeException format: @"*** -[CSSAbstractList subarrayWithRange:]: range {%lu, %lu} extends "
                                                      @"beyond bounds [0 .. %lu]", (unsigned long)range.location,
                                                      (unsigned long)range.length, (unsigned long)count - 1];
    }
    NSMutableArray *objects = [NSMutableArray arrayWithCapacity: range.length];
    for (NSUInteger index = range.location; index < range.location + range.length; index++) {
        [objects addObject: [self objectAtIndex: index]];
    }
    return [NSArray arrayWithArray: objects];
}
@end

/// A concrete class overriding the abstract implementation; its override calls `super`, as Foundation's may.
@interface CSSConcreteList : CSSAbstractList
@end
@implementation CSSConcreteList
- (NSUInteger)count { return 3; }
- (id)objectAtIndex: (NSUInteger)index {
    if (index >= 3) [NSException raise: NSRangeException format: @"CSSConcreteList: index %lu beyond 3", (unsigned long)index];
    return [NSString stringWithFormat: @"c%lu", (unsigned long)index];
}
- (NSArray *)subarrayWithRange: (NSRange)range {
    css_list_override_calls++;
    return [super subarrayWithRange: range];
}
@end

/// A sibling that inherits the abstract implementation (Apple's `__NSArrayI`, say), of one object.
@interface CSSSiblingList : CSSAbstractList
@end
@implementation CSSSiblingList
- (NSUInteger)count { return 1; }
- (id)objectAtIndex: (NSUInteger)index {
    if (index >= 1) [NSException raise: NSRangeException format: @"CSSSiblingList: index %lu beyond 1", (unsigned long)index];
    return @"s0";
}
@end

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

void *css_cluster_call_subarray(void *list, unsigned long location, unsigned long length) {
    return (__bridge void *)[(__bridge NSArray *)list subarrayWithRange: (NSRange){ location, length }];
}

void css_cluster_list_calls(long *override, long *abstract, bool reset) {
    *override = css_list_override_calls;
    *abstract = css_list_abstract_calls;
    if (reset) css_list_override_calls = css_list_abstract_calls = 0;
}
