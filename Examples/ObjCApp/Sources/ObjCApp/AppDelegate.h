#import <UIKit/UIKit.h>

NS_ASSUME_NONNULL_BEGIN

/// Starts CrashShield at launch, forwards its reports to the crash service, and follows the remote kill switch.
@interface AppDelegate : UIResponder <UIApplicationDelegate>
@property (nonatomic, strong, nullable) UIWindow *window;
/// Turns CrashShield on or off to match the remote flag (`CrashReporting.h`).
- (void)applyKillSwitch;
/// Hands reports to the crash service, or stops doing so (the user's choice; reports still go to the log).
- (void)setSharesReports:(BOOL)sharesReports;
@end

NS_ASSUME_NONNULL_END
