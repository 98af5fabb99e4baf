// CSPSupport.h (private): memory macros for ARC (Apple) and manual reference counting (GCC's libobjc), a small
// text builder, and the address-free describer every proof tool compares outcomes with.
#ifndef CSP_SUPPORT_H
#define CSP_SUPPORT_H
#import <Foundation/Foundation.h>
#if defined(__APPLE__)
#import <objc/runtime.h>
#else
#include <objc/runtime.h>
#endif
#include <stdlib.h>
#include "CrashShieldProofKit.h"

#if __has_feature(objc_arc)
#define CSP_BRIDGE __bridge
#define CSP_RETAIN(x) (x)
#define CSP_RELEASE(x) ((void)(x))
#define CSP_AUTORELEASE(x) (x)
#define CSP_SUPER_DEALLOC() ((void)0)
#define CSP_POOL_BEGIN @autoreleasepool {
#define CSP_POOL_END }
#else
#define CSP_BRIDGE
#define CSP_RETAIN(x) [(x) retain]
#define CSP_RELEASE(x) [(x) release]
#define CSP_AUTORELEASE(x) [(x) autorelease]
#define CSP_SUPER_DEALLOC() [super dealloc]
#define CSP_POOL_BEGIN { NSAutoreleasePool *csp_pool = [[NSAutoreleasePool alloc] init];
#define CSP_POOL_END [csp_pool drain]; }
#endif

#if !defined(__APPLE__)
/// GNUstep 1.28 does not declare (or implement) it; Apple does. CrashShield's KVO guard adds it.
@interface NSObject (CSPContextRemoval)
- (void)removeObserver:(NSObject *)observer forKeyPath:(NSString *)keyPath context:(void *)context;
@end
#endif

/// Objects that describe themselves for the proof tools (no address, no hash order).
@protocol CSPDescribing
- (NSString *)cspDescription;
@end

/// A growing C string (malloc'ed).
typedef struct CSPText {
    char *bytes;
    size_t length;
    size_t capacity;
} CSPText;

void csp_text_append(CSPText *text, const char *bytes);
void csp_text_appendf(CSPText *text, const char *format, ...) __attribute__((format(printf, 2, 3)));
/// Hands the bytes over (the caller frees them); the text is empty afterwards.
char *csp_text_take(CSPText *text);

/// Appends a description of `object` that holds no address and no hash order: strings quoted, collections by
/// content (sets and dictionaries sorted), attributed strings with their attribute runs, other objects by class.
/// With `withClass`, the top-level object's class comes first ("GSMutableArray (a,b)").
void csp_describe(CSPText *text, id object, bool withClass);
/// `csp_describe` into a new malloc'ed string.
char *csp_describe_copy(id object, bool withClass);
/// An NSString from UTF-8 bytes (nil for NULL).
NSString *csp_string(const char *bytes);

/// Hides a value from the optimizer so a call is really made.
id csp_opaque(id object);

/// The count (collections) or length (strings) of a receiver; 0 for anything else.
NSUInteger csp_size_of(id object);

#endif
