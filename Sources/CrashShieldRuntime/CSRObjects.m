// CSRObjects.m: object descriptions and class-cluster samples (see CSRObjects.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <string.h>
#include <stdio.h>
#include "CSRObjects.h"
#include "CSRMemory.h"

void csr_object_describe(CSRObject object, char *buffer, size_t size) {
    if (size == 0) return;
    if (object == NULL) { snprintf(buffer, size, "nil"); return; }
    id value = (CSR_BRIDGE id)object;
    NSString *text = nil;
    @try { text = [value description]; } @catch (NSException *ignored) { text = nil; }
    const char *utf8 = [text UTF8String];
    snprintf(buffer, size, "%s", utf8 ? utf8 : class_getName(object_getClass(value)));
}

bool csr_string_copyUTF8(CSRObject string, char *buffer, size_t size) {
    id value = (CSR_BRIDGE id)string;
    if (size == 0 || value == nil || ![value isKindOfClass: [NSString class]]) return false;
    const char *utf8 = [(NSString *)value UTF8String];
    snprintf(buffer, size, "%s", utf8 ? utf8 : "");
    return true;
}

CSRObject csr_string_create(const char *utf8) {
    return (CSR_BRIDGE CSRObject)[NSString stringWithUTF8String: utf8 ? utf8 : ""];
}

void csr_with_autorelease_pool(void (*body)(void *context), void *context) {
    @autoreleasepool { body(context); }
}

// MARK: Class-cluster samples

typedef struct CSRClassSet { CSRClass *out; int max; int count; } CSRClassSet;

static void csr_add(CSRClassSet *set, id object) {
    if (object == nil) return;
    Class cls = object_getClass(object);
    for (int i = 0; i < set->count; i++) if (set->out[i] == (CSR_BRIDGE CSRClass)cls) return;
    if (set->count < set->max) set->out[set->count++] = (CSR_BRIDGE CSRClass)cls;
}

/// Adds the placeholder class `+alloc` hands out, then lets `-init` consume the placeholder.
static void csr_add_placeholder(CSRClassSet *set, Class family) {
    id placeholder = [family alloc];
    csr_add(set, placeholder);
    id object = [placeholder init];
    csr_add(set, object);
    CSR_RELEASE(object);
}

static void csr_array_samples(CSRClassSet *set, Class family, BOOL mutable) {
    id items[3] = { @"a", @"b", @"c" };
    csr_add_placeholder(set, family);
    for (NSUInteger n = 0; n <= 3; n++) csr_add(set, [family arrayWithObjects: items count: n]);
    csr_add(set, [family array]);
    csr_add(set, [family arrayWithObject: items[0]]);
    NSArray *source = [NSArray arrayWithObjects: items count: 3];
    csr_add(set, [source subarrayWithRange: NSMakeRange(1, 2)]);
    if (mutable) {
        csr_add(set, [NSMutableArray arrayWithCapacity: 4]);
        csr_add(set, CSR_AUTORELEASE([source mutableCopy]));
    } else {
        csr_add(set, CSR_AUTORELEASE([source copy]));
        csr_add(set, CSR_AUTORELEASE([CSR_AUTORELEASE([source mutableCopy]) copy]));
    }
}

static void csr_dictionary_samples(CSRClassSet *set, Class family, BOOL mutable) {
    id keys[3] = { @"k1", @"k2", @"k3" };
    id values[3] = { @"v1", @"v2", @"v3" };
    csr_add_placeholder(set, family);
    for (NSUInteger n = 0; n <= 3; n++) csr_add(set, [family dictionaryWithObjects: values forKeys: keys count: n]);
    csr_add(set, [family dictionary]);
    csr_add(set, [family dictionaryWithObject: values[0] forKey: keys[0]]);
    NSDictionary *source = [NSDictionary dictionaryWithObjects: values forKeys: keys count: 3];
    if (mutable) {
        csr_add(set, [NSMutableDictionary dictionaryWithCapacity: 4]);
        csr_add(set, CSR_AUTORELEASE([source mutableCopy]));
    } else {
        csr_add(set, CSR_AUTORELEASE([source copy]));
        csr_add(set, CSR_AUTORELEASE([CSR_AUTORELEASE([source mutableCopy]) copy]));
    }
}

static void csr_set_samples(CSRClassSet *set, Class family, BOOL mutable, BOOL ordered) {
    id items[3] = { @"a", @"b", @"c" };
    csr_add_placeholder(set, family);
    for (NSUInteger n = 0; n <= 3; n++) {
        csr_add(set, ordered ? (id)[family orderedSetWithObjects: items count: n] : (id)[family setWithObjects: items count: n]);
    }
    if (mutable) {
        csr_add(set, ordered ? (id)[NSMutableOrderedSet orderedSetWithCapacity: 4] : (id)[NSMutableSet setWithCapacity: 4]);
    }
}

static void csr_string_samples(CSRClassSet *set, Class family, BOOL mutable) {
    csr_add_placeholder(set, family);
    csr_add(set, @"constant");
    csr_add(set, [family stringWithUTF8String: "utf8"]);
    csr_add(set, [family stringWithUTF8String: "\xc3\xa9t\xc3\xa9"]);
    csr_add(set, [family stringWithFormat: @"%d", 42]);
    csr_add(set, [family stringWithString: @"copy"]);
    csr_add(set, [@"substring" substringFromIndex: 3]);
    csr_add(set, [@"lower" uppercaseString]);
    csr_add(set, [family string]);
    csr_add(set, CSR_AUTORELEASE([[family alloc] initWithBytes: "bytes" length: 5 encoding: NSASCIIStringEncoding]));
    csr_add(set, CSR_AUTORELEASE([[family alloc] initWithBytes: "u\0t\0" length: 4 encoding: NSUTF16LittleEndianStringEncoding]));
    // The strings an attributed string hands out (GNUstep: a wrapper, and a tracker that edits the attributed string).
    NSMutableAttributedString *attributed = CSR_AUTORELEASE([[NSMutableAttributedString alloc] initWithString: @"text"]);
    csr_add(set, [attributed string]);
    if (mutable) {
        csr_add(set, [NSMutableString stringWithCapacity: 4]);
        csr_add(set, CSR_AUTORELEASE([@"x" mutableCopy]));
        csr_add(set, [attributed mutableString]);
    }
}

static void csr_attributed_string_samples(CSRClassSet *set, Class family) {
    csr_add_placeholder(set, family);
    csr_add(set, CSR_AUTORELEASE([[family alloc] initWithString: @"text"]));
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
    CSRClassSet set = { out, max, 0 };
    @autoreleasepool {
        if (strcmp(family, "NSArray") == 0) csr_array_samples(&set, cls, NO);
        else if (strcmp(family, "NSMutableArray") == 0) csr_array_samples(&set, cls, YES);
        else if (strcmp(family, "NSDictionary") == 0) csr_dictionary_samples(&set, cls, NO);
        else if (strcmp(family, "NSMutableDictionary") == 0) csr_dictionary_samples(&set, cls, YES);
        else if (strcmp(family, "NSSet") == 0) csr_set_samples(&set, cls, NO, NO);
        else if (strcmp(family, "NSMutableSet") == 0) csr_set_samples(&set, cls, YES, NO);
        else if (strcmp(family, "NSOrderedSet") == 0) csr_set_samples(&set, cls, NO, YES);
        else if (strcmp(family, "NSMutableOrderedSet") == 0) csr_set_samples(&set, cls, YES, YES);
        else if (strcmp(family, "NSString") == 0) csr_string_samples(&set, cls, NO);
        else if (strcmp(family, "NSMutableString") == 0) csr_string_samples(&set, cls, YES);
        else if (strcmp(family, "NSAttributedString") == 0 || strcmp(family, "NSMutableAttributedString") == 0)
            csr_attributed_string_samples(&set, cls);
    }
    return set.count;
}
