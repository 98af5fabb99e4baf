// CSShield.h: start, stop and switch CrashShield from Objective-C (Swift apps: `CrashShield`).
#import "CSConfiguration.h"
#import "CSReport.h"

NS_ASSUME_NONNULL_BEGIN

/// What one upload sink did since the start that made it (Swift: `UploadStatistics`).
CS_OBJC_ONLY
@interface CSUploadStatistics : NSObject {
    // Declared here: GCC's libobjc (GNUstep on Linux) has the fragile ABI (see CSConfiguration.h).
@private
    NSURL *_folder;
    BOOL _isSentry;
    NSInteger _deliveredReports;
    NSInteger _rejectedBatches;
    NSInteger _droppedReports;
    NSInteger _requests;
    NSInteger _queuedReports;
    NSInteger _credentialRefusals;
    NSInteger _rateLimitedReports;
}
/// The sink's folder.
@property (nonatomic, readonly, copy) NSURL *folder;
/// YES for a Sentry sink, NO for HTTP.
@property (nonatomic, readonly) BOOL isSentry;
/// Reports the server accepted.
@property (nonatomic, readonly) NSInteger deliveredReports;
/// Batches the server refused for good (dropped with one log line each).
@property (nonatomic, readonly) NSInteger rejectedBatches;
/// Reports dropped by the memory or disk cap.
@property (nonatomic, readonly) NSInteger droppedReports;
/// Requests made (each retry counts).
@property (nonatomic, readonly) NSInteger requests;
/// Reports not yet answered by the server, kept in the folder.
@property (nonatomic, readonly) NSInteger queuedReports;
/// HTTP: 401/403 answers; the batch is kept for new credentials.
@property (nonatomic, readonly) NSInteger credentialRefusals;
/// Sentry: reports discarded while a Sentry rate limit was in effect.
@property (nonatomic, readonly) NSInteger rateLimitedReports;
- (instancetype)init CS_UNAVAILABLE;
@end

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
/// cannot be honoured, or for a sink that cannot work (a bad endpoint or DSN); then nothing is installed. A report
/// store (`reportStoreURL`) whose folder cannot be written now does not stop it: the guards start, the store keeps
/// its reports in memory and tries again later, and `sinkFailures` says so.
+ (BOOL)startWithConfiguration:(CSConfiguration *)configuration error:(NSError *_Nullable *_Nullable)error;
/// Every original implementation back; pending counts go to the sinks. Nothing when not running.
+ (void)stop;
/// Kill switch: switches guards off (calls behave as without CrashShield) or back on, at run time, without a
/// restart. NO and an error when not running or for bits that name no guard.
+ (BOOL)setGuard:(CSGuard)guards enabled:(BOOL)enabled error:(NSError *_Nullable *_Nullable)error;
/// Hands changed counts to the sinks and waits until they took every report so far, at most `timeout` seconds (0:
/// do not wait). YES: all delivered. The upload sinks have then stored the reports, not sent them: see
/// `waitForUploadsWithTimeout:`.
+ (BOOL)flushWithTimeout:(NSTimeInterval)timeout;
/// Like `flushWithTimeout:`, then waits until every upload sink of the last start has had every report so far
/// answered by its server (accepted, or rejected for good) or dropped, at most `timeout` seconds in all. YES: nothing
/// left to send. NO at the timeout, also while the server is down or refuses the credentials (the reports stay in
/// the sinks' folders for later). Upload sinks keep sending after `stop` until the next start.
+ (BOOL)waitForUploadsWithTimeout:(NSTimeInterval)timeout;
/// What each upload sink of the last start did so far, in `uploadSinks` order (empty before a start with upload
/// sinks).
@property (class, nonatomic, readonly, copy) NSArray<CSUploadStatistics *> *uploadStatistics;

@property (class, nonatomic, readonly) BOOL isRunning;
/// The sinks of the running configuration that cannot work now (a report store whose folder cannot be written), one
/// NSError each (CSErrorDomain, CSErrorInvalidSink, its localizedDescription says which sink and why); empty when
/// every sink works. A store leaves the list once it opened its file.
@property (class, nonatomic, readonly, copy) NSArray<NSError *> *sinkFailures;
/// The guards installed now.
@property (class, nonatomic, readonly) CSGuard activeGuards;
/// Every distinct report of this run, with current counts.
@property (class, nonatomic, readonly, copy) NSArray<CSReport *> *reports;

- (instancetype)init CS_UNAVAILABLE;

@end

NS_ASSUME_NONNULL_END
