// CSSMessagingScenarios.m: messages nothing answers (unrecognized selectors, messages to NSNull) that crash without
// CrashShield. The receiver classes declare the methods in a category that is never implemented, as app code that
// trusts a wrong type does: the compiler emits typed selectors for those calls.
#import <Foundation/Foundation.h>
#include "CSSFamilies.h"

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
static const char *performUntypedSelector(void) {
    return css_describe([profile() performSelector: NSSelectorFromString(@"refreshToken")]);
}
static const char *numberUsedAsString(void) {
    id value = css_opaque([NSNumber numberWithInt: 42]);   // a JSON number where the code expects a string
    return css_format("%lu", (unsigned long)[value length]);
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
    { "unrecognizedSelector.foundation.numberAsString", "unrecognizedSelector", "length", "NSInvalidArgumentException", "0", 1, numberUsedAsString },
    { "nsNull.length", "nsNull", "length", "NSInvalidArgumentException", "0", 1, nullLength },
    { "nsNull.integerValue", "nsNull", "integerValue", "NSInvalidArgumentException", "0", 1, nullIntegerValue },
    { "nsNull.objectForKey", "nsNull", "objectForKey:", "NSInvalidArgumentException", "nil", 1, nullObjectForKey },
};

const CSSScenario *css_messaging_scenarios(int *count) {
    *count = (int)(sizeof css_messaging_table / sizeof css_messaging_table[0]);
    return css_messaging_table;
}
