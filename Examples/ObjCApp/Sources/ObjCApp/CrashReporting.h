#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

/// Remote kill switch: YES turns CrashShield off. NSUserDefaults stands in for your remote-config service.
FOUNDATION_EXPORT NSString *const CrashReportingKilledKey;
/// The user's choice to share crash reports (default YES).
FOUNDATION_EXPORT NSString *const CrashReportingSharesReportsKey;
BOOL CrashReportingIsKilledRemotely(void);
BOOL CrashReportingSharesReports(void);

/// Stand-in for your crash service's SDK (a non-fatal issue in Crashlytics, Sentry, Bugsnag, your own backend).
@interface CrashService : NSObject
/// One CrashShield report (its JSON object), recorded as a non-fatal issue. Called on CrashShield's delivery queue.
- (void)recordNonFatalReport:(NSDictionary<NSString *, id> *)report;
@end

NS_ASSUME_NONNULL_END
