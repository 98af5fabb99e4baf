// CSReport.m: a report whose fields are read from Swift's CrashReport itself (CSBridge.h's csbridge_report_
// functions); only `dictionary`, the report as a JSON object, is JSON: the one encoding Swift writes (ReportCodec).
#import "CSPrivate.h"
#import "CSBridge.h"
#import "CSSupport.h"
#include <stdlib.h>

/// Swift's malloc'd text as a string (freed here); @"" for NULL.
static NSString *CSTakeText(char *text) {
    NSString *string = text ? [NSString stringWithUTF8String:text] : nil;
    free(text);
    return string ?: @"";
}

/// Adds one detail (key, value) to the NSMutableDictionary `context`.
static void CSAddDetail(void *context, const char *key, const char *value) {
    NSString *keyString = key ? [NSString stringWithUTF8String:key] : nil;
    NSString *valueString = value ? [NSString stringWithUTF8String:value] : nil;
    if (keyString && valueString) [(CSR_BRIDGE NSMutableDictionary *)context setObject:valueString forKey:keyString];
}

void CSAppendReport(void *list, const void *report) {
    [(CSR_BRIDGE NSMutableArray *)list addObject:[CSReport reportWithBridgeReport:report]];
}

@interface CSReport ()
- (instancetype)initWithBridgeReport:(const void *)report;
@end

@implementation CSReport

@synthesize signature = _signature, guard = _guard, guardName = _guardName, exceptionName = _exceptionName,
    reason = _reason, receiverClassName = _receiverClassName, selectorName = _selectorName, method = _method,
    hint = _hint, recovered = _recovered, occurrences = _occurrences, firstSeen = _firstSeen, lastSeen = _lastSeen,
    threadName = _threadName, onMainThread = _onMainThread, details = _details, dictionary = _dictionary;

+ (instancetype)reportWithJSONData:(NSData *)data {
    if (![data isKindOfClass:[NSData class]]) return nil;
    NSMutableArray *decoded = [NSMutableArray array];
    csbridge_decode_report([data bytes], (intptr_t)[data length], CSAppendReport, (CSR_BRIDGE void *)decoded);
    return [decoded firstObject];
}

+ (instancetype)reportWithBridgeReport:(const void *)report {
    return CSR_AUTORELEASE([[self alloc] initWithBridgeReport:report]);
}

- (instancetype)initWithBridgeReport:(const void *)report {
    if (!(self = [super init])) return nil;
    _signature = [CSTakeText(csbridge_report_copy_signature(report)) copy];
    _guard = csbridge_report_guard(report);
    _guardName = [CSTakeText(csbridge_report_copy_guard_name(report)) copy];
    _exceptionName = [CSTakeText(csbridge_report_copy_exception_name(report)) copy];
    _reason = [CSTakeText(csbridge_report_copy_reason(report)) copy];
    _receiverClassName = [CSTakeText(csbridge_report_copy_class_name(report)) copy];
    _selectorName = [CSTakeText(csbridge_report_copy_selector(report)) copy];
    _method = [CSTakeText(csbridge_report_copy_method(report)) copy];
    _hint = [CSTakeText(csbridge_report_copy_hint(report)) copy];
    _recovered = csbridge_report_recovered(report) ? YES : NO;
    _occurrences = (NSUInteger)csbridge_report_occurrences(report);
    _firstSeen = [[NSDate alloc] initWithTimeIntervalSince1970:csbridge_report_first_seen(report)];
    _lastSeen = [[NSDate alloc] initWithTimeIntervalSince1970:csbridge_report_last_seen(report)];
    _threadName = [CSTakeText(csbridge_report_copy_thread_name(report)) copy];
    _onMainThread = csbridge_report_on_main_thread(report) ? YES : NO;
    NSMutableDictionary *details = [NSMutableDictionary dictionary];
    csbridge_report_details(report, CSAddDetail, (CSR_BRIDGE void *)details);
    _details = [details copy];
    NSData *json = [CSTakeText(csbridge_report_copy_json(report)) dataUsingEncoding:NSUTF8StringEncoding];
    id object = [NSJSONSerialization JSONObjectWithData:json options:0 error:NULL];
    _dictionary = [([object isKindOfClass:[NSDictionary class]] ? object : @{}) copy];
    return self;
}

- (NSString *)description {
    return [NSString stringWithFormat:@"<CSReport %@ %@ %@: %@ (%lux)>", _guardName, _method, _exceptionName, _reason,
                                      (unsigned long)_occurrences];
}

#if !__has_feature(objc_arc)
- (void)dealloc {
    [_dictionary release]; [_signature release]; [_guardName release]; [_exceptionName release]; [_reason release];
    [_receiverClassName release]; [_selectorName release]; [_hint release]; [_method release];
    [_firstSeen release]; [_lastSeen release]; [_threadName release]; [_details release];
    [super dealloc];
}
#endif

@end
