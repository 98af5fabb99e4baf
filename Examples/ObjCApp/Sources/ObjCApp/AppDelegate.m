#import "AppDelegate.h"
@import CrashShieldObjC;   // or #import <CrashShieldObjC.h>
#import "BadCallsViewController.h"
#import "CrashReporting.h"

NSString *const CrashShieldStatusDidChangeNotification = @"CrashShieldStatusDidChange";

@interface AppDelegate ()
@property (nonatomic, strong) CrashService *crashService;
@end

@implementation AppDelegate

- (BOOL)application:(UIApplication *)application didFinishLaunchingWithOptions:(NSDictionary *)launchOptions {
    self.crashService = [CrashService new];
    [self applyKillSwitch];   // starts CrashShield unless the remote flag says no
    self.window = [[UIWindow alloc] initWithFrame:UIScreen.mainScreen.bounds];
    self.window.rootViewController =
        [[UINavigationController alloc] initWithRootViewController:[BadCallsViewController new]];
    [self.window makeKeyAndVisible];
    return YES;
}

- (void)applicationDidBecomeActive:(UIApplication *)application {
    [self applyKillSwitch];   // remote configuration may have changed while the app was in the background
}

- (void)applicationDidEnterBackground:(UIApplication *)application {
    [CSShield flushWithTimeout:1.0];   // hand the latest counts to the sinks before iOS suspends the app
}

- (CSConfiguration *)crashShieldConfiguration {
#if DEBUG
    CSConfiguration *configuration = [CSConfiguration debugConfiguration];        // report, then fail loudly
#else
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];   // recover and report
#endif
    NSFileManager *files = NSFileManager.defaultManager;
    NSURL *support = [files URLsForDirectory:NSApplicationSupportDirectory inDomains:NSUserDomainMask].firstObject;
    NSURL *caches = [files URLsForDirectory:NSCachesDirectory inDomains:NSUserDomainMask].firstObject;
    configuration.reportStoreURL = [support URLByAppendingPathComponent:@"CrashShield/reports.jsonl"];
    // Your own endpoint; unsent reports wait in the folder for the next launch. (Sentry: +sentrySinkWithDSN:...)
    NSURL *endpoint = [NSURL URLWithString:@"https://api.example.com/crashes"];
    configuration.uploadSinks = @[[CSUploadSink HTTPSinkWithEndpoint:endpoint
                                                              folder:[caches URLByAppendingPathComponent:@"CrashShield/upload"]
                                                             headers:@{@"Authorization": @"Bearer <token>"}]];
    // Runs on CrashShield's delivery queue, never on the thread that made the bad call.
    CrashService *service = self.crashService;
    configuration.reportHandler = ^(CSReport *report) {
        if (CrashReportingSharesReports()) [service recordNonFatalReport:report.dictionary];
    };
    return configuration;
}

- (void)applyKillSwitch {
    if (CrashReportingIsKilledRemotely()) {
        [CSShield stop];   // every original implementation back at once, no restart; nothing when not running
    } else if (!CSShield.isRunning) {
        NSError *error = nil;
        if (![CSShield startWithConfiguration:[self crashShieldConfiguration] error:&error]) {
            NSLog(@"CrashShield did not start (%@): the app runs as it would without it", error.localizedDescription);
        }
    }
    // Observers update UI: posted on the main thread (its run loop delivers it), their handlers run there whoever
    // calls this.
    [NSNotificationCenter.defaultCenter cs_postNotificationName:CrashShieldStatusDidChangeNotification object:nil
                                                       onThread:NSThread.mainThread];
}

@end
