#import "AppDelegate.h"
#import <CrashShield.h>
#import "BadCallsViewController.h"
#import "CrashReporting.h"

/// CrashShield's report handler: one JSON object per report (first occurrence, then count updates), called on
/// CrashShield's delivery queue, never on the thread that made the bad call. `context` is the CrashService.
static void ForwardReport(const char *reportJSON, void *context) {
    @autoreleasepool {
        NSData *data = [NSData dataWithBytes:reportJSON length:strlen(reportJSON)];
        NSDictionary *report = [NSJSONSerialization JSONObjectWithData:data options:0 error:NULL];
        if ([report isKindOfClass:[NSDictionary class]]) {
            [(__bridge CrashService *)context recordNonFatalReport:report];
        }
    }
}

@interface AppDelegate ()
/// The handler's context: kept alive here for as long as the handler is registered.
@property (nonatomic, strong) CrashService *crashService;
@end

@implementation AppDelegate

- (BOOL)application:(UIApplication *)application didFinishLaunchingWithOptions:(NSDictionary *)launchOptions {
    self.crashService = [CrashService new];
    [self setSharesReports:CrashReportingSharesReports()];   // before starting: no report is missed
    [self applyKillSwitch];                                  // starts CrashShield unless the remote flag says no
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
    crashshield_flush(1.0);   // hand the latest counts to the handler before iOS suspends the app
}

- (void)applyKillSwitch {
    if (CrashReportingIsKilledRemotely()) {
        crashshield_stop();   // every original implementation back at once, no restart; nothing when not running
        return;
    }
#if DEBUG
    CrashShieldStatus status = crashshield_start(true);    // report, then fail loudly at the bad call
#else
    CrashShieldStatus status = crashshield_start(false);   // recover and report
#endif
    if (status != CrashShieldStatusOK && status != CrashShieldStatusAlreadyRunning) {
        NSLog(@"CrashShield did not start (status %d): the app runs as it would without it", (int)status);
    }
}

- (void)setSharesReports:(BOOL)sharesReports {
    if (sharesReports) {
        crashshield_set_report_handler(ForwardReport, (__bridge void *)self.crashService);
    } else {
        crashshield_clear_report_handler();
        // A report already being delivered may still arrive: an app that frees the context waits for this first.
        // (This one keeps the crash service alive in self.crashService.)
        crashshield_flush(1.0);
    }
}

@end
