// CSSSupport.m: helpers shared by the scenario families.
#import <Foundation/Foundation.h>
#include <stdarg.h>
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
