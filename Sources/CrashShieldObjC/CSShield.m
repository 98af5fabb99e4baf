// CSShield.m: the Objective-C entry point, over Swift's CrashShield (CSBridge.h).
#import "CSShield.h"
#import "CSPrivate.h"
#import "CSBridge.h"
#import "CSSupport.h"
#include <stdlib.h>

/// Swift's report sink calls this on the delivery queue with the CSBlockBox of the configuration's handler.
static void CSDeliverReport(void *context, const void *bridgeReport) {
    @autoreleasepool {
        CSReport *report = [CSReport reportWithBridgeReport:bridgeReport];
        CSBlockBox *box = CS_CONTEXT_OBJECT(context);
        ((CSReportHandler)box->_block)(report);
    }
}

@interface CSUploadStatistics ()
- (instancetype)initWithBridgeStatistics:(const void *)statistics;
@end

/// Appends an NSError (CSErrorInvalidSink) saying `text` to the NSMutableArray `list`.
static void CSAppendSinkFailure(void *list, const char *text, const char *unused) {
    NSString *description = text ? [NSString stringWithUTF8String:text] : nil;
    if (!description) return;
    NSError *failure = [NSError errorWithDomain:CSErrorDomain code:CSErrorInvalidSink
                                       userInfo:@{NSLocalizedDescriptionKey: description}];
    [(CSR_BRIDGE NSMutableArray *)list addObject:failure];
}

/// Appends a CSUploadStatistics of the lent `statistics` to the NSMutableArray `list`.
static void CSAppendStatistics(void *list, const void *statistics) {
    CSUploadStatistics *item = [[CSUploadStatistics alloc] initWithBridgeStatistics:statistics];
    [(CSR_BRIDGE NSMutableArray *)list addObject:item];
    CSR_RELEASE(item);
}

@implementation CSUploadStatistics

@synthesize folder = _folder, isSentry = _isSentry, deliveredReports = _deliveredReports,
    rejectedBatches = _rejectedBatches, droppedReports = _droppedReports, requests = _requests,
    queuedReports = _queuedReports, credentialRefusals = _credentialRefusals, rateLimitedReports = _rateLimitedReports;

- (instancetype)initWithBridgeStatistics:(const void *)statistics {
    if (!(self = [super init])) return nil;
    char *folder = csbridge_upload_statistics_copy_folder(statistics);
    _folder = [[NSURL alloc] initFileURLWithPath:folder ? [NSString stringWithUTF8String:folder] : @"" isDirectory:YES];
    free(folder);
    _isSentry = csbridge_upload_statistics_is_sentry(statistics) ? YES : NO;
    _deliveredReports = csbridge_upload_statistics_delivered_reports(statistics);
    _rejectedBatches = csbridge_upload_statistics_rejected_batches(statistics);
    _droppedReports = csbridge_upload_statistics_dropped_reports(statistics);
    _requests = csbridge_upload_statistics_requests(statistics);
    _queuedReports = csbridge_upload_statistics_queued_reports(statistics);
    _credentialRefusals = csbridge_upload_statistics_credential_refusals(statistics);
    _rateLimitedReports = csbridge_upload_statistics_rate_limited_reports(statistics);
    return self;
}

- (NSString *)description {
    return [NSString stringWithFormat:@"<CSUploadStatistics %@: %ld delivered, %ld queued, %ld requests>", [_folder path],
                                      (long)_deliveredReports, (long)_queuedReports, (long)_requests];
}

#if !__has_feature(objc_arc)
- (void)dealloc {
    [_folder release];
    [super dealloc];
}
#endif

@end

@implementation CSShield

+ (BOOL)startWithConfiguration:(CSConfiguration *)configuration error:(NSError **)error {
    if (![configuration isKindOfClass:[CSConfiguration class]]) {
        return CSInvalidArgument(@"startWithConfiguration: needs a CSConfiguration", error);
    }
    void *bridgeConfiguration = [configuration newBridgeConfiguration:error];
    if (!bridgeConfiguration) return NO;
    CSReportHandler handler = configuration.reportHandler;
    CSBlockBox *box = handler ? [[CSBlockBox alloc] initWithBlock:handler] : nil;
    char *message = NULL;
    // Swift owns the box from here (also on failure) and releases it once no report can reach the handler.
    int32_t status = csbridge_start(bridgeConfiguration, box ? CSDeliverReport : NULL,
                                    box ? CS_RETAINED_CONTEXT(box) : NULL, CSReleaseContext, &message);
    csbridge_configuration_release(bridgeConfiguration);
    CSR_RELEASE(box);
    return CSBridgeResult(status, message, error);
}

+ (void)stop {
    csbridge_stop();
}

+ (BOOL)setGuard:(CSGuard)guards enabled:(BOOL)enabled error:(NSError **)error {
    char *message = NULL;
    return CSBridgeResult(csbridge_set_guard(guards, enabled ? true : false, &message), message, error);
}

+ (BOOL)flushWithTimeout:(NSTimeInterval)timeout {
    return csbridge_flush(timeout) ? YES : NO;
}

+ (BOOL)waitForUploadsWithTimeout:(NSTimeInterval)timeout {
    return csbridge_wait_for_uploads(timeout) ? YES : NO;
}

+ (NSArray<CSUploadStatistics *> *)uploadStatistics {
    NSMutableArray *list = [NSMutableArray array];
    csbridge_upload_statistics(CSAppendStatistics, (CSR_BRIDGE void *)list);
    return list;
}

+ (NSArray<NSError *> *)sinkFailures {
    NSMutableArray *list = [NSMutableArray array];
    csbridge_sink_failures(CSAppendSinkFailure, (CSR_BRIDGE void *)list);
    return list;
}

+ (BOOL)isRunning {
    return csbridge_is_running() ? YES : NO;
}

+ (CSGuard)activeGuards {
    return csbridge_active_guards();
}

+ (NSArray<CSReport *> *)reports {
    NSMutableArray *reports = [NSMutableArray array];
    csbridge_reports(CSAppendReport, (CSR_BRIDGE void *)reports);
    return reports;
}

@end
