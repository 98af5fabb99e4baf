// CSPrivate.h (private): what the Objective-C API's classes show each other: the configuration handed to Swift,
// reports from Swift's reports.
#import "CSConfiguration.h"
#import "CSReport.h"

NS_ASSUME_NONNULL_BEGIN

@interface CSConfiguration ()
/// A Swift BridgeConfiguration (ObjCBridgeConfiguration.swift) holding this configuration, +1
/// (csbridge_configuration_release); NULL and `*error` (CSErrorInvalidArgument) for a wrongly typed value.
- (nullable void *)newBridgeConfiguration:(NSError *_Nullable *_Nullable)error;
@end

@interface CSUploadSink ()
/// Adds this sink to the Swift BridgeConfiguration `configuration`; NO and `*error` (CSErrorInvalidArgument) for a
/// wrongly typed value.
- (BOOL)addToBridgeConfiguration:(void *)configuration error:(NSError *_Nullable *_Nullable)error;
@end

@interface CSReport ()
/// A report from a report Swift lends for one call (CSBridgeReportFunction).
+ (instancetype)reportWithBridgeReport:(const void *)report;
@end

/// A CSBridgeReportFunction: appends a CSReport of `report` to the NSMutableArray `list`.
void CSAppendReport(void *list, const void *report);

NS_ASSUME_NONNULL_END
