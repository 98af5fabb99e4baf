#import "CrashReporting.h"

NSString *const CrashReportingKilledKey = @"CrashShieldKilled";
NSString *const CrashReportingSharesReportsKey = @"ShareCrashReports";

BOOL CrashReportingIsKilledRemotely(void) {
    return [NSUserDefaults.standardUserDefaults boolForKey:CrashReportingKilledKey];
}

BOOL CrashReportingSharesReports(void) {
    id choice = [NSUserDefaults.standardUserDefaults objectForKey:CrashReportingSharesReportsKey];
    return choice == nil || [choice boolValue];
}

@implementation CrashService

- (void)recordNonFatalReport:(NSDictionary<NSString *, id> *)report {
    // The report's keys are CrashReport's: category, exceptionName, reason, className, selector, occurrences, ...
    NSLog(@"[crash service] non-fatal %@: %@ (guard %@, -[%@ %@], %@x)", report[@"exceptionName"], report[@"reason"],
          report[@"category"], report[@"className"], report[@"selector"], report[@"occurrences"]);
}

@end
