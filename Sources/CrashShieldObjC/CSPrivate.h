// CSPrivate.h (private): what the Objective-C API's classes show each other: the configuration as Swift reads it,
// reports from Swift's reports.
#import "CSConfiguration.h"
#import "CSReport.h"

NS_ASSUME_NONNULL_BEGIN

@interface CSConfiguration ()
/// BridgeConfiguration's JSON (ObjCBridge.swift); nil and `*error` (CSErrorInvalidArgument) for a wrongly typed value.
- (nullable NSData *)bridgeJSON:(NSError *_Nullable *_Nullable)error;
@end

@interface CSUploadSink ()
/// BridgeConfiguration.Upload; nil and `*error` (CSErrorInvalidArgument) for a wrongly typed value.
- (nullable NSDictionary *)bridgeObject:(NSError *_Nullable *_Nullable)error;
@end

@interface CSReport ()
/// A report from a report Swift lends for one call (CSBridgeReportFunction).
+ (instancetype)reportWithBridgeReport:(const void *)report;
@end

/// A CSBridgeReportFunction: appends a CSReport of `report` to the NSMutableArray `list`.
void CSAppendReport(void *list, const void *report);

NS_ASSUME_NONNULL_END
