// CSPDescribe.m: the text builder and the address-free describer the proof tools compare outcomes with.
#import <Foundation/Foundation.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSPSupport.h"

// MARK: Text

static void csp_text_reserve(CSPText *text, size_t extra) {
    if (text->length + extra + 1 <= text->capacity) return;
    size_t capacity = text->capacity ? text->capacity : 256;
    while (capacity < text->length + extra + 1) capacity *= 2;
    text->bytes = realloc(text->bytes, capacity);
    text->capacity = capacity;
}

void csp_text_append(CSPText *text, const char *bytes) {
    size_t count = strlen(bytes);
    csp_text_reserve(text, count);
    memcpy(text->bytes + text->length, bytes, count + 1);
    text->length += count;
}

void csp_text_appendf(CSPText *text, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char small[256];
    int count = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (count < 0) return;
    if ((size_t)count < sizeof small) { csp_text_append(text, small); return; }
    csp_text_reserve(text, (size_t)count);
    va_start(args, format);
    vsnprintf(text->bytes + text->length, (size_t)count + 1, format, args);
    va_end(args);
    text->length += (size_t)count;
}

char *csp_text_take(CSPText *text) {
    if (!text->bytes) return strdup("");
    char *bytes = text->bytes;
    text->bytes = NULL;
    text->length = text->capacity = 0;
    return bytes;
}

NSString *csp_string(const char *bytes) { return bytes ? [NSString stringWithUTF8String: bytes] : nil; }

id csp_opaque(id object) {
    __asm__ volatile("" : : "r"(object) : "memory");
    return object;
}

NSUInteger csp_size_of(id object) {
    if ([object isKindOfClass: [NSString class]] || [object isKindOfClass: [NSAttributedString class]]
        || [object isKindOfClass: [NSData class]]) {
        return [(NSString *)object length];
    }
    if ([object isKindOfClass: [NSArray class]] || [object isKindOfClass: [NSDictionary class]]
        || [object isKindOfClass: [NSSet class]] || [object isKindOfClass: [NSOrderedSet class]]) {
        return [(NSArray *)object count];
    }
    return 0;
}

// MARK: Describing

static const int csp_max_depth = 6;

static void csp_describe_at(CSPText *text, id object, int depth);

static int csp_compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/// Appends the descriptions of `count` objects, sorted, separated by commas (sets and dictionaries have no order).
static void csp_append_sorted(CSPText *text, char **items, NSUInteger count) {
    qsort(items, count, sizeof *items, csp_compare_strings);
    for (NSUInteger i = 0; i < count; i++) {
        if (i) csp_text_append(text, ",");
        csp_text_append(text, items[i]);
        free(items[i]);
    }
}

static char *csp_describe_item(id object, int depth) {
    CSPText item = {0};
    csp_describe_at(&item, object, depth);
    return csp_text_take(&item);
}

static void csp_describe_string(CSPText *text, NSString *string) {
    const char *bytes = [string UTF8String];
    csp_text_append(text, "\"");
    csp_text_append(text, bytes ? bytes : "<no UTF-8>");
    csp_text_append(text, "\"");
}

static void csp_describe_attributed(CSPText *text, NSAttributedString *string, int depth) {
    csp_text_append(text, "attributed ");
    csp_describe_string(text, [string string]);
    csp_text_append(text, " runs[");
    NSUInteger length = [string length];
    for (NSUInteger index = 0; index < length;) {
        NSRange run = NSMakeRange(0, 0);
        NSDictionary *attributes = [string attributesAtIndex: index effectiveRange: &run];
        csp_text_appendf(text, "%s{%lu,%lu}", index ? ";" : "", (unsigned long)run.location, (unsigned long)run.length);
        csp_describe_at(text, attributes, depth + 1);
        if (run.length == 0 || NSMaxRange(run) <= index) { csp_text_append(text, "!stuck"); break; }
        index = NSMaxRange(run);
    }
    csp_text_append(text, "]");
}

static void csp_describe_sequence(CSPText *text, id<NSFastEnumeration> objects, const char *open, int depth) {
    csp_text_append(text, open);
    bool first = true;
    for (id item in objects) {
        if (!first) csp_text_append(text, ",");
        first = false;
        csp_describe_at(text, item, depth + 1);
    }
    csp_text_append(text, ")");
}

static void csp_describe_set(CSPText *text, NSSet *set, int depth) {
    NSUInteger count = [set count], i = 0;
    char **items = calloc(count ? count : 1, sizeof *items);
    bool counted = [set isKindOfClass: [NSCountedSet class]];
    for (id item in set) {
        if (i == count) break;
        char *described = csp_describe_item(item, depth + 1);
        if (counted) {
            CSPText withCount = {0};
            csp_text_appendf(&withCount, "%s*%lu", described, (unsigned long)[(NSCountedSet *)set countForObject: item]);
            free(described);
            described = csp_text_take(&withCount);
        }
        items[i++] = described;
    }
    csp_text_append(text, "{");
    csp_append_sorted(text, items, i);
    csp_text_append(text, "}");
    free(items);
}

static void csp_describe_dictionary(CSPText *text, NSDictionary *dictionary, int depth) {
    NSUInteger count = [dictionary count], i = 0;
    char **items = calloc(count ? count : 1, sizeof *items);
    for (id key in dictionary) {
        if (i == count) break;
        CSPText pair = {0};
        csp_describe_at(&pair, key, depth + 1);
        csp_text_append(&pair, "=");
        csp_describe_at(&pair, [dictionary objectForKey: key], depth + 1);
        items[i++] = csp_text_take(&pair);
    }
    csp_text_append(text, "[");
    csp_append_sorted(text, items, i);
    csp_text_append(text, "]");
    free(items);
}

static void csp_describe_index_set(CSPText *text, NSIndexSet *indexes) {
    csp_text_append(text, "indexes[");
    NSUInteger index = [indexes firstIndex];
    bool first = true;
    while (index != NSNotFound) {
        csp_text_appendf(text, "%s%lu", first ? "" : ",", (unsigned long)index);
        first = false;
        index = [indexes indexGreaterThanIndex: index];
    }
    csp_text_append(text, "]");
}

static void csp_describe_at(CSPText *text, id object, int depth) {
    if (object == nil) { csp_text_append(text, "nil"); return; }
    if (depth > csp_max_depth) { csp_text_append(text, "..."); return; }
    if (class_isMetaClass(object_getClass(object))) {
        csp_text_appendf(text, "class %s", class_getName((Class)object));
    } else if ([object respondsToSelector: @selector(cspDescription)]) {
        csp_text_append(text, [[(id<CSPDescribing>)object cspDescription] UTF8String]);
    } else if ([object isKindOfClass: [NSString class]]) {
        csp_describe_string(text, object);
    } else if ([object isKindOfClass: [NSAttributedString class]]) {
        csp_describe_attributed(text, object, depth);
    } else if ([object isKindOfClass: [NSArray class]]) {
        csp_describe_sequence(text, object, "(", depth);
    } else if ([object isKindOfClass: [NSOrderedSet class]]) {
        csp_describe_sequence(text, object, "ordered(", depth);
    } else if ([object isKindOfClass: [NSSet class]]) {
        csp_describe_set(text, object, depth);
    } else if ([object isKindOfClass: [NSDictionary class]]) {
        csp_describe_dictionary(text, object, depth);
    } else if ([object isKindOfClass: [NSIndexSet class]]) {
        csp_describe_index_set(text, object);
    } else if ([object isKindOfClass: [NSNumber class]]) {
        csp_text_appendf(text, "number %s", [[object stringValue] UTF8String]);
    } else if ([object isKindOfClass: [NSNull class]]) {
        csp_text_append(text, "null");
    } else if ([object isKindOfClass: [NSData class]]) {
        const unsigned char *bytes = [(NSData *)object bytes];
        NSUInteger length = [(NSData *)object length];
        csp_text_append(text, "data<");
        for (NSUInteger i = 0; i < length; i++) csp_text_appendf(text, "%02x", bytes[i]);
        csp_text_append(text, ">");
    } else {
        csp_text_appendf(text, "<%s>", class_getName(object_getClass(object)));
    }
}

void csp_describe(CSPText *text, id object, bool withClass) {
    if (withClass && object != nil && !class_isMetaClass(object_getClass(object))) {
        csp_text_appendf(text, "%s ", class_getName(object_getClass(object)));
    }
    csp_describe_at(text, object, 0);
}

char *csp_describe_copy(id object, bool withClass) {
    CSPText text = {0};
    csp_describe(&text, object, withClass);
    return csp_text_take(&text);
}
