#import <UIKit/UIKit.h>

NS_ASSUME_NONNULL_BEGIN

/// Posted on the main thread whenever CrashShield was started or stopped (`object`: nil).
FOUNDATION_EXPORT NSString *const CrashShieldStatusDidChangeNotification;

/// Starts CrashShield at launch, forwards its reports to the crash service, and follows the remote kill switch.
@interface AppDelegate : UIResponder <UIApplicationDelegate>
@property (nonatomic, strong, nullable) UIWindow *window;
/// Turns CrashShield on or off to match the remote flag (`CrashReporting.h`).
- (void)applyKillSwitch;
@end

NS_ASSUME_NONNULL_END
