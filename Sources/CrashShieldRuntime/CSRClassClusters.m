// CSRClassClusters.m: the concrete classes behind public class clusters, from real sample instances (see
// CSRClassClusters.h). No private Foundation class is ever named: the classes come from objects made the ways apps make
// them, and from the names clang's constant literals use (a compiler ABI, below).
//
// Apple's Foundation hands out a different class for many forms an alloc/init sample never produces: literals of
// constants (NSConstantArray, NSConstantDictionary: compiled into an app whose deployment target allows, below),
// empty and single-object forms (__NSArray0, __NSSingleObjectArrayI, __NSDictionary0, __NSSingleEntryDictionaryI,
// __NSSingleObjectSetI), constant strings (__NSCFConstantString), short ASCII strings (NSTaggedPointerString: a
// tagged pointer, whose class object_getClass reads from the pointer's tag), copies of mutable containers
// (__NSFrozenArrayM, __NSFrozenDictionaryM, __NSFrozenSetM), path strings (NSPathStore2), JSON containers and
// CoreFoundation-made objects (__NSCFArray, __NSCFDictionary, __NSCFSet, __NSCFString). GNUstep has fewer
// (GSInlineArray, GSArray, GSMutableArray, GSCInlineString, GSCBufferString, NSConstantString...). The samples below
// make every such form; only classes that are a kind of the family's public class are kept (and, for an immutable
// family, not of its mutable subclass: Apple's CoreFoundation classes, mutable or not, are NSMutable* subclasses).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <stdio.h>
#include <string.h>
#include "CSRClassClusters.h"
#include "CSRMemory.h"
#include "CSRClassClustersPlatform.h"   // the samples only one Foundation makes: Apple/, GNUstep/

/// The samples of one family: classes that are a kind of `family` and, for an immutable family (NSArray), not of its
/// mutable public subclass (NSMutableArray), which has its own family.
struct CSRClassSet { Class family; Class mutableFamily; CSRClass *out; int max; int count; };

static void csr_add_class(CSRClassSet *set, Class cls) {
    if (cls == Nil || ![cls isSubclassOfClass: set->family]) return;
    if (set->mutableFamily != Nil && [cls isSubclassOfClass: set->mutableFamily]) return;
    for (int i = 0; i < set->count; i++) if (set->out[i] == (CSR_BRIDGE CSRClass)cls) return;
    if (set->count < set->max) set->out[set->count++] = (CSR_BRIDGE CSRClass)cls;
}

static void csr_add(CSRClassSet *set, id object) {
    if (object == nil) return;
    csr_add_class(set, object_getClass(object));   // Apple: also for tagged pointers (the class comes from the tag)
}

void csr_cluster_add(CSRClassSet *set, id object) { csr_add(set, object); }

/// The classes clang's constant literals use. `@[...]` and `@{...}` of compile-time constants are emitted as data in
/// the binary whose isa is `OBJC_CLASS_$_NSConstantArray` or `OBJC_CLASS_$_NSConstantDictionary` (numbers:
/// NSConstantIntegerNumber, NSConstantFloatNumber, NSConstantDoubleNumber, NSNumber subclasses no family here
/// guards), the defaults of clang's `-fconstant-array-class=` and `-fconstant-dictionary-class=`: a compiler ABI name,
/// not Foundation behaviour. Clang emits them only where the deployment target's runtime has them
/// (`ObjCRuntime::hasConstantLiteralClasses`: macOS 11, iOS and tvOS 14, watchOS 7 and later; on by default in
/// clang's newest releases, `-fobjc-constant-literals` before, `-fno-objc-constant-literals` off), so no literal
/// in CrashShield's own samples (compiled for iOS 13 and macOS 10.15) produces them, while an app built for a newer
/// target does. Each is sampled where the running runtime has a class of that name (objc_lookUpClass; Nil on older
/// systems and on GNUstep) and, like every sample, kept only in the family it is a kind of.
static const char *const csr_literal_class_names[] = { "NSConstantArray", "NSConstantDictionary" };

/// Names a test adds to the literal class names (`csr_test_cluster_sample_class_named`).
#define CSR_TEST_NAME_MAX 8
static char csr_test_names[CSR_TEST_NAME_MAX][128];
static int csr_test_name_count;

static void csr_add_named_classes(CSRClassSet *set) {
    for (size_t i = 0; i < sizeof csr_literal_class_names / sizeof csr_literal_class_names[0]; i++) {
        csr_add_class(set, objc_lookUpClass(csr_literal_class_names[i]));
    }
    for (int i = 0; i < csr_test_name_count; i++) csr_add_class(set, objc_lookUpClass(csr_test_names[i]));
}

bool csr_test_cluster_sample_class_named(const char *name) {
    if (name == NULL) {
        csr_test_name_count = 0;
        return true;
    }
    if (csr_test_name_count == CSR_TEST_NAME_MAX || strlen(name) >= sizeof csr_test_names[0]) return false;
    snprintf(csr_test_names[csr_test_name_count++], sizeof csr_test_names[0], "%s", name);
    return true;
}

/// Adds the placeholder class `+alloc` hands out, then lets `-init` consume the placeholder.
static void csr_add_placeholder(CSRClassSet *set) {
    id placeholder = [set->family alloc];
    csr_add(set, placeholder);
    id object = [placeholder init];
    csr_add(set, object);
    CSR_RELEASE(object);
}

/// `object`, its copy, its mutable copy and the copy of its mutable copy (Apple: a "frozen" copy-on-write class).
static void csr_add_with_copies(CSRClassSet *set, id object) {
    csr_add(set, object);
    csr_add(set, CSR_AUTORELEASE([object copy]));
    id mutableCopy = CSR_AUTORELEASE([object mutableCopy]);
    csr_add(set, mutableCopy);
    csr_add(set, CSR_AUTORELEASE([mutableCopy copy]));
}

/// Strings "s0"... of `count` elements, in an immutable array.
static NSArray *csr_items(NSUInteger count) {
    NSMutableArray *items = [NSMutableArray arrayWithCapacity: count];
    for (NSUInteger i = 0; i < count; i++) [items addObject: [NSString stringWithFormat: @"s%lu", (unsigned long)i]];
    return [NSArray arrayWithArray: items];
}

NSArray *csr_cluster_items(NSUInteger count) { return csr_items(count); }

/// Sizes that select different storage on Apple: empty, single, small, large.
static const NSUInteger csr_sizes[] = { 0, 1, 3, 40 };
#define CSR_SIZE_COUNT (sizeof csr_sizes / sizeof csr_sizes[0])

static id csr_json(const char *text, BOOL mutableContainers) {
    NSData *data = [NSData dataWithBytes: text length: strlen(text)];
    return [NSJSONSerialization JSONObjectWithData: data
                                           options: mutableContainers ? NSJSONReadingMutableContainers : 0 error: NULL];
}

/// JSON values of every kind, immutable and mutable containers: the objects app code most often gets wrong.
static void csr_add_json(CSRClassSet *set) {
    static const char *document = "[[], [1], {\"k\": [1, 2]}, {}, \"ab\", \"a string longer than a tagged pointer\"]";
    for (int mutableContainers = 0; mutableContainers < 2; mutableContainers++) {
        NSArray *values = csr_json(document, mutableContainers ? YES : NO);
        csr_add(set, values);
        for (id value in values) csr_add(set, value);
    }
}

static void csr_array_samples(CSRClassSet *set) {
    // Literals: constant elements (a constant array only where this file's deployment target allows, which
    // CrashShield's does not: the literal classes are looked up by name, csr_add_named_classes) and a runtime element
    // (+arrayWithObjects:count:).
    NSArray *literals[] = { @[], @[@"a"], @[@"a", @"b"], @[@"a", @"b", @"c"], @[csr_items(1)] };
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) csr_add_with_copies(set, literals[i]);
    for (size_t i = 0; i < CSR_SIZE_COUNT; i++) {
        NSArray *items = csr_items(csr_sizes[i]);
        csr_add_with_copies(set, items);
        csr_add(set, [set->family arrayWithArray: items]);
    }
    NSArray *source = csr_items(3);
    csr_add(set, [set->family array]);
    csr_add(set, [set->family arrayWithObject: @"a"]);
    csr_add(set, [NSMutableArray arrayWithCapacity: 4]);
    csr_add(set, [source subarrayWithRange: NSMakeRange(1, 2)]);
    csr_add(set, [source arrayByAddingObject: @"d"]);
    csr_add(set, [source sortedArrayUsingSelector: @selector(compare:)]);
    csr_add(set, [[source reverseObjectEnumerator] allObjects]);
    csr_add(set, [@"a,b" componentsSeparatedByString: @","]);
    csr_add(set, [[NSDictionary dictionaryWithObject: @"v" forKey: @"k"] allKeys]);
    csr_add_json(set);
    csr_cluster_platform_samples(set, CSRClusterArrays);   // Apple: toll-free bridged arrays
}

static void csr_dictionary_samples(CSRClassSet *set) {
    NSDictionary *literals[] = { @{}, @{@"k": @"v"}, @{@"k1": @"v1", @"k2": @"v2", @"k3": @"v3"}, @{@"k": csr_items(1)} };
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) csr_add_with_copies(set, literals[i]);
    for (size_t i = 0; i < CSR_SIZE_COUNT; i++) {
        NSArray *keys = csr_items(csr_sizes[i]);
        NSDictionary *dictionary = [NSDictionary dictionaryWithObjects: keys forKeys: keys];
        csr_add_with_copies(set, dictionary);
        csr_add(set, [set->family dictionaryWithDictionary: dictionary]);
    }
    csr_add(set, [set->family dictionary]);
    csr_add(set, [set->family dictionaryWithObject: @"v" forKey: @"k"]);
    csr_add(set, [NSMutableDictionary dictionaryWithCapacity: 4]);
    csr_add_json(set);
    csr_cluster_platform_samples(set, CSRClusterDictionaries);   // Apple: shared-key and toll-free bridged dictionaries
}

static void csr_set_samples(CSRClassSet *set, BOOL ordered) {
    for (size_t i = 0; i < CSR_SIZE_COUNT; i++) {
        NSArray *items = csr_items(csr_sizes[i]);
        csr_add_with_copies(set, ordered ? (id)[set->family orderedSetWithArray: items] : (id)[set->family setWithArray: items]);
    }
    csr_add(set, ordered ? (id)[set->family orderedSetWithObject: @"a"] : (id)[set->family setWithObject: @"a"]);
    csr_add(set, ordered ? (id)[NSMutableOrderedSet orderedSetWithCapacity: 4] : (id)[NSMutableSet setWithCapacity: 4]);
    if (!ordered) {
        csr_add(set, [NSCountedSet setWithArray: csr_items(2)]);
        csr_cluster_platform_samples(set, CSRClusterSets);   // Apple: toll-free bridged sets
    }
}

static void csr_string_samples(CSRClassSet *set) {
    NSString *constantLong = @"a constant string longer than any tagged pointer";
    // Constants, short ASCII (Apple: tagged pointers), long and non-ASCII strings, and what common calls return.
    NSString *forms[] = {
        @"", @"c", @"constant", constantLong,
        [NSString stringWithUTF8String: "utf8"], [NSString stringWithUTF8String: "\xc3\xa9t\xc3\xa9"],
        [NSString stringWithUTF8String: "a string made at run time, longer than a tagged pointer"],
        [NSString stringWithFormat: @"%d", 42], [NSString stringWithFormat: @"%@ %d", constantLong, 42],
        [NSString stringWithString: constantLong], [NSString stringWithCString: "cstring" encoding: NSASCIIStringEncoding],
        [constantLong substringFromIndex: 3], [constantLong substringToIndex: 3], [constantLong uppercaseString],
        [[NSString stringWithUTF8String: "a substring of a string made at run time"] substringWithRange: NSMakeRange(2, 20)],
        [@"lower" uppercaseString], [@"ab" stringByAppendingString: @"cd"],
        [@"a,b" stringByReplacingOccurrencesOfString: @"," withString: @";"],
        [csr_items(3) componentsJoinedByString: @","], [[NSNumber numberWithInt: 42] stringValue],
        [@"folder" stringByAppendingPathComponent: @"file.txt"], [@"/folder/file.txt" lastPathComponent],
        [@"/folder/../file" stringByStandardizingPath], NSStringFromClass([NSObject class]),
        CSR_AUTORELEASE([[NSString alloc] initWithBytes: "bytes" length: 5 encoding: NSASCIIStringEncoding]),
        CSR_AUTORELEASE([[NSString alloc] initWithBytes: "u\0t\0" length: 4 encoding: NSUTF16LittleEndianStringEncoding]),
        CSR_AUTORELEASE([[NSString alloc] initWithData: [NSData dataWithBytes: "data" length: 4]
                                              encoding: NSUTF8StringEncoding]),
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) csr_add_with_copies(set, forms[i]);
    csr_add(set, [set->family string]);
    csr_add(set, [set->family stringWithFormat: @"%d", 7]);
    csr_add(set, [NSMutableString stringWithCapacity: 4]);
    // The strings an attributed string hands out (GNUstep: a wrapper, and a tracker that edits the attributed string).
    NSMutableAttributedString *attributed = CSR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"text"]);
    csr_add(set, [attributed string]);
    csr_add(set, [attributed mutableString]);
    csr_add_json(set);
    csr_cluster_platform_samples(set, CSRClusterStrings);   // Apple: toll-free bridged strings
}

static void csr_attributed_string_samples(CSRClassSet *set) {
    NSAttributedString *plain = CSR_AUTORELEASE([[NSAttributedString alloc] initWithString: @"text"]);
    NSDictionary *attributes = [NSDictionary dictionaryWithObject: @"v" forKey: @"k"];
    NSAttributedString *styled = CSR_AUTORELEASE([[NSAttributedString alloc] initWithString: @"text" attributes: attributes]);
    csr_add_with_copies(set, plain);
    csr_add_with_copies(set, styled);
    csr_add(set, [styled attributedSubstringFromRange: NSMakeRange(1, 2)]);
    csr_add(set, CSR_AUTORELEASE([[NSMutableAttributedString alloc] initWithAttributedString: styled]));
}

static void csr_data_samples(CSRClassSet *set) {
    static const char bytes[] = "the bytes of a data sample, longer than any inline storage";
    // Empty, small and large bytes, bytes not copied, and what common calls return.
    NSData *forms[] = {
        [NSData data], [NSData dataWithBytes: bytes length: 5], [NSData dataWithBytes: bytes length: sizeof bytes],
        [NSData dataWithBytesNoCopy: (void *)bytes length: 5 freeWhenDone: NO],
        [@"text" dataUsingEncoding: NSUTF8StringEncoding],
        [[NSData dataWithBytes: bytes length: sizeof bytes] subdataWithRange: NSMakeRange(1, 30)],
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) csr_add_with_copies(set, forms[i]);
    csr_add(set, [NSMutableData dataWithCapacity: 4]);
    csr_add(set, [NSMutableData dataWithLength: 4]);
}

/// Numbers of every width and kind (no literals: see `csr_add_named_classes` for the constant-number classes).
static void csr_number_samples(CSRClassSet *set) {
    NSNumber *forms[] = {
        [NSNumber numberWithBool: YES], [NSNumber numberWithChar: -3], [NSNumber numberWithUnsignedChar: 3],
        [NSNumber numberWithShort: -300], [NSNumber numberWithInt: 42], [NSNumber numberWithUnsignedInt: 42],
        [NSNumber numberWithLong: -70000], [NSNumber numberWithLongLong: 1LL << 40],
        [NSNumber numberWithUnsignedLongLong: ~0ULL], [NSNumber numberWithInteger: 7], [NSNumber numberWithUnsignedInteger: 7],
        [NSNumber numberWithFloat: 1.5f], [NSNumber numberWithDouble: 2.5], [NSNumber numberWithDouble: 1e300],
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) csr_add(set, forms[i]);
}

/// Dates: now, fixed, the distant past and future (GNUstep: singletons of their own classes).
static void csr_date_samples(CSRClassSet *set) {
    NSDate *forms[] = {
        [NSDate date], [NSDate dateWithTimeIntervalSince1970: 0], [NSDate dateWithTimeIntervalSinceReferenceDate: 1e9],
        [NSDate distantPast], [NSDate distantFuture],
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) csr_add(set, forms[i]);
}

/// What `+timerWithTimeInterval:target:selector:userInfo:repeats:` hands out, and so what
/// `+scheduledTimerWithTimeInterval:...` schedules: on Apple a CoreFoundation-backed subclass whose own
/// `initWithFireDate:interval:target:selector:userInfo:repeats:` sets the timer up with `CFRunLoopTimerCreate`
/// (public crash stacks: `+[NSTimer scheduledTimerWithTimeInterval:...]` -> `-[NSCFTimer initWithFireDate:...]`),
/// never NSTimer's; on GNUstep NSTimer itself. Made unscheduled with a target of Foundation's own and invalidated at
/// once: it never fires. No placeholder (`[[NSTimer alloc] init]` is not a timer Apple supports).
static void csr_timer_samples(CSRClassSet *set) {
    NSTimer *timer = [NSTimer timerWithTimeInterval: 3600 target: [NSNull null] selector: @selector(description)
                                           userInfo: nil repeats: NO];
    csr_add(set, timer);
    [timer invalidate];
}

/// File handles: a descriptor's (standard error, a pipe's ends: Apple's NSConcreteFileHandle, GNUstep's GSFileHandle)
/// and the null device's (Apple: a class of its own). No placeholder: `[[NSFileHandle alloc] init]` is no handle Apple
/// supports.
static void csr_file_handle_samples(CSRClassSet *set) {
    NSPipe *pipe = [NSPipe pipe];
    NSFileHandle *forms[] = {
        [NSFileHandle fileHandleWithStandardError], [NSFileHandle fileHandleWithNullDevice],
        [pipe fileHandleForReading], [pipe fileHandleForWriting],
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) csr_add(set, forms[i]);
}

CSRClass csr_cluster_placeholder_class(const char *family) {
    Class cls = family ? objc_lookUpClass(family) : Nil;
    if (cls == Nil) return NULL;
    Class result = Nil;
    @autoreleasepool {
        id placeholder = [cls alloc];
        result = object_getClass(placeholder);
        id object = [placeholder init];
        CSR_RELEASE(object);
    }
    return (CSR_BRIDGE CSRClass)result;
}

int csr_cluster_sample_classes(const char *family, CSRClass *out, int max) {
    if (family == NULL || out == NULL || max <= 0) return 0;
    Class cls = objc_lookUpClass(family);
    if (cls == Nil) return 0;
    Class mutableFamily = Nil;
    if (strncmp(family, "NSMutable", 9) != 0 && strncmp(family, "NS", 2) == 0) {
        char name[128];
        snprintf(name, sizeof name, "NSMutable%s", family + 2);
        mutableFamily = objc_lookUpClass(name);
    }
    CSRClassSet set = { cls, mutableFamily, out, max, 0 };
    @autoreleasepool {
        if (strcmp(family, "NSTimer") == 0) {
            csr_add_named_classes(&set);
            csr_timer_samples(&set);
            return set.count;
        }
        if (strcmp(family, "NSFileHandle") == 0) {
            csr_add_named_classes(&set);
            csr_file_handle_samples(&set);
            return set.count;
        }
        csr_add_placeholder(&set);
        csr_add_named_classes(&set);
        if (strcmp(family, "NSArray") == 0 || strcmp(family, "NSMutableArray") == 0) csr_array_samples(&set);
        else if (strcmp(family, "NSDictionary") == 0 || strcmp(family, "NSMutableDictionary") == 0) csr_dictionary_samples(&set);
        else if (strcmp(family, "NSSet") == 0 || strcmp(family, "NSMutableSet") == 0) csr_set_samples(&set, NO);
        else if (strcmp(family, "NSOrderedSet") == 0 || strcmp(family, "NSMutableOrderedSet") == 0) csr_set_samples(&set, YES);
        else if (strcmp(family, "NSString") == 0 || strcmp(family, "NSMutableString") == 0) csr_string_samples(&set);
        else if (strcmp(family, "NSAttributedString") == 0 || strcmp(family, "NSMutableAttributedString") == 0)
            csr_attributed_string_samples(&set);
        else if (strcmp(family, "NSData") == 0 || strcmp(family, "NSMutableData") == 0) csr_data_samples(&set);
        else if (strcmp(family, "NSNumber") == 0) csr_number_samples(&set);
        else if (strcmp(family, "NSDate") == 0) csr_date_samples(&set);
    }
    return set.count;
}
