// CSSFamilies.h (private): one table per guard family, and helpers for describing results.
#ifndef CSS_FAMILIES_H
#define CSS_FAMILIES_H
#import <Foundation/Foundation.h>
#include <pthread.h>
#include "CrashShieldScenarios.h"

const CSSScenario *css_array_scenarios(int *count);
const CSSScenario *css_dictionary_scenarios(int *count);
const CSSScenario *css_set_scenarios(int *count);
const CSSScenario *css_observation_scenarios(int *count);
const CSSScenario *css_string_scenarios(int *count);
const CSSScenario *css_kvc_scenarios(int *count);
const CSSScenario *css_messaging_scenarios(int *count);
const CSSScenario *css_lifetime_scenarios(int *count);
const CSSScenario *css_notification_scenarios(int *count);
const CSSScenario *css_data_scenarios(int *count);
/// Variadic calls (a nil format, a nil key in an objects-and-keys list) and NSUserDefaults (CSSVariadicScenarios.m).
const CSSScenario *css_variadic_scenarios(int *count);
/// Everyday Foundation calls beyond the first families (CSSFoundationScenarios.m, issue 24).
const CSSScenario *css_foundation_scenarios(int *count);
const CSSScenario *css_webkit_scenarios(int *count);
/// NSFileHandle's legacy methods failing in their system call (CSSFileHandleScenarios.m).
const CSSScenario *css_file_handle_scenarios(int *count);
/// Predicate formats NSPredicate's parser cannot read (CSSPredicateScenarios.m).
const CSSScenario *css_predicate_scenarios(int *count);
/// Calls only Apple's Foundation raises for (CSSAppleScenarios.m): in the catalog on Apple only.
const CSSScenario *css_apple_only_scenarios(int *count);

/// One call for the differential tests (CSSValidCalls.m runs it, guards off and on): `call` is made on a fresh
/// `receiver()` with an index (or range location) the test chooses. `size` is the receiver's count or length, from
/// which the test derives the indexes it tries (-1: the call takes none).
typedef struct CSSProbe {
    const char *name;
    long size;
    id (*receiver)(void);
    /// What the caller got (nil for a void method), or `css_probe_skipped()` for an index the call cannot be made with.
    id (*call)(id receiver, NSUInteger index);
    /// True when Foundation's reason text is undefined (GNUstep builds it from uninitialized memory).
    bool reasonIsUndefined;
} CSSProbe;

const CSSProbe *css_array_probes(int *count);
const CSSProbe *css_ordered_set_probes(int *count);
const CSSProbe *css_string_probes(int *count);
const CSSProbe *css_data_probes(int *count);
const CSSProbe *css_kvc_probes(int *count);
const CSSProbe *css_foundation_probes(int *count);
const CSSProbe *css_file_handle_probes(int *count);
const CSSProbe *css_predicate_probes(int *count);
/// The marker a probe's call returns when it does not make the call.
id css_probe_skipped(void);

/// A range as given, even one whose end passes 2^64 (GNUstep's NSMakeRange raises for those).
NSRange css_range(NSUInteger location, NSUInteger length);
/// Whether the range's end passes 2^64.
static inline bool css_range_overflows(NSRange range) { return range.location + range.length < range.location; }

/// Three probes of a call `id call(id receiver, NSRange range)` with ranges whose end passes 2^64, from the probe's
/// index i: {i, UInt.max} (the end wraps to i - 1), {UInt.max, i} (to i - 1) and {2^63 + i, 2^63} (to exactly i), so
/// that the wrapped end falls before, at and past the receiver's size. `CSS_OVERFLOW_PROBE_CALLS(call)` defines the
/// three calls, `CSS_OVERFLOW_PROBES(...)` their table entries.
#define CSS_OVERFLOW_PROBE_CALLS(call)                                                                              \
    static id call##IMax(id r, NSUInteger i) { return call(r, css_range(i, NSUIntegerMax)); }                       \
    static id call##MaxI(id r, NSUInteger i) { return call(r, css_range(NSUIntegerMax, i)); }                       \
    static id call##HalfI(id r, NSUInteger i) { return call(r, css_range(((NSUInteger)1 << 63) + i, (NSUInteger)1 << 63)); }
#define CSS_OVERFLOW_PROBES(name, size, receiver, call)                                                             \
    { name "{i,UInt.max}", size, receiver, call##IMax },                                                            \
    { name "{UInt.max,i}", size, receiver, call##MaxI },                                                            \
    { name "{2^63+i,2^63}", size, receiver, call##HalfI }
/// {index}, or nil for NSNotFound (what `+indexSetWithIndex:` gives); {first, second} (nil if either is NSNotFound).
NSIndexSet *css_index_set(NSUInteger index);
NSIndexSet *css_index_set_pair(NSUInteger first, NSUInteger second);

/// A description of `object` that lives until the current autorelease pool drains ("nil" for nil).
const char *css_describe(id object);
/// Deterministic contents, sorted: "{k1=v1,k2=v2}" for a dictionary, "{a,b}" for a set; "(a,b)" in order for an
/// ordered set. Autoreleased.
const char *css_dictionary_contents(NSDictionary *dictionary);
const char *css_set_contents(NSSet *set);
const char *css_ordered_set_contents(NSOrderedSet *set);
/// printf-style, autoreleased.
const char *css_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

/// A thread-safe log of deliveries (observations, notifications, timer fires): one line each, and a count.
typedef struct CSSEventLog {
    pthread_mutex_t lock;
    NSMutableString *text;
    long count;
} CSSEventLog;
#define CSS_EVENT_LOG_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, nil, 0 }
void css_event_log_append(CSSEventLog *log, NSString *line);
long css_event_log_count(CSSEventLog *log);
void css_event_log_reset_count(CSSEventLog *log);
/// Copies the log into `buffer`, then clears it and its count.
void css_event_log_take(CSSEventLog *log, char *buffer, unsigned long size);

/// Hides a value from the optimizer so a scenario's bad call is really made.
id css_opaque(id object);
NSUInteger css_opaque_index(NSUInteger index);

#endif
