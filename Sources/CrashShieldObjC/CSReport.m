// CSReport.m: a report read from the JSON object Swift hands over (the report store's encoding).
#import "CSPrivate.h"
#import "CSSupport.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

/// `2026-11-22T18:29:00.123Z` (what the report store writes: UTC, optional fraction) -> a date; nil if it is not one.
static NSDate *CSDateFromISO8601(id value) {
    if (![value isKindOfClass:[NSString class]]) return nil;
    struct tm parts = {0};
    double seconds = 0;
    char zone = 0;
    if (sscanf([value UTF8String], "%4d-%2d-%2dT%2d:%2d:%lf%c", &parts.tm_year, &parts.tm_mon, &parts.tm_mday,
               &parts.tm_hour, &parts.tm_min, &seconds, &zone) != 7 || zone != 'Z') {
        return nil;
    }
    parts.tm_year -= 1900;
    parts.tm_mon -= 1;
    return [NSDate dateWithTimeIntervalSince1970:(double)timegm(&parts) + seconds];
}

static NSString *CSString(NSDictionary *object, NSString *key) {
    id value = [object objectForKey:key];
    return [value isKindOfClass:[NSString class]] ? value : @"";
}

static BOOL CSBool(NSDictionary *object, NSString *key) {
    id value = [object objectForKey:key];
    return [value isKindOfClass:[NSNumber class]] && [value boolValue];
}

static const struct { const char *name; CSGuard guard; } CSGuardNames[] = {
    {"container", CSGuardContainer}, {"string", CSGuardString}, {"unrecognizedSelector", CSGuardUnrecognizedSelector},
    {"nsNull", CSGuardNSNull}, {"kvc", CSGuardKVC}, {"kvo", CSGuardKVO}, {"notification", CSGuardNotification},
    {"timer", CSGuardTimer}, {"zombie", CSGuardZombie}, {"mainThreadUI", CSGuardMainThreadUI},
};

static CSGuard CSGuardNamed(NSString *name) {
    for (size_t i = 0; i < sizeof CSGuardNames / sizeof CSGuardNames[0]; i++) {
        if (strcmp(CSGuardNames[i].name, [name UTF8String]) == 0) return CSGuardNames[i].guard;
    }
    return 0;
}

@interface CSReport ()
- (instancetype)initWithDictionary:(NSDictionary *)object firstSeen:(NSDate *)first lastSeen:(NSDate *)last;
@end

@implementation CSReport

@synthesize signature = _signature, guard = _guard, guardName = _guardName, exceptionName = _exceptionName,
    reason = _reason, receiverClassName = _receiverClassName, selectorName = _selectorName, method = _method,
    hint = _hint, recovered = _recovered, occurrences = _occurrences, firstSeen = _firstSeen, lastSeen = _lastSeen,
    threadName = _threadName, onMainThread = _onMainThread, details = _details, dictionary = _dictionary;

+ (instancetype)reportWithJSONData:(NSData *)data {
    if (![data isKindOfClass:[NSData class]]) return nil;
    return [self reportWithObject:[NSJSONSerialization JSONObjectWithData:data options:0 error:NULL]];
}

+ (instancetype)reportWithObject:(id)object {
    if (![object isKindOfClass:[NSDictionary class]]) return nil;
    NSDate *first = CSDateFromISO8601([object objectForKey:@"firstSeen"]);
    NSDate *last = CSDateFromISO8601([object objectForKey:@"lastSeen"]);
    if (!first || !last || ![[object objectForKey:@"signature"] isKindOfClass:[NSString class]]) return nil;
    return CSR_AUTORELEASE([[self alloc] initWithDictionary:object firstSeen:first lastSeen:last]);
}

- (instancetype)initWithDictionary:(NSDictionary *)object firstSeen:(NSDate *)first lastSeen:(NSDate *)last {
    if (!(self = [super init])) return nil;
    _dictionary = [object copy];
    _signature = [CSString(object, @"signature") copy];
    _guardName = [CSString(object, @"category") copy];
    _guard = CSGuardNamed(_guardName);
    _exceptionName = [CSString(object, @"exceptionName") copy];
    _reason = [CSString(object, @"reason") copy];
    _receiverClassName = [CSString(object, @"className") copy];
    _selectorName = [CSString(object, @"selector") copy];
    _hint = [CSString(object, @"hint") copy];
    _method = [[NSString alloc] initWithFormat:@"%@[%@ %@]", CSBool(object, @"isClassMethod") ? @"+" : @"-",
                                               _receiverClassName, _selectorName];
    _recovered = [CSString(object, @"action") isEqualToString:@"recovered"];
    id occurrences = [object objectForKey:@"occurrences"];
    _occurrences = [occurrences isKindOfClass:[NSNumber class]] ? [occurrences unsignedIntegerValue] : 0;
    _firstSeen = [first copy];
    _lastSeen = [last copy];
    id thread = [object objectForKey:@"thread"];
    BOOL hasThread = [thread isKindOfClass:[NSDictionary class]];
    _threadName = [(hasThread ? CSString(thread, @"name") : @"") copy];
    _onMainThread = hasThread && CSBool(thread, @"isMain");
    id details = [object objectForKey:@"details"];
    _details = [([details isKindOfClass:[NSDictionary class]] ? details : @{}) copy];
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
