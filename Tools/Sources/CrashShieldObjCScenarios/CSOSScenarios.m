// CSOSScenarios.m: Objective-C app code using CrashShield's Objective-C API (see CrashShieldObjCScenarios.h).
//
// GNUstep note: a copied block does not retain the objects it captures there (libBlocksRuntime has no Objective-C
// hooks); every object a block here captures outlives the block's registration.
#import "../../../Sources/CrashShieldObjC/include/CrashShieldObjC.h"
#import "../CrashShieldScenarios/include/CrashShieldScenarios.h"   // css_runloop_thread_start/stop, css_runloop_run
#include "../../../Sources/CrashShieldRuntime/include/CSRTypes.h"
#include "../../../Sources/CrashShieldRuntime/CSRMemory.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// MARK: Support

/// `key=value` lines.
@interface CSOSOutput : NSObject {
    NSMutableString *_text;
}
- (void)set:(NSString *)key to:(id)value;
- (void)set:(NSString *)key error:(NSError *)error;
- (char *)copyText;
@end

@implementation CSOSOutput
- (instancetype)init {
    if ((self = [super init])) _text = [[NSMutableString alloc] init];
    return self;
}
- (void)set:(NSString *)key to:(id)value {
    [_text appendFormat:@"%@=%@\n", key, value ?: @"nil"];
}
/// "code|message" (or "nil").
- (void)set:(NSString *)key error:(NSError *)error {
    BOOL ours = [[error domain] isEqualToString:CSErrorDomain];
    [self set:key to:error ? [NSString stringWithFormat:@"%ld|%@", ours ? (long)[error code] : -1L,
                                                    [error localizedDescription]] : nil];
}
- (char *)copyText {
    return strdup([_text UTF8String]);
}
#if !__has_feature(objc_arc)
- (void)dealloc {
    [_text release];
    [super dealloc];
}
#endif
@end

/// A list other threads add to.
@interface CSOSLockedList : NSObject {
    NSLock *_lock;
    NSMutableArray *_items;
}
- (void)add:(id)item;
/// A copy of the items; `take` also forgets them.
- (NSArray *)items;
- (NSArray *)take;
@end

@implementation CSOSLockedList
- (instancetype)init {
    if ((self = [super init])) {
        _lock = [[NSLock alloc] init];
        _items = [[NSMutableArray alloc] init];
    }
    return self;
}
- (void)add:(id)item {
    [_lock lock];
    [_items addObject:item];
    [_lock unlock];
}
- (NSArray *)items {
    [_lock lock];
    NSArray *copy = [NSArray arrayWithArray:_items];
    [_lock unlock];
    return copy;
}
- (NSArray *)take {
    [_lock lock];
    NSArray *copy = [NSArray arrayWithArray:_items];
    [_items removeAllObjects];
    [_lock unlock];
    return copy;
}
#if !__has_feature(objc_arc)
- (void)dealloc {
    [_lock release];
    [_items release];
    [super dealloc];
}
#endif
@end

/// Collects what a report block receives, from CrashShield's delivery queue.
@interface CSOSReportLog : CSOSLockedList {
    volatile BOOL _onMain;
}
- (BOOL)handlerRanOnMainThread;
@end

@implementation CSOSReportLog
- (void)add:(id)report {
    if ([NSThread isMainThread]) _onMain = YES;
    [super add:report];
}
- (BOOL)handlerRanOnMainThread {
    return _onMain;
}
@end

/// Sends `configuration`'s reports to `log` (which the scenario keeps until CrashShield stopped and delivered all).
/// The block literal is copied by the setter: never messaged here (GNUstep: blocks are not objects, see CSSupport.h).
static void CSOSCollect(CSConfiguration *configuration, CSOSReportLog *log) {
    configuration.reportHandler = ^(CSReport *report) { [log add:report]; };
}

/// Stops CrashShield and waits until every report reached the sinks (none arrives after this returns).
static void CSOSStop(void) {
    [CSShield stop];
    [CSShield flushWithTimeout:5];
}

/// An array read past its end (NSRangeException without CrashShield). Not inlined: one call site.
static id CSOSReadPastEnd(void) __attribute__((noinline));
static id CSOSReadPastEnd(void) {
    NSArray *tags = [NSArray arrayWithObjects:@"new", @"sale", nil];
    return [tags objectAtIndex:2];
}

/// "recovered" when the bad call returned nil, the exception's name when it raised.
static NSString *CSOSTryReadPastEnd(void) {
    @try {
        return CSOSReadPastEnd() == nil ? @"recovered" : @"value";
    } @catch (NSException *exception) {
        return [exception name];
    }
}

static NSString *CSOSJoin(NSArray *items) {
    return [items componentsJoinedByString:@","];
}

// MARK: CSShield

char *csos_start_bad_call_report(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSOSReportLog *log = CSR_AUTORELEASE([[CSOSReportLog alloc] init]);
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer | CSGuardKVC;
    configuration.logsReports = NO;
    CSOSCollect(configuration, log);
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    [out set:@"running" to:@(CSShield.isRunning)];
    [out set:@"activeGuards" to:@(CSShield.activeGuards)];
    [out set:@"call" to:CSOSTryReadPastEnd()];
    [out set:@"flushed" to:@([CSShield flushWithTimeout:5])];
    NSArray *received = [log items];
    CSReport *report = [received firstObject];
    [out set:@"received" to:@([received count])];
    [out set:@"guard" to:@(report.guard)];
    [out set:@"guardName" to:report.guardName];
    [out set:@"exceptionName" to:report.exceptionName];
    [out set:@"method" to:report.method];
    [out set:@"reasonMentionsIndex" to:@([report.reason rangeOfString:@"2"].location != NSNotFound)];
    [out set:@"recovered" to:@(report.recovered)];
    [out set:@"occurrences" to:@(report.occurrences)];
    [out set:@"reportOnMainThread" to:@(report.onMainThread)];
    [out set:@"handlerOnMainThread" to:@([log handlerRanOnMainThread])];
    [out set:@"hasCallStack" to:@([[report.dictionary objectForKey:@"callStack"] isKindOfClass:[NSArray class]])];
    [out set:@"datesInOrder" to:@([report.firstSeen timeIntervalSince1970] > 1e9 &&
                                    [report.lastSeen compare:report.firstSeen] != NSOrderedAscending)];
    NSArray *list = CSShield.reports;
    [out set:@"listed" to:@([list count])];
    [out set:@"listedSameSignature" to:@([[[list firstObject] signature] isEqualToString:report.signature])];
    CSOSStop();
    [out set:@"runningAfterStop" to:@(CSShield.isRunning)];
    [out set:@"callAfterStop" to:CSOSTryReadPastEnd()];
    return [out copyText];
}

char *csos_report_fields(const char *json) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSReport *report = [CSReport reportWithJSONData:[NSData dataWithBytes:json length:strlen(json)]];
    [out set:@"decoded" to:@(report != nil)];
    [out set:@"signature" to:report.signature];
    [out set:@"guard" to:@(report.guard)];
    [out set:@"guardName" to:report.guardName];
    [out set:@"exceptionName" to:report.exceptionName];
    [out set:@"reason" to:report.reason];
    [out set:@"receiverClassName" to:report.receiverClassName];
    [out set:@"selectorName" to:report.selectorName];
    [out set:@"method" to:report.method];
    [out set:@"hint" to:report.hint];
    [out set:@"recovered" to:@(report.recovered)];
    [out set:@"occurrences" to:@(report.occurrences)];
    [out set:@"firstSeenMilliseconds" to:@((long long)llround([report.firstSeen timeIntervalSince1970] * 1000))];
    [out set:@"lastSeenMilliseconds" to:@((long long)llround([report.lastSeen timeIntervalSince1970] * 1000))];
    [out set:@"threadName" to:report.threadName];
    [out set:@"onMainThread" to:@(report.onMainThread)];
    NSMutableArray *details = [NSMutableArray array];
    for (NSString *key in [[report.details allKeys] sortedArrayUsingSelector:@selector(compare:)]) {
        [details addObject:[NSString stringWithFormat:@"%@:%@", key, [report.details objectForKey:key]]];
    }
    [out set:@"details" to:CSOSJoin(details)];
    [out set:@"dictionaryKeys" to:CSOSJoin([[report.dictionary allKeys] sortedArrayUsingSelector:@selector(compare:)])];
    [out set:@"dictionaryCallerFunction" to:[report.dictionary objectForKey:@"callerFunction"]];
    NSData *partial = [@"{\"signature\":\"s\",\"firstSeen\":\"2026-01-01T00:00:00Z\",\"lastSeen\":\"2026-01-01T00:00:00Z\"}"
        dataUsingEncoding:NSUTF8StringEncoding];
    [out set:@"partialIsNil" to:@([CSReport reportWithJSONData:partial] == nil)];
    [out set:@"garbageIsNil" to:@([CSReport reportWithJSONData:[NSData dataWithBytes:"[1," length:3]] == nil)];
    return [out copyText];
}

char *csos_start_every_field(const char *folder) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSString *base = [NSString stringWithUTF8String:folder];
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer | CSGuardKVC;
    configuration.mode = CSModeDebug;
    [configuration setMode:CSModeRelease forGuard:CSGuardKVC];
    configuration.excludedClassNames = [NSSet setWithObject:@"NSLock"];
    configuration.protectedClassPrefixes = @[@"MYApp"];
    configuration.unrecognizedSelectorFoundationClasses = @[@"NSString"];
    configuration.maxDistinctReports = 100;
    configuration.detailedCapturesPerSecond = 5;
    configuration.maxStackDepth = 16;
    configuration.zombieMaxBytes = 1 << 20;
    configuration.zombieMaxCount = 50;
    configuration.zombieMaxObjectSize = 1024;
    configuration.zombieClassNames = [NSSet setWithObject:@"NSLock"];
    configuration.recordsZombieDeallocationStack = YES;
    configuration.kvoLeavesSystemClassesAlone = NO;
    configuration.mainThreadOnlyMethods = @{@"NSLock": @[@"lock", @"unlock"], @"NSCondition": @[]};
    configuration.redactsAppData = YES;
    configuration.logsReports = NO;
    configuration.reportStoreURL = [NSURL fileURLWithPath:[base stringByAppendingPathComponent:@"reports.jsonl"]];
    CSUploadSink *http = [CSUploadSink HTTPSinkWithEndpoint:[NSURL URLWithString:@"http://127.0.0.1:9/crashes"]
                                                     folder:[NSURL fileURLWithPath:[base stringByAppendingPathComponent:@"http"]]
                                                    headers:@{@"Authorization": @"Bearer csos", @"X-App": @"MY\u00c9"}];
    http.uploadedGuards = CSGuardContainer;
    CSUploadSink *sentry = [CSUploadSink sentrySinkWithDSN:@"http://csoskey@127.0.0.1:9/42"
                                                    folder:[NSURL fileURLWithPath:[base stringByAppendingPathComponent:@"sentry"]]
                                                   release:@"csos@1.0" environment:@"test"];
    sentry.dist = @"77";
    configuration.uploadSinks = @[http, sentry];
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    return [out copyText];
}

char *csos_configuration_defaults(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    [out set:@"guards" to:@(configuration.guards)];
    [out set:@"mode" to:@(configuration.mode)];
    [out set:@"debugMode" to:@([CSConfiguration debugConfiguration].mode)];
    [out set:@"modeOverrides" to:@([configuration.modeOverrides count])];
    [out set:@"excludedClassNames" to:@([configuration.excludedClassNames count])];
    [out set:@"protectedClassPrefixes" to:@([configuration.protectedClassPrefixes count])];
    [out set:@"unrecognizedSelectorFoundationClasses" to:CSOSJoin(configuration.unrecognizedSelectorFoundationClasses)];
    [out set:@"maxDistinctReports" to:@(configuration.maxDistinctReports)];
    [out set:@"detailedCapturesPerSecond" to:@(configuration.detailedCapturesPerSecond)];
    [out set:@"maxStackDepth" to:@(configuration.maxStackDepth)];
    [out set:@"zombieMaxBytes" to:@(configuration.zombieMaxBytes)];
    [out set:@"zombieMaxCount" to:@(configuration.zombieMaxCount)];
    [out set:@"zombieMaxObjectSize" to:@(configuration.zombieMaxObjectSize)];
    [out set:@"zombieClassNames" to:@([configuration.zombieClassNames count])];
    [out set:@"recordsZombieDeallocationStack" to:@(configuration.recordsZombieDeallocationStack)];
    [out set:@"kvoLeavesSystemClassesAlone" to:@(configuration.kvoLeavesSystemClassesAlone)];
    NSMutableArray *methods = [NSMutableArray array];
    for (NSString *className in [[configuration.mainThreadOnlyMethods allKeys] sortedArrayUsingSelector:@selector(compare:)]) {
        for (NSString *selector in [configuration.mainThreadOnlyMethods objectForKey:className]) {
            [methods addObject:[NSString stringWithFormat:@"%@.%@", className, selector]];
        }
    }
    [out set:@"mainThreadOnlyMethods" to:CSOSJoin(methods)];
    [out set:@"redactsAppData" to:@(configuration.redactsAppData)];
    [out set:@"logsReports" to:@(configuration.logsReports)];
    [out set:@"uploadSinks" to:@([configuration.uploadSinks count])];
    CSUploadSink *sink = [CSUploadSink HTTPSinkWithEndpoint:[NSURL URLWithString:@"https://example.com/r"]
                                                     folder:[NSURL fileURLWithPath:@"/tmp/csos-defaults"] headers:nil];
    [out set:@"uploadedGuards" to:@(sink.uploadedGuards)];
    return [out copyText];
}

char *csos_kill_switch(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer | CSGuardKVC;
    configuration.logsReports = NO;
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"on" to:CSOSTryReadPastEnd()];
    [out set:@"switchedOff" to:@([CSShield setGuard:CSGuardContainer enabled:NO error:&error])];
    [out set:@"activeAfterOff" to:@(CSShield.activeGuards)];
    [out set:@"off" to:CSOSTryReadPastEnd()];
    [out set:@"switchedOn" to:@([CSShield setGuard:CSGuardContainer enabled:YES error:&error])];
    [out set:@"onAgain" to:CSOSTryReadPastEnd()];
    error = nil;
    [out set:@"unknownBits" to:@([CSShield setGuard:(CSGuard)(1u << 20) enabled:NO error:&error])];
    [out set:@"unknownBitsError" error:error];
    CSOSStop();
    error = nil;
    [out set:@"whenStopped" to:@([CSShield setGuard:CSGuardContainer enabled:YES error:&error])];
    [out set:@"whenStoppedError" error:error];
    return [out copyText];
}

char *csos_flush_count_update(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSOSReportLog *log = CSR_AUTORELEASE([[CSOSReportLog alloc] init]);
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    CSOSCollect(configuration, log);
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:NULL])];
    for (int i = 0; i < 3; i++) (void)CSOSTryReadPastEnd();
    [out set:@"flushed" to:@([CSShield flushWithTimeout:5])];
    NSMutableArray *counts = [NSMutableArray array];
    for (CSReport *report in [log items]) [counts addObject:@(report.occurrences)];
    [out set:@"deliveries" to:CSOSJoin(counts)];
    [out set:@"listedOccurrences" to:@([[CSShield.reports firstObject] occurrences])];
    CSOSStop();
    return [out copyText];
}

/// Starts `configuration` expecting a failure: "code|message", and whether anything stayed running.
static void CSOSExpectRefused(CSOSOutput *out, NSString *key, CSConfiguration *configuration) {
    NSError *error = nil;
    BOOL started = [CSShield startWithConfiguration:configuration error:&error];
    [out set:key error:error];
    [out set:[key stringByAppendingString:@".started"] to:@(started)];
    [out set:[key stringByAppendingString:@".running"] to:@(CSShield.isRunning)];
    if (started) CSOSStop();
}

char *csos_bad_input(const char *folder) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSString *base = [NSString stringWithUTF8String:folder];
    CSConfiguration *none = nil;
    CSOSExpectRefused(out, @"nilConfiguration", none);

    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.zombieClassNames = [NSSet setWithObject:@"CSOSNoSuchClass"];
    CSOSExpectRefused(out, @"unknownClass", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.excludedClassNames = [NSSet setWithObjects:@"CSOSNoSuchClass", @"NSObject", nil];
    CSOSExpectRefused(out, @"rootExcluded", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.protectedClassPrefixes = @[@"CSOS", @"NS"];
    CSOSExpectRefused(out, @"foundationPrefix", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.protectedClassPrefixes = @[@"__NS"];
    CSOSExpectRefused(out, @"underscorePrefix", configuration);

    // A stale name in the deny list is logged and skipped: CrashShield starts.
    configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    configuration.excludedClassNames = [NSSet setWithObject:@"MYLegacyParser"];
    NSError *staleError = nil;
    [out set:@"staleExcluded.started" to:@([CSShield startWithConfiguration:configuration error:&staleError])];
    [out set:@"staleExcluded.error" error:staleError];
    [out set:@"staleExcluded.call" to:CSOSTryReadPastEnd()];
    CSOSStop();

    configuration = [CSConfiguration productionConfiguration];
    configuration.maxStackDepth = 2;
    CSOSExpectRefused(out, @"stackDepth", configuration);

    configuration = [CSConfiguration productionConfiguration];
    [configuration setMode:CSModeDebug forGuard:CSGuardContainer | CSGuardString];
    CSOSExpectRefused(out, @"overrideOfTwoGuards", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.modeOverrides = (id)@{@"container": @"debug"};
    CSOSExpectRefused(out, @"overridesWronglyTyped", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.guards = (CSGuard)(1u << 20);
    CSOSExpectRefused(out, @"unknownGuardBits", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.protectedClassPrefixes = @[@""];
    CSOSExpectRefused(out, @"emptyPrefix", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.excludedClassNames = (NSSet *)[NSSet setWithObject:@42];
    CSOSExpectRefused(out, @"numberAsClassName", configuration);

    NSURL *uploads = [NSURL fileURLWithPath:[base stringByAppendingPathComponent:@"uploads"]];
    configuration = [CSConfiguration productionConfiguration];
    configuration.uploadSinks = @[[CSUploadSink HTTPSinkWithEndpoint:[NSURL URLWithString:@"ftp://example.com/crashes"]
                                                               folder:uploads headers:nil]];
    CSOSExpectRefused(out, @"ftpEndpoint", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.uploadSinks = @[[CSUploadSink sentrySinkWithDSN:@"not a DSN" folder:uploads release:nil
                                                      environment:nil]];
    CSOSExpectRefused(out, @"badDSN", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.reportStoreURL = [NSURL fileURLWithPath:base];   // a folder, not a file
    CSOSExpectRefused(out, @"storeIsAFolder", configuration);

    configuration = [CSConfiguration productionConfiguration];
    configuration.zombieClassNames = [NSSet setWithObject:@"CSOSNoSuchClass"];
    [out set:@"nilErrorPointer" to:@([CSShield startWithConfiguration:configuration error:NULL])];

    configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    [out set:@"firstStart" to:@([CSShield startWithConfiguration:configuration error:NULL])];
    NSError *error = nil;
    [out set:@"secondStart" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"secondStartError" error:error];
    [out set:@"runningAfterSecondStart" to:@(CSShield.isRunning)];
    CSOSStop();
    return [out copyText];
}

// MARK: Lists and modes

@interface CSOSProfile : NSObject
@end
@implementation CSOSProfile
@end
@interface CSOSExcludedProfile : CSOSProfile
@end
@implementation CSOSExcludedProfile
@end

/// "recovered" when `body` returned nil, the exception's name when it raised.
static NSString *CSOSTry(id (^body)(void)) {
    @try {
        return body() == nil ? @"recovered" : @"value";
    } @catch (NSException *exception) {
        return [exception name];
    }
}

static NSString *CSOSMissingKey(Class cls) {
    return CSOSTry(^id { return [CSR_AUTORELEASE([[cls alloc] init]) valueForKey:@"csos_missing"]; });
}

static NSString *CSOSMissingMethod(Class cls) {
    return CSOSTry(^id {
        id object = CSR_AUTORELEASE([[cls alloc] init]);
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"
        return [object performSelector:NSSelectorFromString(@"csos_missingMethod")];
#pragma clang diagnostic pop
    });
}

char *csos_lists_and_modes(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    CSOSReportLog *log = CSR_AUTORELEASE([[CSOSReportLog alloc] init]);
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer | CSGuardKVC | CSGuardUnrecognizedSelector;
    configuration.logsReports = NO;
    CSOSCollect(configuration, log);
    configuration.excludedClassNames = [NSSet setWithObject:@"CSOSExcludedProfile"];
    // The app's own classes are protected anyway: the allow list shows on classes of a system library.
    configuration.protectedClassPrefixes = @[@"NSLock"];
    [configuration setMode:CSModeDebug forGuard:CSGuardContainer];
    [out set:@"modeForContainer" to:@([configuration modeForGuard:CSGuardContainer])];
    [out set:@"modeForKVC" to:@([configuration modeForGuard:CSGuardKVC])];
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    [out set:@"kvcProfile" to:CSOSMissingKey([CSOSProfile class])];
    [out set:@"kvcExcluded" to:CSOSMissingKey([CSOSExcludedProfile class])];
    [out set:@"selectorProtected" to:CSOSMissingMethod([NSLock class])];
    [out set:@"selectorOther" to:CSOSMissingMethod([NSCondition class])];
    [out set:@"containerInDebugMode" to:CSOSTryReadPastEnd()];
    [CSShield flushWithTimeout:5];
    NSMutableArray *seen = [NSMutableArray array];
    for (CSReport *report in [log items]) {
        [seen addObject:[NSString stringWithFormat:@"%@:%@:%@", report.guardName, report.receiverClassName,
                                                   report.recovered ? @"recovered" : @"failedLoudly"]];
    }
    [seen sortUsingSelector:@selector(compare:)];
    [out set:@"reports" to:CSOSJoin(seen)];
    CSOSStop();
    return [out copyText];
}

// MARK: Upload sinks and the store

/// Whether a file under `folder` holds `text`.
static BOOL CSOSFolderHolds(NSString *folder, NSString *text) {
    NSDirectoryEnumerator *files = [[NSFileManager defaultManager] enumeratorAtPath:folder];
    for (NSString *name in files) {
        NSData *data = [NSData dataWithContentsOfFile:[folder stringByAppendingPathComponent:name]];
        NSString *content = data ? CSR_AUTORELEASE([[NSString alloc] initWithData:data encoding:NSUTF8StringEncoding]) : nil;
        if (content && [content rangeOfString:text].location != NSNotFound) return YES;
    }
    return NO;
}

char *csos_upload_sinks(const char *folder) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSString *base = [NSString stringWithUTF8String:folder];
    NSString *httpFolder = [base stringByAppendingPathComponent:@"http"];
    NSString *sentryFolder = [base stringByAppendingPathComponent:@"sentry"];
    NSString *store = [base stringByAppendingPathComponent:@"reports.jsonl"];
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    configuration.reportStoreURL = [NSURL fileURLWithPath:store];
    // Port 9 (discard) on loopback refuses: the sinks keep the reports for the next launch.
    CSUploadSink *http = [CSUploadSink HTTPSinkWithEndpoint:[NSURL URLWithString:@"http://127.0.0.1:9/crashes"]
                                                     folder:[NSURL fileURLWithPath:httpFolder]
                                                    headers:@{@"Authorization": @"Bearer csos"}];
    CSUploadSink *sentry = [CSUploadSink sentrySinkWithDSN:@"http://csoskey@127.0.0.1:9/42"
                                                    folder:[NSURL fileURLWithPath:sentryFolder]
                                                   release:@"csos@1.0" environment:@"test"];
    configuration.uploadSinks = @[http, sentry];
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    (void)CSOSTryReadPastEnd();
    [out set:@"flushed" to:@([CSShield flushWithTimeout:5])];
    NSString *signature = [[CSShield.reports firstObject] signature];
    [out set:@"signature" to:@(signature.length > 0)];
    CSOSStop();
    [out set:@"store" to:@(signature && CSOSFolderHolds(base, signature) &&
                           [[NSString stringWithContentsOfFile:store encoding:NSUTF8StringEncoding error:NULL]
                               rangeOfString:signature].location != NSNotFound)];
    [out set:@"httpFolder" to:@(signature && CSOSFolderHolds(httpFolder, signature))];
    [out set:@"sentryFolder" to:@(signature && CSOSFolderHolds(sentryFolder, signature))];
    return [out copyText];
}

char *csos_unwritable_store(const char *folder) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSString *base = [NSString stringWithUTF8String:folder];
    // The store's folder cannot be made: a regular file holds its parent's path (root ignores permission bits).
    NSString *blocker = [base stringByAppendingPathComponent:@"Application Support"];
    [[NSData data] writeToFile:blocker atomically:NO];
    NSString *store = [blocker stringByAppendingPathComponent:@"CrashShield/reports.jsonl"];
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    configuration.reportStoreURL = [NSURL fileURLWithPath:store];
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    [out set:@"failures" to:@([CSShield.sinkFailures count])];
    NSError *failure = [CSShield.sinkFailures firstObject];
    [out set:@"failureCode" to:@(failure.code)];
    [out set:@"failure" to:failure.localizedDescription ?: @""];
    [out set:@"call" to:CSOSTryReadPastEnd()];
    [out set:@"flushed" to:@([CSShield flushWithTimeout:5])];
    // The disk recovers; a later delivery (after the store's first retry delay, 1 s) opens the file.
    [[NSFileManager defaultManager] removeItemAtPath:blocker error:NULL];
    [NSThread sleepForTimeInterval:1.2];
    [out set:@"secondCall" to:CSOSTryReadPastEnd()];
    [out set:@"flushedAgain" to:@([CSShield flushWithTimeout:5])];
    [out set:@"failuresAfter" to:@([CSShield.sinkFailures count])];
    NSString *signature = [[CSShield.reports firstObject] signature];
    CSOSStop();
    NSString *stored = [NSString stringWithContentsOfFile:store encoding:NSUTF8StringEncoding error:NULL];
    [out set:@"stored" to:@(signature && stored && [stored rangeOfString:signature].location != NSNotFound)];
    return [out copyText];
}

char *csos_upload_wait(const char *folder, int port) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSString *base = [NSString stringWithUTF8String:folder];
    NSString *endpoint = [NSString stringWithFormat:@"http://127.0.0.1:%d/crashes", port];
    CSConfiguration *configuration = [CSConfiguration productionConfiguration];
    configuration.guards = CSGuardContainer;
    configuration.logsReports = NO;
    configuration.uploadSinks = @[[CSUploadSink HTTPSinkWithEndpoint:[NSURL URLWithString:endpoint]
                                                               folder:[NSURL fileURLWithPath:[base stringByAppendingPathComponent:@"http"]]
                                                              headers:@{@"Authorization": @"Bearer csos"}]];
    NSError *error = nil;
    [out set:@"started" to:@([CSShield startWithConfiguration:configuration error:&error])];
    [out set:@"error" error:error];
    (void)CSOSTryReadPastEnd();
    [out set:@"waited" to:@([CSShield waitForUploadsWithTimeout:15])];
    CSUploadStatistics *statistics = [CSShield.uploadStatistics firstObject];
    [out set:@"sinks" to:@([CSShield.uploadStatistics count])];
    [out set:@"delivered" to:@(statistics.deliveredReports)];
    [out set:@"queued" to:@(statistics.queuedReports)];
    [out set:@"requests" to:@(statistics.requests)];
    [out set:@"isSentry" to:@(statistics.isSentry)];
    [out set:@"folder" to:[[statistics.folder path] lastPathComponent]];
    CSOSStop();
    // After stop, a new start may use the same folder: the last start's sink hands it over.
    NSError *again = nil;
    [out set:@"restarted" to:@([CSShield startWithConfiguration:configuration error:&again])];
    [out set:@"restartError" error:again];
    CSOSStop();
    return [out copyText];
}

// MARK: Posting on a thread

static NSString *CSOSThreadName(void) {
    return [NSThread isMainThread] ? @"main" : ([[NSThread currentThread] name] ?: @"?");
}

/// Records where its selector ran, and where the blocks of its owner ran.
@interface CSOSThreadRecorder : CSOSLockedList
- (void)record:(NSString *)what;
/// What was recorded, sorted (Foundation does not order a center's observers), and forgets it.
- (NSString *)takeText;
@end

@implementation CSOSThreadRecorder
- (void)record:(NSString *)what {
    [self add:[NSString stringWithFormat:@"%@@%@", what, CSOSThreadName()]];
}
- (void)note:(NSNotification *)note {
    [self record:[NSString stringWithFormat:@"selector:%@", [[note userInfo] objectForKey:@"k"] ?: @"-"]];
}
- (NSString *)takeText {
    return CSOSJoin([[self take] sortedArrayUsingSelector:@selector(compare:)]);
}
@end

/// Posts from a background thread named `name`, on `target` (nil: the caller's thread).
@interface CSOSPoster : NSObject {
@public
    NSThread *_target;
    NSString *_name;
    volatile int _done;
}
@end

@implementation CSOSPoster
- (void)post:(id)unused {
    @autoreleasepool {
        [[NSThread currentThread] setName:_name];
        [[NSNotificationCenter defaultCenter] cs_postNotificationName:@"CSOS.Thread" object:nil onThread:_target];
        __atomic_store_n(&_done, 1, __ATOMIC_RELEASE);
    }
}
@end

static void CSOSPostFromBackground(NSString *name, NSThread *target) {
    CSOSPoster *poster = CSR_AUTORELEASE([[CSOSPoster alloc] init]);
    poster->_target = target;
    poster->_name = name;
    [NSThread detachNewThreadSelector:@selector(post:) toTarget:poster withObject:nil];
    while (!__atomic_load_n(&poster->_done, __ATOMIC_ACQUIRE)) usleep(1000);
}

char *csos_post_on_threads(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    CSOSThreadRecorder *recorder = CSR_AUTORELEASE([[CSOSThreadRecorder alloc] init]);
    [center addObserver:recorder selector:@selector(note:) name:@"CSOS.Thread" object:nil];
    CSNotificationObservation *block = [recorder cs_observeNotificationName:@"CSOS.Thread"
                                                                usingBlock:^(NSNotification *note, id owner) {
        [owner record:@"block"];
    }];
    [out set:@"observing" to:@(block.active)];

    // Main: posted from a background thread, run by the main run loop.
    CSOSPostFromBackground(@"csos.poster", [NSThread mainThread]);
    [out set:@"mainBeforeRunLoop" to:[recorder takeText]];
    for (int i = 0; i < 200 && [[recorder items] count] < 2; i++) css_runloop_run(0.01);
    [out set:@"main" to:[recorder takeText]];

    // A worker thread running its run loop, waiting until the handlers returned.
    void *worker = css_runloop_thread_start("csos.worker");
    [center cs_postNotificationName:@"CSOS.Thread" object:nil userInfo:@{@"k": @"v"}
                           onThread:(CSR_BRIDGE NSThread *)worker waitUntilDone:YES];
    [out set:@"worker" to:[recorder takeText]];
    css_runloop_thread_stop(worker);

    // nil: now, on the caller's thread.
    CSOSPostFromBackground(@"csos.caller", nil);
    [out set:@"caller" to:[recorder takeText]];
    [center cs_postNotification:[NSNotification notificationWithName:@"CSOS.Thread" object:nil
                                                             userInfo:@{@"k": @"n"}]
                       onThread:nil waitUntilDone:NO];
    [out set:@"callerMain" to:[recorder takeText]];

    [center removeObserver:recorder];
    [block cancel];
    [out set:@"cancelled" to:@(!block.active)];
    return [out copyText];
}

// MARK: Owner-bound blocks by priority

@interface CSOSOwner : NSObject
@end
@implementation CSOSOwner
@end

/// `owner` observes `name` with a block that appends `label` to `order` (or "wrong-arguments" when the block did not
/// get its owner and the notification).
static CSNotificationObservation *CSOSObserve(id owner, NSString *name, CSNotificationPriority priority,
                                              NSMutableArray *order, NSString *label) {
    return [owner cs_observeNotificationName:name priority:priority usingBlock:^(NSNotification *note, id given) {
        [order addObject:given == owner && [[note name] isEqualToString:name] ? label : @"wrong-arguments"];
    }];
}

static NSString *CSOSPost(NSString *name, NSMutableArray *order) {
    [order removeAllObjects];
    [[NSNotificationCenter defaultCenter] postNotificationName:name object:nil];
    return CSOSJoin(order);
}

char *csos_block_priorities(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSMutableArray *order = [NSMutableArray array];
    CSOSOwner *owner = [[CSOSOwner alloc] init];
    CSOSOwner *other = [[CSOSOwner alloc] init];
    CSOSObserve(owner, @"CSOS.P", CSNotificationPriorityLow, order, @"low");
    CSOSObserve(owner, @"CSOS.P", CSNotificationPriorityDefault, order, @"default1");
    CSOSObserve(other, @"CSOS.P", CSNotificationPriorityHigh, order, @"high");
    CSOSObserve(owner, @"CSOS.P", 5000, order, @"5000");
    CSOSObserve(owner, @"CSOS.P", CSNotificationPriorityDefault, order, @"default2");
    [out set:@"order" to:CSOSPost(@"CSOS.P", order)];
    CSR_RELEASE(owner);
    CSR_RELEASE(other);
    [out set:@"afterOwnersDied" to:CSOSPost(@"CSOS.P", order)];
    return [out copyText];
}

char *csos_owner_death(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSMutableArray *order = [NSMutableArray array];
    CSOSOwner *owner = [[CSOSOwner alloc] init];
    CSOSOwner *other = [[CSOSOwner alloc] init];
    CSNotificationObservation *mine = CSOSObserve(owner, @"CSOS.D", CSNotificationPriorityDefault, order, @"owner");
    CSNotificationObservation *theirs = CSOSObserve(other, @"CSOS.D", CSNotificationPriorityDefault, order, @"other");
    [out set:@"before" to:CSOSPost(@"CSOS.D", order)];
    CSR_RELEASE(owner);   // no removal anywhere: the owner's deallocation removes its blocks
    [out set:@"afterOwnerDied" to:CSOSPost(@"CSOS.D", order)];
    [out set:@"ownerObservationActive" to:@(mine.active)];
    [out set:@"otherObservationActive" to:@(theirs.active)];
    CSR_RELEASE(other);
    [out set:@"afterBothDied" to:CSOSPost(@"CSOS.D", order)];
    return [out copyText];
}

char *csos_remove_by_level(void) {
    CSOSOutput *out = CSR_AUTORELEASE([[CSOSOutput alloc] init]);
    NSMutableArray *order = [NSMutableArray array];
    CSOSOwner *owner = CSR_AUTORELEASE([[CSOSOwner alloc] init]);
    CSOSObserve(owner, @"CSOS.L", CSNotificationPriorityHigh, order, @"highA");
    CSOSObserve(owner, @"CSOS.L", CSNotificationPriorityHigh, order, @"highB");
    CSOSObserve(owner, @"CSOS.L", CSNotificationPriorityDefault, order, @"default");
    CSOSObserve(owner, @"CSOS.L", CSNotificationPriorityLow, order, @"low");
    CSOSObserve(owner, @"CSOS.M", CSNotificationPriorityHigh, order, @"highM");
    [out set:@"all" to:CSOSPost(@"CSOS.L", order)];
    [owner cs_removeNotificationBlocksForName:@"CSOS.L" priority:CSNotificationPriorityHigh];
    [out set:@"withoutHighOfL" to:CSOSPost(@"CSOS.L", order)];
    [out set:@"mKeepsItsHigh" to:CSOSPost(@"CSOS.M", order)];
    [owner cs_removeNotificationBlocksWithPriority:CSNotificationPriorityLow];
    [out set:@"withoutLow" to:CSOSPost(@"CSOS.L", order)];
    [owner cs_removeNotificationBlocksForName:nil];
    [out set:@"noneLeftL" to:CSOSPost(@"CSOS.L", order)];
    [out set:@"noneLeftM" to:CSOSPost(@"CSOS.M", order)];

    CSNotificationObservation *observation = CSOSObserve(owner, @"CSOS.C", 1, order, @"cancellable");
    [out set:@"beforeCancel" to:CSOSPost(@"CSOS.C", order)];
    [observation cancel];
    [observation cancel];
    [out set:@"afterCancel" to:CSOSPost(@"CSOS.C", order)];
    [out set:@"cancelledActive" to:@(observation.active)];

    NSError *error = nil;
    NSString *noName = nil;
    [out set:@"nilName" to:[owner cs_observeNotificationName:noName object:nil center:nil priority:1
                                                   usingBlock:^(NSNotification *note, id given) {} error:&error]];
    [out set:@"nilNameError" error:error];
    error = nil;
    CSNotificationBlock noBlock = nil;
    [out set:@"nilBlock" to:[owner cs_observeNotificationName:@"CSOS.X" object:nil center:nil priority:1
                                                    usingBlock:noBlock error:&error]];
    [out set:@"nilBlockError" error:error];
    return [out copyText];
}
