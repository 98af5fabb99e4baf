// CSShield.h: start, stop and switch CrashShield from Objective-C (Swift apps: `CrashShield`).
#import "CSConfiguration.h"
#import "CSReport.h"

NS_ASSUME_NONNULL_BEGIN

/// CrashShield's Objective-C entry point. Every method is safe from any thread.
///
/// ```objc
/// CSConfiguration *configuration = [CSConfiguration productionConfiguration];
/// configuration.reportHandler = ^(CSReport *report) { [MyCrashService record:report.dictionary]; };
/// NSError *error;
/// if (![CSShield startWithConfiguration:configuration error:&error]) NSLog(@"%@", error);
/// ```
CS_OBJC_ONLY
@interface CSShield : NSObject

/// Installs the configured guards. NO and an error (CSErrorDomain) when running already, for a configuration that
/// cannot be honoured, or for a sink that cannot work; then nothing is installed.
+ (BOOL)startWithConfiguration:(CSConfiguration *)configuration error:(NSError *_Nullable *_Nullable)error;
/// Every original implementation back; pending counts go to the sinks. Nothing when not running.
+ (void)stop;
/// Kill switch: switches guards off (calls behave as without CrashShield) or back on, at run time, without a
/// restart. NO and an error when not running or for bits that name no guard.
+ (BOOL)setGuard:(CSGuard)guards enabled:(BOOL)enabled error:(NSError *_Nullable *_Nullable)error;
/// Hands changed counts to the sinks and waits until they took every report so far, at most `timeout` seconds (0:
/// do not wait). YES: all delivered.
+ (BOOL)flushWithTimeout:(NSTimeInterval)timeout;

@property (class, nonatomic, readonly) BOOL isRunning;
/// The guards installed now.
@property (class, nonatomic, readonly) CSGuard activeGuards;
/// Every distinct report of this run, with current counts.
@property (class, nonatomic, readonly, copy) NSArray<CSReport *> *reports;

- (instancetype)init CS_UNAVAILABLE;

@end

NS_ASSUME_NONNULL_END
