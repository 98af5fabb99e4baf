// CSConfiguration.m: the Objective-C configuration and upload sinks. Their defaults are Swift's
// (Configuration.production, UploadOptions(): csbridge_default_ functions); they are handed to Swift field by field
// (a BridgeConfiguration, ObjCBridgeConfiguration.swift; Swift validates it and says what to change).
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

/// The sink added to Swift's BridgeConfiguration; NO (and `*error`) when a value has the wrong type.
- (BOOL)addToBridgeConfiguration:(void *)configuration error:(NSError **)error {
    if (![_folder isKindOfClass:[NSURL class]] || ![_folder isFileURL]) {
        return CSInvalidArgument(@"an upload sink's folder must be a file URL", error);
    }
    if (!_isSentry && ![_endpoint isKindOfClass:[NSURL class]]) {
        return CSInvalidArgument(@"an HTTP upload sink needs an endpoint URL", error);
    }
    for (id key in _headers) {
        if (![key isKindOfClass:[NSString class]] || ![[_headers objectForKey:key] isKindOfClass:[NSString class]]) {
            return CSInvalidArgument(@"upload headers must map strings to strings", error);
        }
    }
    if (_dist && ![_dist isKindOfClass:[NSString class]]) {
        return CSInvalidArgument(@"an upload sink's dist must be a string", error);
    }
    if ((_DSN && ![_DSN isKindOfClass:[NSString class]]) || (_releaseName && ![_releaseName isKindOfClass:[NSString class]]) ||
        (_environment && ![_environment isKindOfClass:[NSString class]])) {
        return CSInvalidArgument(@"a Sentry sink's DSN, release and environment must be strings", error);
    }
    csbridge_configuration_add_upload(configuration, _isSentry ? NULL : [[_endpoint absoluteString] UTF8String],
                                      _isSentry ? [(_DSN ?: @"") UTF8String] : NULL, [[_folder path] UTF8String],
                                      _uploadedGuards, [_releaseName UTF8String], [_environment UTF8String],
                                      [_dist UTF8String]);
    for (NSString *key in _headers) {
        csbridge_configuration_add_upload_header(configuration, [key UTF8String], [[_headers objectForKey:key] UTF8String]);
    }
    return YES;
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

/// Adds each string of `names` to Swift's list through `add`.
static void CSAddNames(NSArray *names, void *configuration, void (*add)(void *, const char *)) {
    for (NSString *name in names) add(configuration, [name UTF8String]);
}

- (void *)newBridgeConfiguration:(NSError **)error {
    NSArray *excluded = CSStrings(_excludedClassNames, @"excludedClassNames", error);
    NSArray *prefixes = CSStrings(_protectedClassPrefixes, @"protectedClassPrefixes", error);
    NSArray *foundation = CSStrings(_unrecognizedSelectorFoundationClasses, @"unrecognizedSelectorFoundationClasses", error);
    NSArray *zombieClasses = CSStrings(_zombieClassNames, @"zombieClassNames", error);
    if (!excluded || !prefixes || !foundation || !zombieClasses) return NULL;
    for (id guard in _modeOverrides) {
        id mode = [_modeOverrides objectForKey:guard];
        if (![guard isKindOfClass:[NSNumber class]] || ![mode isKindOfClass:[NSNumber class]] ||
            ([mode integerValue] != CSModeRelease && [mode integerValue] != CSModeDebug)) {
            CSInvalidArgument(@"modeOverrides must map CSGuard numbers to CSMode numbers", error);
            return NULL;
        }
    }
    for (id className in _mainThreadOnlyMethods) {
        NSArray *selectors = CSStrings([_mainThreadOnlyMethods objectForKey:className], @"mainThreadOnlyMethods", error);
        if (![className isKindOfClass:[NSString class]] || !selectors) {
            CSInvalidArgument(@"mainThreadOnlyMethods must map class names to arrays of selector names", error);
            return NULL;
        }
    }
    if (![_uploadSinks isKindOfClass:[NSArray class]]) {
        CSInvalidArgument(@"uploadSinks must be an array of CSUploadSink objects", error);
        return NULL;
    }
    for (id sink in _uploadSinks) {
        if (![sink isKindOfClass:[CSUploadSink class]]) {
            CSInvalidArgument(@"uploadSinks must hold CSUploadSink objects", error);
            return NULL;
        }
    }
    if (_reportStoreURL && (![_reportStoreURL isKindOfClass:[NSURL class]] || ![_reportStoreURL isFileURL])) {
        CSInvalidArgument(@"reportStoreURL must be a file URL", error);
        return NULL;
    }
    void *configuration = csbridge_configuration_create();
    csbridge_configuration_set_guards(configuration, _guards, _mode == CSModeDebug);
    for (NSNumber *guard in _modeOverrides) {
        BOOL debug = [[_modeOverrides objectForKey:guard] integerValue] == CSModeDebug;
        csbridge_configuration_add_mode_override(configuration, (uint32_t)[guard unsignedIntValue], debug);
    }
    CSAddNames(excluded, configuration, csbridge_configuration_add_excluded_class);
    CSAddNames(prefixes, configuration, csbridge_configuration_add_protected_prefix);
    CSAddNames(foundation, configuration, csbridge_configuration_add_foundation_class);
    CSAddNames(zombieClasses, configuration, csbridge_configuration_add_zombie_class);
    csbridge_configuration_set_limits(configuration, _maxDistinctReports, _detailedCapturesPerSecond, _maxStackDepth);
    csbridge_configuration_set_zombies(configuration, _zombieMaxBytes, _zombieMaxCount, _zombieMaxObjectSize,
                                       _recordsZombieDeallocationStack);
    csbridge_configuration_set_switches(configuration, _kvoLeavesSystemClassesAlone, _redactsAppData, _logsReports);
    for (NSString *className in _mainThreadOnlyMethods) {
        csbridge_configuration_add_main_thread_method(configuration, [className UTF8String], NULL);
        for (NSString *selector in [_mainThreadOnlyMethods objectForKey:className]) {
            csbridge_configuration_add_main_thread_method(configuration, [className UTF8String], [selector UTF8String]);
        }
    }
    if (_reportStoreURL) csbridge_configuration_set_report_store(configuration, [[_reportStoreURL path] UTF8String]);
    for (CSUploadSink *sink in _uploadSinks) {
        if (![sink addToBridgeConfiguration:configuration error:error]) {
            csbridge_configuration_release(configuration);
            return NULL;
        }
    }
    return configuration;
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
