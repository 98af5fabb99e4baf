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
/// From the JSON object csbridge_copy_upload_statistics writes; nil when it is not one.
+ (instancetype)statisticsWithObject:(id)object;
- (instancetype)initWithObject:(NSDictionary *)object;
@end

@implementation CSUploadStatistics

@synthesize folder = _folder, isSentry = _isSentry, deliveredReports = _deliveredReports,
    rejectedBatches = _rejectedBatches, droppedReports = _droppedReports, requests = _requests,
    queuedReports = _queuedReports, credentialRefusals = _credentialRefusals, rateLimitedReports = _rateLimitedReports;

static NSInteger CSInteger(NSDictionary *object, NSString *key) {
    id value = [object objectForKey:key];
    return [value isKindOfClass:[NSNumber class]] ? [value integerValue] : 0;
}

+ (instancetype)statisticsWithObject:(id)object {
    if (![object isKindOfClass:[NSDictionary class]] || ![[object objectForKey:@"folder"] isKindOfClass:[NSString class]]) {
        return nil;
    }
    return CSR_AUTORELEASE([[self alloc] initWithObject:object]);
}

- (instancetype)initWithObject:(NSDictionary *)object {
    if (!(self = [super init])) return nil;
    _folder = [[NSURL alloc] initFileURLWithPath:[object objectForKey:@"folder"] isDirectory:YES];
    _isSentry = [[object objectForKey:@"sentry"] boolValue];
    _deliveredReports = CSInteger(object, @"deliveredReports");
    _rejectedBatches = CSInteger(object, @"rejectedBatches");
    _droppedReports = CSInteger(object, @"droppedReports");
    _requests = CSInteger(object, @"requests");
    _queuedReports = CSInteger(object, @"queuedReports");
    _credentialRefusals = CSInteger(object, @"credentialRefusals");
    _rateLimitedReports = CSInteger(object, @"rateLimitedReports");
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
    NSData *json = [configuration bridgeJSON:error];
    if (!json) return NO;
    NSMutableData *text = [NSMutableData dataWithData:json];
    [text appendBytes:"" length:1];
    CSReportHandler handler = configuration.reportHandler;
    CSBlockBox *box = handler ? [[CSBlockBox alloc] initWithBlock:handler] : nil;
    char *message = NULL;
    // Swift owns the box from here (also on failure) and releases it once no report can reach the handler.
    int32_t status = csbridge_start([text bytes], box ? CSDeliverReport : NULL, box ? CS_RETAINED_CONTEXT(box) : NULL,
                                    CSReleaseContext, &message);
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
    char *json = csbridge_copy_upload_statistics();
    if (!json) return @[];
    NSData *data = [NSData dataWithBytes:json length:strlen(json)];
    free(json);
    NSArray *objects = [NSJSONSerialization JSONObjectWithData:data options:0 error:NULL];
    NSMutableArray *list = [NSMutableArray array];
    for (id object in [objects isKindOfClass:[NSArray class]] ? objects : @[]) {
        CSUploadStatistics *statistics = [CSUploadStatistics statisticsWithObject:object];
        if (statistics) [list addObject:statistics];
    }
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
