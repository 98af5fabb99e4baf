// CSReport.h: one stopped crash, as CrashShield's Objective-C API hands it over.
#import "CSTypes.h"

NS_ASSUME_NONNULL_BEGIN

/// One stopped crash: what Foundation would have raised, where, and how often. Immutable.
CS_OBJC_ONLY
@interface CSReport : NSObject {
    // Declared here: GCC's libobjc (GNUstep on Linux) has the fragile ABI, which synthesizes no instance variables
    // and has none in class extensions or @implementation.
@private
    NSString *_signature;
    CSGuard _guard;
    NSString *_guardName;
    NSString *_exceptionName;
    NSString *_reason;
    NSString *_receiverClassName;
    NSString *_selectorName;
    NSString *_method;
    NSString *_hint;
    BOOL _recovered;
    NSUInteger _occurrences;
    NSDate *_firstSeen;
    NSDate *_lastSeen;
    NSString *_threadName;
    BOOL _onMainThread;
    NSDictionary<NSString *, NSString *> *_details;
    NSDictionary<NSString *, id> *_dictionary;
}

/// Identifies reports of the same bug at the same call site (guard, class, selector, caller).
@property (nonatomic, readonly, copy) NSString *signature;
/// The guard that stopped it (one CSGuard bit).
@property (nonatomic, readonly) CSGuard guard;
/// The guard's name ("container", "kvo", ...).
@property (nonatomic, readonly, copy) NSString *guardName;
/// The exception Foundation would have raised (NSRangeException, ...).
@property (nonatomic, readonly, copy) NSString *exceptionName;
/// What the crash would have printed.
@property (nonatomic, readonly, copy) NSString *reason;
/// The receiver's class.
@property (nonatomic, readonly, copy) NSString *receiverClassName;
/// The selector called ("objectAtIndex:").
@property (nonatomic, readonly, copy) NSString *selectorName;
/// `-[Class selector]` or `+[Class selector]`.
@property (nonatomic, readonly, copy) NSString *method;
/// One line on how to fix the call site.
@property (nonatomic, readonly, copy) NSString *hint;
/// YES: stopped, the caller got a safe value; NO: debug mode, reported and then failed loudly.
@property (nonatomic, readonly) BOOL recovered;
/// How often this signature occurred (reports are handed over at 1, 10, 100, ... and on flush).
@property (nonatomic, readonly) NSUInteger occurrences;
@property (nonatomic, readonly, copy) NSDate *firstSeen;
@property (nonatomic, readonly, copy) NSDate *lastSeen;
/// The thread that made the bad call.
@property (nonatomic, readonly, copy) NSString *threadName;
@property (nonatomic, readonly) BOOL onMainThread;
/// Guard-specific facts (a key path, an observer's class, ...).
@property (nonatomic, readonly, copy) NSDictionary<NSString *, NSString *> *details;
/// The whole report as a JSON object (stack, caller frame, app and device context): what the report store keeps and
/// the HTTP sink uploads. Forward it to a crash service as it is.
@property (nonatomic, readonly, copy) NSDictionary<NSString *, id> *dictionary;

/// A report from its JSON object (`dictionary`, a line of the report store, one report of an HTTP body), read as
/// Swift reads it; nil when `data` is not a complete report.
+ (nullable instancetype)reportWithJSONData:(NSData *)data;
- (instancetype)init CS_UNAVAILABLE;

@end

NS_ASSUME_NONNULL_END
