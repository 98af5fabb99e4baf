// CSConfiguration.m: the Objective-C configuration and upload sinks. Their defaults are Swift's
// (Configuration.production, UploadOptions(): csbridge_default_ functions); they are handed to Swift as one JSON object
// (BridgeConfiguration in ObjCBridge.swift reads it; Swift validates it and says what to change).
#import "CSConfiguration.h"
#import "CSPrivate.h"
#import "CSBridge.h"
#import "CSSupport.h"

/// Adds a name to the NSMutableArray `context`.
static void CSAddName(void *context, const char *name, const char *unused) {
    NSString *string = name ? [NSString stringWithUTF8String:name] : nil;
    if (string) [(CSR_BRIDGE NSMutableArray *)context addObject:string];
}

/// Adds a selector to its class's array in the NSMutableDictionary `context` (class name -> NSMutableArray).
static void CSAddMethod(void *context, const char *className, const char *selector) {
    NSString *name = className ? [NSString stringWithUTF8String:className] : nil;
    NSString *selectorName = selector ? [NSString stringWithUTF8String:selector] : nil;
    if (!name || !selectorName) return;
    NSMutableDictionary *methods = (CSR_BRIDGE NSMutableDictionary *)context;
    NSMutableArray *selectors = [methods objectForKey:name];
    if (!selectors) {
        selectors = [NSMutableArray array];
        [methods setObject:selectors forKey:name];
    }
    [selectors addObject:selectorName];
}

@implementation CSUploadSink

@synthesize isSentry = _isSentry, endpoint = _endpoint, DSN = _DSN, folder = _folder, headers = _headers,
    releaseName = _releaseName, environment = _environment, dist = _dist, uploadedGuards = _uploadedGuards;

- (instancetype)initWithEndpoint:(NSURL *)endpoint DSN:(NSString *)DSN folder:(NSURL *)folder
                         release:(NSString *)releaseName environment:(NSString *)environment {
    if ((self = [super init])) {
        _isSentry = DSN != nil;
        _endpoint = [endpoint copy];
        _DSN = [DSN copy];
        _folder = [folder copy];
        _releaseName = [releaseName copy];
        _environment = [environment copy];
        _headers = [@{} copy];
        _uploadedGuards = csbridge_default_uploaded_guards();
    }
    return self;
}

+ (instancetype)HTTPSinkWithEndpoint:(NSURL *)endpoint folder:(NSURL *)folder headers:(NSDictionary *)headers {
    CSUploadSink *sink = [[self alloc] initWithEndpoint:endpoint DSN:nil folder:folder release:nil environment:nil];
    if (headers) sink.headers = headers;
    return CSR_AUTORELEASE(sink);
}

+ (instancetype)sentrySinkWithDSN:(NSString *)DSN folder:(NSURL *)folder release:(NSString *)releaseName
                      environment:(NSString *)environment {
    CSUploadSink *sink = [[self alloc] initWithEndpoint:nil DSN:DSN ?: @"" folder:folder release:releaseName
                                            environment:environment];
    return CSR_AUTORELEASE(sink);
}

- (id)copyWithZone:(NSZone *)zone {
    CSUploadSink *copy = [[CSUploadSink alloc] initWithEndpoint:_endpoint DSN:_DSN folder:_folder release:_releaseName
                                                    environment:_environment];
    copy.headers = _headers;
    copy.dist = _dist;
    copy.uploadedGuards = _uploadedGuards;
    return copy;
}

/// The sink as BridgeConfiguration.Upload; nil (and `*error`) when a value has the wrong type.
- (NSDictionary *)bridgeObject:(NSError **)error {
    if (![_folder isKindOfClass:[NSURL class]] || ![_folder isFileURL]) {
        CSInvalidArgument(@"an upload sink's folder must be a file URL", error);
        return nil;
    }
    if (!_isSentry && ![_endpoint isKindOfClass:[NSURL class]]) {
        CSInvalidArgument(@"an HTTP upload sink needs an endpoint URL", error);
        return nil;
    }
    for (id key in _headers) {
        if (![key isKindOfClass:[NSString class]] || ![[_headers objectForKey:key] isKindOfClass:[NSString class]]) {
            CSInvalidArgument(@"upload headers must map strings to strings", error);
            return nil;
        }
    }
    NSMutableDictionary *object = [NSMutableDictionary dictionaryWithDictionary:@{
        @"kind": _isSentry ? @"sentry" : @"http",
        @"folder": [_folder path],
        @"headers": _headers ?: @{},
        @"uploadedGuards": @(_uploadedGuards),
    }];
    if (_endpoint) [object setObject:[_endpoint absoluteString] forKey:@"endpoint"];
    if (_DSN) [object setObject:_DSN forKey:@"dsn"];
    if (_releaseName) [object setObject:_releaseName forKey:@"release"];
    if (_environment) [object setObject:_environment forKey:@"environment"];
    if (_dist && ![_dist isKindOfClass:[NSString class]]) {
        CSInvalidArgument(@"an upload sink's dist must be a string", error);
        return nil;
    }
    if (_dist) [object setObject:_dist forKey:@"dist"];
    return object;
}

#if !__has_feature(objc_arc)
- (void)dealloc {
    [_endpoint release]; [_DSN release]; [_folder release]; [_headers release]; [_releaseName release];
    [_environment release]; [_dist release];
    [super dealloc];
}
#endif

@end

@implementation CSConfiguration

@synthesize guards = _guards, mode = _mode, modeOverrides = _modeOverrides, excludedClassNames = _excludedClassNames,
    protectedClassPrefixes = _protectedClassPrefixes,
    unrecognizedSelectorFoundationClasses = _unrecognizedSelectorFoundationClasses,
    maxDistinctReports = _maxDistinctReports, detailedCapturesPerSecond = _detailedCapturesPerSecond,
    maxStackDepth = _maxStackDepth, zombieMaxBytes = _zombieMaxBytes, zombieMaxCount = _zombieMaxCount,
    zombieMaxObjectSize = _zombieMaxObjectSize, zombieClassNames = _zombieClassNames,
    recordsZombieDeallocationStack = _recordsZombieDeallocationStack,
    kvoLeavesSystemClassesAlone = _kvoLeavesSystemClassesAlone, mainThreadOnlyMethods = _mainThreadOnlyMethods,
    redactsAppData = _redactsAppData, logsReports = _logsReports, reportStoreURL = _reportStoreURL,
    uploadSinks = _uploadSinks;

- (instancetype)init {
    if ((self = [super init])) {
        _guards = csbridge_default_guards();
        _mode = csbridge_default_debug_mode() ? CSModeDebug : CSModeRelease;
        _modeOverrides = [@{} copy];
        _excludedClassNames = [[NSSet alloc] init];
        _protectedClassPrefixes = [@[] copy];
        NSMutableArray *foundation = [NSMutableArray array];
        csbridge_default_foundation_classes(CSAddName, (CSR_BRIDGE void *)foundation);
        _unrecognizedSelectorFoundationClasses = [foundation copy];
        _maxDistinctReports = csbridge_default_max_distinct_reports();
        _detailedCapturesPerSecond = csbridge_default_detailed_captures_per_second();
        _maxStackDepth = csbridge_default_max_stack_depth();
        _zombieMaxBytes = csbridge_default_zombie_max_bytes();
        _zombieMaxCount = csbridge_default_zombie_max_count();
        _zombieMaxObjectSize = csbridge_default_zombie_max_object_size();
        _zombieClassNames = [[NSSet alloc] init];
        _recordsZombieDeallocationStack = csbridge_default_records_zombie_deallocation_stack() ? YES : NO;
        _kvoLeavesSystemClassesAlone = csbridge_default_kvo_leaves_system_classes_alone() ? YES : NO;
        NSMutableDictionary *methods = [NSMutableDictionary dictionary];
        csbridge_default_main_thread_only_methods(CSAddMethod, (CSR_BRIDGE void *)methods);
        _mainThreadOnlyMethods = [methods copy];
        // Objective-C's own default: Swift's Configuration.production has no sinks, an app adds LogReportSink.
        _logsReports = YES;
        _uploadSinks = [@[] copy];
    }
    return self;
}

+ (instancetype)productionConfiguration {
    return CSR_AUTORELEASE([[self alloc] init]);
}

+ (instancetype)debugConfiguration {
    CSConfiguration *configuration = [self productionConfiguration];
    configuration.mode = CSModeDebug;
    return configuration;
}

- (void)setMode:(CSMode)mode forGuard:(CSGuard)guard {
    NSMutableDictionary *overrides = [NSMutableDictionary dictionaryWithDictionary:_modeOverrides];
    [overrides setObject:@(mode) forKey:@(guard)];
    self.modeOverrides = overrides;
}

- (CSMode)modeForGuard:(CSGuard)guard {
    NSNumber *mode = [_modeOverrides objectForKey:@(guard)];
    return mode ? (CSMode)[mode integerValue] : _mode;
}

// A block is copied with Block_copy, never messaged (see CSSupport.h): no synthesized accessors.
- (CSReportHandler)reportHandler {
    return _reportHandler;
}

- (void)setReportHandler:(CSReportHandler)reportHandler {
    if (reportHandler == _reportHandler) return;
    CSReportHandler old = _reportHandler;
    _reportHandler = CS_BLOCK_COPY(reportHandler);   // Block_copy(NULL) and [nil copy] are nil
    if (old) CS_BLOCK_RELEASE(old);
}

- (id)copyWithZone:(NSZone *)zone {
    CSConfiguration *copy = [[CSConfiguration alloc] init];
    copy.guards = _guards;
    copy.mode = _mode;
    copy.modeOverrides = _modeOverrides;
    copy.excludedClassNames = _excludedClassNames;
    copy.protectedClassPrefixes = _protectedClassPrefixes;
    copy.unrecognizedSelectorFoundationClasses = _unrecognizedSelectorFoundationClasses;
    copy.maxDistinctReports = _maxDistinctReports;
    copy.detailedCapturesPerSecond = _detailedCapturesPerSecond;
    copy.maxStackDepth = _maxStackDepth;
    copy.zombieMaxBytes = _zombieMaxBytes;
    copy.zombieMaxCount = _zombieMaxCount;
    copy.zombieMaxObjectSize = _zombieMaxObjectSize;
    copy.zombieClassNames = _zombieClassNames;
    copy.recordsZombieDeallocationStack = _recordsZombieDeallocationStack;
    copy.kvoLeavesSystemClassesAlone = _kvoLeavesSystemClassesAlone;
    copy.mainThreadOnlyMethods = _mainThreadOnlyMethods;
    copy.redactsAppData = _redactsAppData;
    copy.reportHandler = _reportHandler;
    copy.logsReports = _logsReports;
    copy.reportStoreURL = _reportStoreURL;
    copy.uploadSinks = _uploadSinks;
    return copy;
}

/// `value` if it is an array (or set) of strings; nil and `*error` naming `field` otherwise.
static NSArray *CSStrings(id value, NSString *field, NSError **error) {
    NSArray *array = [value isKindOfClass:[NSSet class]] ? [value allObjects] : value;
    BOOL ok = [array isKindOfClass:[NSArray class]];
    for (id item in ok ? array : @[]) ok = ok && [item isKindOfClass:[NSString class]];
    if (!ok) CSInvalidArgument([NSString stringWithFormat:@"%@ must hold strings only", field], error);
    return ok ? array : nil;
}

- (NSData *)bridgeJSON:(NSError **)error {
    NSArray *excluded = CSStrings(_excludedClassNames, @"excludedClassNames", error);
    NSArray *prefixes = CSStrings(_protectedClassPrefixes, @"protectedClassPrefixes", error);
    NSArray *foundation = CSStrings(_unrecognizedSelectorFoundationClasses, @"unrecognizedSelectorFoundationClasses", error);
    NSArray *zombieClasses = CSStrings(_zombieClassNames, @"zombieClassNames", error);
    if (!excluded || !prefixes || !foundation || !zombieClasses) return nil;
    NSMutableArray *overrides = [NSMutableArray array];
    for (id guard in _modeOverrides) {
        id mode = [_modeOverrides objectForKey:guard];
        if (![guard isKindOfClass:[NSNumber class]] || ![mode isKindOfClass:[NSNumber class]] ||
            ([mode integerValue] != CSModeRelease && [mode integerValue] != CSModeDebug)) {
            CSInvalidArgument(@"modeOverrides must map CSGuard numbers to CSMode numbers", error);
            return nil;
        }
        [overrides addObject:@{@"guards": guard, @"mode": [mode integerValue] == CSModeDebug ? @"debug" : @"release"}];
    }
    NSMutableDictionary *methods = [NSMutableDictionary dictionary];
    for (id className in _mainThreadOnlyMethods) {
        NSArray *selectors = CSStrings([_mainThreadOnlyMethods objectForKey:className], @"mainThreadOnlyMethods", error);
        if (![className isKindOfClass:[NSString class]] || !selectors) {
            CSInvalidArgument(@"mainThreadOnlyMethods must map class names to arrays of selector names", error);
            return nil;
        }
        [methods setObject:selectors forKey:className];
    }
    if (![_uploadSinks isKindOfClass:[NSArray class]]) {
        CSInvalidArgument(@"uploadSinks must be an array of CSUploadSink objects", error);
        return nil;
    }
    NSMutableArray *uploads = [NSMutableArray array];
    for (id sink in _uploadSinks) {
        if (![sink isKindOfClass:[CSUploadSink class]]) {
            CSInvalidArgument(@"uploadSinks must hold CSUploadSink objects", error);
            return nil;
        }
        NSDictionary *upload = [sink bridgeObject:error];
        if (!upload) return nil;
        [uploads addObject:upload];
    }
    if (_reportStoreURL && (![_reportStoreURL isKindOfClass:[NSURL class]] || ![_reportStoreURL isFileURL])) {
        CSInvalidArgument(@"reportStoreURL must be a file URL", error);
        return nil;
    }
    NSMutableDictionary *object = [NSMutableDictionary dictionaryWithDictionary:@{
        @"guards": @(_guards),
        @"mode": _mode == CSModeDebug ? @"debug" : @"release",
        @"modeOverrides": overrides,
        @"excludedClassNames": excluded,
        @"protectedClassPrefixes": prefixes,
        @"unrecognizedSelectorFoundationClasses": foundation,
        @"maxDistinctReports": @(_maxDistinctReports),
        @"detailedCapturesPerSecond": @(_detailedCapturesPerSecond),
        @"maxStackDepth": @(_maxStackDepth),
        @"zombieMaxBytes": @(_zombieMaxBytes),
        @"zombieMaxCount": @(_zombieMaxCount),
        @"zombieMaxObjectSize": @(_zombieMaxObjectSize),
        @"zombieClassNames": zombieClasses,
        @"recordsZombieDeallocationStack": @(_recordsZombieDeallocationStack),
        @"kvoLeavesSystemClassesAlone": @(_kvoLeavesSystemClassesAlone),
        @"mainThreadOnlyMethods": methods,
        @"redactsAppData": @(_redactsAppData),
        @"logsReports": @(_logsReports),
        @"uploads": uploads,
    }];
    if (_reportStoreURL) [object setObject:[_reportStoreURL path] forKey:@"reportStorePath"];
    return [NSJSONSerialization dataWithJSONObject:object options:0 error:NULL];
}

#if !__has_feature(objc_arc)
- (void)dealloc {
    [_modeOverrides release]; [_excludedClassNames release]; [_protectedClassPrefixes release];
    [_unrecognizedSelectorFoundationClasses release]; [_zombieClassNames release]; [_mainThreadOnlyMethods release];
    [_reportStoreURL release]; [_uploadSinks release];
    if (_reportHandler) CS_BLOCK_RELEASE(_reportHandler);
    [super dealloc];
}
#endif

@end
