// CSPrivate.h (private): what the Objective-C API's classes show each other: the configuration as Swift reads it,
// reports from the JSON Swift writes.
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
/// A report from its JSON object (a dictionary); nil when it is not one.
+ (nullable instancetype)reportWithObject:(id)object;
@end

NS_ASSUME_NONNULL_END
