// CSSSupport.m: helpers shared by the scenario families.
#import <Foundation/Foundation.h>
#include <stdarg.h>
#include <string.h>
#include "CSSFamilies.h"

const char *css_describe(id object) {
    if (object == nil) return "nil";
    NSString *text = [[object description] stringByReplacingOccurrencesOfString: @"\n" withString: @" "];
    return [text UTF8String];
}

const char *css_format(const char *format, ...) {
    va_list args;
    va_start(args, format);
    NSString *text = [[NSString alloc] initWithFormat: [NSString stringWithUTF8String: format] arguments: args];
    va_end(args);
#if !__has_feature(objc_arc)
    [text autorelease];
#endif
    return [text UTF8String];
}

id css_opaque(id object) {
    __asm__ volatile("" : : "r"(object) : "memory");
    return object;
}

NSUInteger css_opaque_index(NSUInteger index) {
    __asm__ volatile("" : "+r"(index));
    return index;
}

const char *css_dictionary_contents(NSDictionary *dictionary) {
    if (dictionary == nil) return "nil";
    NSMutableArray *pairs = [NSMutableArray array];
    NSArray *keys = [[dictionary allKeys] sortedArrayUsingSelector: @selector(compare:)];
    for (NSUInteger i = 0; i < [keys count]; i++) {
        id key = [keys objectAtIndex: i];
        [pairs addObject: [NSString stringWithFormat: @"%@=%@", key, [dictionary objectForKey: key]]];
    }
    return css_format("{%s}", [[pairs componentsJoinedByString: @","] UTF8String]);
}

const char *css_set_contents(NSSet *set) {
    if (set == nil) return "nil";
    NSArray *sorted = [[set allObjects] sortedArrayUsingSelector: @selector(compare:)];
    return css_format("{%s}", [[sorted componentsJoinedByString: @","] UTF8String]);
}

const char *css_ordered_set_contents(NSOrderedSet *set) {
    if (set == nil) return "nil";
    return css_format("(%s)", [[[set array] componentsJoinedByString: @","] UTF8String]);
}

void css_event_log_append(CSSEventLog *log, NSString *line) {
    pthread_mutex_lock(&log->lock);
    if (!log->text) log->text = [[NSMutableString alloc] init];
    [log->text appendString: line];
    [log->text appendString: @"\n"];
    log->count++;
    pthread_mutex_unlock(&log->lock);
}

long css_event_log_count(CSSEventLog *log) {
    pthread_mutex_lock(&log->lock);
    long count = log->count;
    pthread_mutex_unlock(&log->lock);
    return count;
}

void css_event_log_reset_count(CSSEventLog *log) {
    pthread_mutex_lock(&log->lock);
    log->count = 0;
    pthread_mutex_unlock(&log->lock);
}

void css_event_log_take(CSSEventLog *log, char *buffer, unsigned long size) {
    pthread_mutex_lock(&log->lock);
    const char *text = log->text ? [log->text UTF8String] : "";
    strncpy(buffer, text, size - 1);
    buffer[size - 1] = 0;
    [log->text setString: @""];
    log->count = 0;
    pthread_mutex_unlock(&log->lock);
}
