// CSSClusterForms.m: objects of public class clusters made the ways app code makes them (literals, constants, empty
// and single-object forms, copies, mutable copies, frozen copies, JSON, path and number strings...), for the test
// that class-cluster discovery samples every concrete class they produce. Written independently of the sampler
// (CSRClassClusters.m): a form the sampler forgets fails the test.
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <string.h>
#include "CSSFamilies.h"
#include "CrashShieldScenarios.h"

#if __has_feature(objc_arc)
#define CSS_OWNED(x) (x)
#else
#define CSS_OWNED(x) [(x) autorelease]
#endif

typedef struct CSSClassList { void **out; int max; int count; } CSSClassList;

static void add(CSSClassList *list, id object) {
    if (object == nil) return;
    void *cls = (__bridge void *)object_getClass(object);   // tagged pointers too (Apple: short strings)
    for (int i = 0; i < list->count; i++) if (list->out[i] == cls) return;
    if (list->count < list->max) list->out[list->count++] = cls;
}

/// The object, its copy, its mutable copy and the copy of that (a "frozen" copy on Apple).
static void addCopies(CSSClassList *list, id object, BOOL mutableFamily) {
    if (mutableFamily) {
        add(list, CSS_OWNED([object mutableCopy]));
    } else {
        add(list, object);
        add(list, CSS_OWNED([object copy]));
        add(list, CSS_OWNED([CSS_OWNED([object mutableCopy]) copy]));
    }
}

static id json(const char *text, BOOL mutableContainers) {
    NSData *data = [NSData dataWithBytes: text length: strlen(text)];
    return [NSJSONSerialization JSONObjectWithData: data
                                           options: mutableContainers ? NSJSONReadingMutableContainers : 0 error: NULL];
}

/// 40 strings (an immutable array; its copies are large).
static NSArray *manyStrings(void) {
    NSMutableArray *array = [NSMutableArray array];
    for (int i = 0; i < 40; i++) [array addObject: [NSString stringWithFormat: @"item %d", i]];
    return [NSArray arrayWithArray: array];
}

static void arrays(CSSClassList *list, BOOL mutable) {
    NSArray *forms[] = { @[], @[@"a"], @[@"a", @"b"], @[@"a", @"b", @"c"], @[css_opaque(@"runtime")], manyStrings() };
    for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) addCopies(list, forms[i], mutable);
    NSArray *letters = @[@"c", @"a", @"b"];
    if (mutable) {
        add(list, [NSMutableArray array]);
        add(list, [NSMutableArray arrayWithCapacity: 8]);
        add(list, json("[1, [2]]", YES));
        add(list, [@"a,b" componentsSeparatedByString: @","]);
        add(list, [[letters reverseObjectEnumerator] allObjects]);
        return;
    }
    add(list, [NSArray array]);
    add(list, [NSArray arrayWithObject: @"a"]);
    add(list, [NSArray arrayWithArray: letters]);
    add(list, [letters subarrayWithRange: NSMakeRange(1, 2)]);
    add(list, [letters sortedArrayUsingSelector: @selector(compare:)]);
    add(list, [letters arrayByAddingObject: @"d"]);
    add(list, [@{@"k": @"v"} allKeys]);
    add(list, json("[1, [2]]", NO));
    add(list, [(NSArray *)json("[1, [2]]", NO) lastObject]);
}

static void dictionaries(CSSClassList *list, BOOL mutable) {
    NSMutableDictionary *many = [NSMutableDictionary dictionary];
    for (int i = 0; i < 40; i++) [many setObject: @"v" forKey: [NSString stringWithFormat: @"k%d", i]];
    NSDictionary *forms[] = { @{}, @{@"k": @"v"}, @{@"k1": @"v1", @"k2": @"v2", @"k3": @"v3"},
                              @{@"k": css_opaque(@"runtime")}, [NSDictionary dictionaryWithDictionary: many] };
    for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) addCopies(list, forms[i], mutable);
    if (mutable) {
        add(list, [NSMutableDictionary dictionaryWithCapacity: 8]);
        add(list, json("{\"k\": {\"n\": 1}}", YES));
        return;
    }
    add(list, [NSDictionary dictionary]);
    add(list, [NSDictionary dictionaryWithObject: @"v" forKey: @"k"]);
    add(list, [NSDictionary dictionaryWithDictionary: forms[1]]);
    add(list, json("{\"k\": {\"n\": 1}}", NO));
}

static void sets(CSSClassList *list, BOOL mutable, BOOL ordered) {
    NSArray *contents[] = { @[], @[@"a"], @[@"a", @"b", @"c"], manyStrings() };
    for (unsigned i = 0; i < sizeof contents / sizeof contents[0]; i++) {
        addCopies(list, ordered ? (id)[NSOrderedSet orderedSetWithArray: contents[i]] : (id)[NSSet setWithArray: contents[i]],
                  mutable);
    }
    if (mutable) {
        add(list, ordered ? (id)[NSMutableOrderedSet orderedSet] : (id)[NSMutableSet set]);
        if (!ordered) add(list, [NSCountedSet setWithArray: @[@"a", @"a"]]);
        return;
    }
    add(list, ordered ? (id)[NSOrderedSet orderedSet] : (id)[NSSet set]);
    add(list, ordered ? (id)[NSOrderedSet orderedSetWithObject: @"a"] : (id)[NSSet setWithObject: @"a"]);
}

static void strings(CSSClassList *list, BOOL mutable) {
    NSString *longText = @"a constant string longer than any tagged pointer";
    NSString *forms[] = {
        @"", @"c", @"abc", longText,
        [NSString stringWithUTF8String: "ab"], [NSString stringWithUTF8String: "a string built from forty UTF-8 bytes.."],
        [NSString stringWithUTF8String: "\xc3\xa9t\xc3\xa9"], [NSString stringWithFormat: @"%d", 7],
        [NSString stringWithFormat: @"%@ and more", longText], [@"ab" stringByAppendingString: @"c"],
        [@"dir" stringByAppendingPathComponent: @"file.txt"], [@"/a/b/c.txt" lastPathComponent],
        [@"/a/../b" stringByStandardizingPath], [@42 stringValue], [@"a,b" stringByReplacingOccurrencesOfString: @"," withString: @";"],
        [@[@"a", @"b"] componentsJoinedByString: @","], [NSString stringWithCString: "ab" encoding: NSASCIIStringEncoding],
        CSS_OWNED([[NSString alloc] initWithData: [NSData dataWithBytes: "data" length: 4] encoding: NSUTF8StringEncoding]),
        [(NSArray *)json("[\"ab\", \"a JSON string long enough for the heap\"]", NO) objectAtIndex: 0],
        [(NSArray *)json("[\"ab\", \"a JSON string long enough for the heap\"]", NO) objectAtIndex: 1],
        [longText uppercaseString], [longText substringFromIndex: 30], NSStringFromClass([NSObject class]),
    };
    for (unsigned i = 0; i < sizeof forms / sizeof forms[0]; i++) addCopies(list, forms[i], mutable);
    NSMutableAttributedString *attributed = CSS_OWNED([[NSMutableAttributedString alloc] initWithString: @"text"]);
    if (mutable) {
        add(list, [NSMutableString string]);
        add(list, [NSMutableString stringWithCapacity: 8]);
        add(list, [NSMutableString stringWithFormat: @"%d", 7]);
        add(list, [attributed mutableString]);
        return;
    }
    add(list, [attributed string]);
}

static void attributedStrings(CSSClassList *list) {
    NSAttributedString *plain = CSS_OWNED([[NSAttributedString alloc] initWithString: @"text"]);
    NSAttributedString *styled = CSS_OWNED([[NSAttributedString alloc] initWithString: @"text" attributes: @{@"k": @"v"}]);
    addCopies(list, plain, NO);
    addCopies(list, plain, YES);
    addCopies(list, styled, NO);
    add(list, [styled attributedSubstringFromRange: NSMakeRange(1, 2)]);
    add(list, CSS_OWNED([[NSMutableAttributedString alloc] initWithAttributedString: styled]));
}

int css_cluster_form_classes(const char *family, void **out, int max) {
    CSSClassList list = { out, max, 0 };
    @autoreleasepool {
        if (strcmp(family, "NSArray") == 0) arrays(&list, NO);
        else if (strcmp(family, "NSMutableArray") == 0) arrays(&list, YES);
        else if (strcmp(family, "NSDictionary") == 0) dictionaries(&list, NO);
        else if (strcmp(family, "NSMutableDictionary") == 0) dictionaries(&list, YES);
        else if (strcmp(family, "NSSet") == 0) sets(&list, NO, NO);
        else if (strcmp(family, "NSMutableSet") == 0) sets(&list, YES, NO);
        else if (strcmp(family, "NSOrderedSet") == 0) sets(&list, NO, YES);
        else if (strcmp(family, "NSMutableOrderedSet") == 0) sets(&list, YES, YES);
        else if (strcmp(family, "NSString") == 0) strings(&list, NO);
        else if (strcmp(family, "NSMutableString") == 0) strings(&list, YES);
        else if (strcmp(family, "NSAttributedString") == 0) attributedStrings(&list);
    }
    return list.count;
}
