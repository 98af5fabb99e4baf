#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

/// A deliberate bug, each one a crash without CrashShield.
@interface BadCall : NSObject
@property (nonatomic, readonly, copy) NSString *title;
+ (NSArray<BadCall *> *)all;
/// Makes the bad call and says what the app got back (in a release build; a debug build stops at the call).
- (NSString *)run;
@end

NS_ASSUME_NONNULL_END
