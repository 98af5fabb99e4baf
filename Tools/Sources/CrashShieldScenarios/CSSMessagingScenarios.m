// CSSMessagingScenarios.m: messages nothing answers (unrecognized selectors, messages to NSNull) that crash without
// CrashShield. The receiver classes declare the methods in a category that is never implemented, as app code that
// trusts a wrong type does: the compiler emits typed selectors for those calls.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"
#include <objc/runtime.h>
#include <objc/message.h>
#include <string.h>

#if __has_feature(objc_arc)
#define CSS_MESSAGING_AUTORELEASE(x) (x)
#else
#define CSS_MESSAGING_AUTORELEASE(x) [(x) autorelease]
#endif

/// A struct returned in memory (larger than two registers), to prove the zeroed return reaches the caller.
typedef struct CSSFrame { double x, y, width, height; } CSSFrame;

/// An app model object.
@interface CSSMessagingProfile : NSObject
@end
@implementation CSSMessagingProfile
@end

/// What the code believes the object is: methods of another type, never implemented by CSSMessagingProfile.
@interface CSSMessagingProfile (BelievedType)
- (id)displayName;
- (NSInteger)followerCount;
- (double)completionRatio;
- (BOOL)isVerified;
- (NSRange)highlightRange;
- (CSSFrame)avatarFrame;
+ (id)sharedProfile;
@end

/// What code reading JSON believes a value is.
@interface NSObject (CSSBelievedJSONTypes)
- (NSUInteger)length;
- (NSInteger)integerValue;
- (id)objectForKey:(id)key;
@end

static CSSMessagingProfile *profile(void) {
    CSSMessagingProfile *object = [[CSSMessagingProfile alloc] init];
#if !__has_feature(objc_arc)
    [object autorelease];
#endif
    return css_opaque(object);
}

static const char *instanceReturningObject(void) { return css_describe([profile() displayName]); }
static const char *instanceReturningInteger(void) { return css_format("%ld", (long)[profile() followerCount]); }
static const char *instanceReturningDouble(void) { return css_format("%.3f", [profile() completionRatio]); }
static const char *instanceReturningBool(void) { return [profile() isVerified] ? "YES" : "NO"; }
static const char *instanceReturningRange(void) {
    NSRange range = [profile() highlightRange];
    return css_format("{%lu, %lu}", (unsigned long)range.location, (unsigned long)range.length);
}
static const char *instanceReturningLargeStruct(void) {
    CSSFrame frame = [profile() avatarFrame];
    return css_format("%g,%g,%g,%g", frame.x, frame.y, frame.width, frame.height);
}
static const char *classMethod(void) { return css_describe([css_opaque([CSSMessagingProfile class]) sharedProfile]); }
// The selectors made from strings below name no method: nothing is returned that could leak.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"
static const char *performUntypedSelector(void) {
    return css_describe([profile() performSelector: NSSelectorFromString(@"refreshToken")]);
}
#pragma clang diagnostic pop
/// An app class that does implement a frame-returning method: an untyped message of that name sent to another class
/// must be answered with this method's types (a struct returned in memory), not an object-returning guess, which
/// would take the hidden result pointer for the receiver.
@interface CSSMessagingShape : NSObject
- (CSSFrame)boundingFrame;
@end
@implementation CSSMessagingShape
- (CSSFrame)boundingFrame { CSSFrame frame = { 1, 2, 3, 4 }; return frame; }
@end

/// A selector without type information (built from a string, as JSON-mapping code does), a frame read back.
static const char *untypedStructReturn(void) {
    CSSMessagingProfile *target = profile();
    SEL selector = sel_registerName("boundingFrame");
#if defined(__APPLE__) && defined(__x86_64__)
    // Apple on x86_64: a 32-byte struct is returned in memory, through the _stret entry point.
    CSSFrame (*send)(id, SEL) = (CSSFrame (*)(id, SEL))objc_msgSend_stret;
#elif defined(__APPLE__)
    // Apple on arm64: objc_msgSend returns structs of any size (through x8 for large ones).
    CSSFrame (*send)(id, SEL) = (CSSFrame (*)(id, SEL))objc_msgSend;
#else
    // GCC's libobjc: look the implementation up, then call it with the struct-returning signature.
    CSSFrame (*send)(id, SEL) = (CSSFrame (*)(id, SEL))objc_msg_lookup(target, selector);
#endif
    CSSFrame frame = { 9, 9, 9, 9 };
    frame = send(target, selector);
    return css_format("{%g,%g,%g,%g}", frame.x, frame.y, frame.width, frame.height);
}

static const char *numberUsedAsString(void) {
    id value = css_opaque([NSNumber numberWithInt: 42]);   // a JSON number where the code expects a string
    return css_format("%lu", (unsigned long)[value length]);
}

/// A delegate protocol with an optional method the placeholder does not implement.
@protocol CSSPlaceholderDelegate <NSObject>
@optional
- (NSInteger)numberOfRowsForPlaceholder:(id)sender;
@end

/// A plain NSObject (the exact class) stands in as a delegate; code sends it an optional method without asking
/// respondsToSelector: first.
static const char *plainObjectOptionalMethod(void) {
    id<CSSPlaceholderDelegate> delegate = css_opaque(CSS_MESSAGING_AUTORELEASE([[NSObject alloc] init]));
    return css_format("%ld", (long)[delegate numberOfRowsForPlaceholder: nil]);
}

static const char *nullLength(void) { return css_format("%lu", (unsigned long)[css_opaque([NSNull null]) length]); }
static const char *nullIntegerValue(void) { return css_format("%ld", (long)[css_opaque([NSNull null]) integerValue]); }
static const char *nullObjectForKey(void) { return css_describe([css_opaque([NSNull null]) objectForKey: @"name"]); }

static const CSSScenario css_messaging_table[] = {
    { "unrecognizedSelector.instance.object", "unrecognizedSelector", "displayName", "NSInvalidArgumentException", "nil", 1, instanceReturningObject },
    { "unrecognizedSelector.instance.integer", "unrecognizedSelector", "followerCount", "NSInvalidArgumentException", "0", 1, instanceReturningInteger },
    { "unrecognizedSelector.instance.double", "unrecognizedSelector", "completionRatio", "NSInvalidArgumentException", "0.000", 1, instanceReturningDouble },
    { "unrecognizedSelector.instance.bool", "unrecognizedSelector", "isVerified", "NSInvalidArgumentException", "NO", 1, instanceReturningBool },
    { "unrecognizedSelector.instance.range", "unrecognizedSelector", "highlightRange", "NSInvalidArgumentException", "{0, 0}", 1, instanceReturningRange },
    { "unrecognizedSelector.instance.largeStruct", "unrecognizedSelector", "avatarFrame", "NSInvalidArgumentException", "0,0,0,0", 1, instanceReturningLargeStruct },
    { "unrecognizedSelector.class.object", "unrecognizedSelector", "sharedProfile", "NSInvalidArgumentException", "nil", 1, classMethod },
    { "unrecognizedSelector.performSelector.untyped", "unrecognizedSelector", "refreshToken", "NSInvalidArgumentException", "nil", 1, performUntypedSelector },
    { "unrecognizedSelector.untyped.structInMemory", "unrecognizedSelector", "boundingFrame", "NSInvalidArgumentException", "{0,0,0,0}", 1, untypedStructReturn },
    { "unrecognizedSelector.foundation.numberAsString", "unrecognizedSelector", "length", "NSInvalidArgumentException", "0", 1, numberUsedAsString },
    { "unrecognizedSelector.plainObject.optionalDelegateMethod", "unrecognizedSelector", "numberOfRowsForPlaceholder:", "NSInvalidArgumentException", "0", 1, plainObjectOptionalMethod },
    { "nsNull.length", "nsNull", "length", "NSInvalidArgumentException", "0", 1, nullLength },
    { "nsNull.integerValue", "nsNull", "integerValue", "NSInvalidArgumentException", "0", 1, nullIntegerValue },
    { "nsNull.objectForKey", "nsNull", "objectForKey:", "NSInvalidArgumentException", "nil", 1, nullObjectForKey },
};

const CSSScenario *css_messaging_scenarios(int *count) {
    *count = (int)(sizeof css_messaging_table / sizeof css_messaging_table[0]);
    return css_messaging_table;
}

// MARK: Test support: classes that handle forwarding themselves (they must behave exactly as without CrashShield)

/// Hands every message it lacks to a string.
@interface CSSForwardingTargetObject : NSObject
@end
@implementation CSSForwardingTargetObject
- (id)forwardingTargetForSelector:(SEL)selector { return @"forwarded"; }
@end

/// Answers messages it lacks with an invocation on a string.
@interface CSSInvocationForwarder : NSObject
@end
@implementation CSSInvocationForwarder
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    NSMethodSignature *signature = [super methodSignatureForSelector: selector];
    return signature ? signature : [@"invocation" methodSignatureForSelector: selector];
}
- (void)forwardInvocation:(NSInvocation *)invocation {
    [invocation invokeWithTarget: @"invocation"];
}
@end

/// A proxy for a string.
@interface CSSStringProxy : NSProxy
@end
@implementation CSSStringProxy
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector { return [@"proxy" methodSignatureForSelector: selector]; }
- (void)forwardInvocation:(NSInvocation *)invocation { [invocation invokeWithTarget: @"proxy"]; }
@end

/// Adds `dynamicValue` when it is first asked for.
@interface CSSDynamicResolver : NSObject
@end
static NSInteger css_dynamicValue(id self, SEL _cmd) { return 42; }
@implementation CSSDynamicResolver
+ (BOOL)resolveInstanceMethod:(SEL)selector {
    if (strcmp(sel_getName(selector), "dynamicValue") == 0) {
        class_addMethod(self, selector, (IMP)css_dynamicValue, "q16@0:8");
        return YES;
    }
    return [super resolveInstanceMethod: selector];
}
@end

@interface NSObject (CSSDynamicValue)
- (NSInteger)dynamicValue;
@end

static id css_new(Class cls) {
    id object = [[cls alloc] init];
#if !__has_feature(objc_arc)
    [object autorelease];
#endif
    return object;
}

/// What a valid message gave, or the exception it raised (GNUstep cannot forward a few selectors whose type it
/// cannot tell: that must stay the same with CrashShield too).
#define CSS_TRY(expression) ({ \
    const char *css_text; \
    @try { css_text = (expression); } \
    @catch (NSException *exception) { css_text = css_format("raised(%s)", [[exception reason] UTF8String]); } \
    css_text; })

@interface NSObject (CSSForwardedTypes)
- (NSString *)uppercaseString;
@end

const char *css_valid_messaging_calls(void) {
    id target = css_new([CSSForwardingTargetObject class]);
    id forwarder = css_new([CSSInvocationForwarder class]);
    id proxy = [CSSStringProxy alloc];
#if !__has_feature(objc_arc)
    [proxy autorelease];
#endif
    id resolver = css_new([CSSDynamicResolver class]);
    id profileObject = css_new([CSSMessagingProfile class]);
    id null = [NSNull null];
    const char *forwardedTarget = CSS_TRY(css_describe([target uppercaseString]));
    const char *forwardedLength = CSS_TRY(css_format("%lu", (unsigned long)[target length]));
    const char *invoked = CSS_TRY(css_describe([forwarder uppercaseString]));
    const char *invokedLength = CSS_TRY(css_format("%lu", (unsigned long)[forwarder length]));
    const char *proxied = CSS_TRY(css_describe([proxy uppercaseString]));
    const char *proxiedLength = CSS_TRY(css_format("%lu", (unsigned long)[proxy length]));
    const char *dynamic = CSS_TRY(css_format("%ld", (long)[resolver dynamicValue]));
    NSMethodSignature *asked = [profileObject methodSignatureForSelector: @selector(displayName)];
    NSMethodSignature *askedClass = [[CSSMessagingProfile class] methodSignatureForSelector: @selector(sharedProfile)];
    NSMethodSignature *askedNull = [null methodSignatureForSelector: @selector(length)];
    // Asked right after respondsToSelector: (which sends +resolveInstanceMethod: on both runtimes): still nil.
    BOOL responds = [profileObject respondsToSelector: @selector(followerCount)];
    NSMethodSignature *askedAfterResponds = [profileObject methodSignatureForSelector: @selector(followerCount)];
    return css_format("target=%s,%s invocation=%s,%s proxy=%s,%s dynamic=%s responds=%d,%d,%d,%d signatures=%s,%s,%s "
                      "afterResponds=%d,%s description=%s",
                      forwardedTarget, forwardedLength, invoked, invokedLength, proxied, proxiedLength, dynamic,
                      (int)[profileObject respondsToSelector: @selector(displayName)],
                      (int)[CSSMessagingProfile respondsToSelector: @selector(sharedProfile)],
                      (int)[null respondsToSelector: @selector(length)],
                      (int)[null respondsToSelector: @selector(objectForKey:)],
                      asked ? "yes" : "nil", askedClass ? "yes" : "nil", askedNull ? "yes" : "nil",
                      (int)responds, askedAfterResponds ? "yes" : "nil", [[null description] UTF8String]);
}

long css_messaging_repeat(unsigned long count) {
    long sum = 0;
    for (unsigned long i = 0; i < count; i++) {
        @autoreleasepool { sum += (long)[profile() followerCount]; }
    }
    return sum;
}

/// Sends the same untyped message (no selector type information, as on Apple, where no selector carries types)
/// `count` times to an app instance ("instance": `count`), an app class ("class": `length`) or NSNull ("null":
/// `length`); returns how many sends gave nil without raising (each send inside @try). GNUstep has several typed
/// selectors of each name, so it cannot pick a type by itself: as on Apple, only the receiver's
/// methodSignatureForSelector: answer lets the message be forwarded.
unsigned long css_messaging_repeat_untyped(const char *receiver, unsigned long count) {
    unsigned long nils = 0;
    BOOL toClass = strcmp(receiver, "class") == 0, toNull = strcmp(receiver, "null") == 0;
    SEL selector = NSSelectorFromString(toNull || toClass ? @"length" : @"count");
    for (unsigned long i = 0; i < count; i++) {
        @autoreleasepool {
            id target = toNull ? css_opaque([NSNull null]) : toClass ? css_opaque([CSSMessagingProfile class]) : profile();
            @try {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"
                if ([target performSelector: selector] == nil) nils++;
#pragma clang diagnostic pop
            } @catch (NSException *exception) {
                (void)exception;
            }
        }
    }
    return nils;
}

unsigned long css_messaging_untyped_shapes(unsigned long count) {
    SEL none = NSSelectorFromString(@"cssOwnershipProbe"), one = NSSelectorFromString(@"cssOwnershipProbe:"),
        two = NSSelectorFromString(@"cssOwnershipProbe:with:");
    unsigned long nils = 0;
    for (unsigned long i = 0; i < count; i++) {
        @autoreleasepool {
            id target = profile();
            @try {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"
                if ([target performSelector: none] == nil) nils++;
                if ([target performSelector: one withObject: @"argument"] == nil) nils++;
                if ([target performSelector: two withObject: @"first" withObject: target] == nil) nils++;
#pragma clang diagnostic pop
            } @catch (NSException *exception) {
                (void)exception;
            }
        }
    }
    return nils;
}

const char *css_messaging_placeholder_delegate(void) {
    id<CSSPlaceholderDelegate> delegate = css_opaque(css_new([NSObject class]));   // a placeholder delegate
    return CSS_TRY(css_format("%ld", (long)[delegate numberOfRowsForPlaceholder: nil]));
}

@interface NSObject (CSSPlainObjectClassSide)
+ (id)placeholderClassSetting;
@end

/// What a plain NSObject answers and does around a message it lacks, made where CrashShield must not change anything:
/// respondsToSelector:, methodSignatureForSelector: asked directly, the message sent by Foundation's own code
/// (makeObjectsPerformSelector:withObject:), and a class method NSObject lacks.
const char *css_messaging_plain_object_calls(void) {
    id placeholder = css_new([NSObject class]);
    NSArray *placeholders = [NSArray arrayWithObject: placeholder];
    const char *fromFoundation = CSS_TRY(([placeholders makeObjectsPerformSelector: @selector(numberOfRowsForPlaceholder:)
                                                                        withObject: nil], "returned"));
    const char *classSide = CSS_TRY(css_describe([css_opaque([NSObject class]) placeholderClassSetting]));
    NSMethodSignature *signature = [placeholder methodSignatureForSelector: @selector(numberOfRowsForPlaceholder:)];
    return css_format("responds=%d signature=%s fromFoundation=%s classSide=%s",
                      (int)[placeholder respondsToSelector: @selector(numberOfRowsForPlaceholder:)],
                      signature ? "yes" : "nil", fromFoundation, classSide);
}
