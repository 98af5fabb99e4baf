// CSSObservationScenarios.m: key-value observing, notification and timer code that crashes without CrashShield,
// and the observation test support (recording observers, valid sequences for the differential tests).
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <sys/time.h>
#include "CSSFamilies.h"
#include "CSSMemory.h"


#if !defined(__APPLE__)
/// GNUstep 1.28 does not declare (or implement) it; Apple does. CrashShield's KVO guard adds it.
@interface NSObject (CSSContextRemoval)
- (void)removeObserver:(NSObject *)observer forKeyPath:(NSString *)keyPath context:(void *)context;
@end
#endif

// MARK: The delivery log (every recording observer appends one line per delivery)

static CSSEventLog css_kvo_events = CSS_EVENT_LOG_INITIALIZER;

static void css_log_append(NSString *line) { css_event_log_append(&css_kvo_events, line); }

/// A model with an int and an object property (KVO-compliant accessors).
@interface CSSKVOModel : NSObject { int _level; id _name; }
- (int)level;
- (void)setLevel:(int)level;
- (id)name;
- (void)setName:(id)name;
@end
@implementation CSSKVOModel
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
- (id)name { return _name; }
- (void)setName:(id)name {
#if !__has_feature(objc_arc)
    [name retain]; CSS_RELEASE(_name);
#endif
    _name = name;
}
- (void)dealloc {
#if !__has_feature(objc_arc)
    CSS_RELEASE(_name);
#endif
    CSS_SUPER_DEALLOC();
}
@end

/// Records every change it gets: "tag|keyPath|context|{change}".
@interface CSSKVORecorder : NSObject { @public long _tag; }
@end
@implementation CSSKVORecorder
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    css_log_append([NSString stringWithFormat: @"%ld|%@|%lu|%s", _tag, keyPath, (unsigned long)(uintptr_t)context,
                                               css_dictionary_contents(change)]);
}
@end

/// An observer as big as a screenful of state: its memory goes back to the system when it is freed, so a message
/// sent to it afterwards crashes every time (SIGSEGV) instead of depending on what reused the memory.
@interface CSSKVOLargeObserver : CSSKVORecorder { char _screen[512 * 1024]; }
@end
@implementation CSSKVOLargeObserver
@end

/// Forgot to implement -observeValueForKeyPath:ofObject:change:context:.
@interface CSSKVOForgetfulObserver : NSObject
@end
@implementation CSSKVOForgetfulObserver
@end

/// Observed models of their own classes (direct NSObject subclasses no other test observes), for the rule on objects
/// deallocated while observed: `level` notified automatically, or manually (+automaticallyNotifiesObserversForKey: NO).
@interface CSSKVOAutomaticModel : NSObject { int _level; }
@end
@implementation CSSKVOAutomaticModel
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
@end

@interface CSSKVOManualModel : NSObject { int _level; }
@end
@implementation CSSKVOManualModel
+ (BOOL)automaticallyNotifiesObserversForKey:(NSString *)key {
    return [key isEqualToString: @"level"] ? NO : [super automaticallyNotifiesObserversForKey: key];
}
- (int)level { return _level; }
- (void)setLevel:(int)level {
    [self willChangeValueForKey: @"level"];
    _level = level;
    [self didChangeValueForKey: @"level"];
}
@end

void *css_kvo_lifetime_model_new(bool manual) {
    return manual ? (CSS_BRIDGE void *)[[CSSKVOManualModel alloc] init]
                  : (CSS_BRIDGE void *)[[CSSKVOAutomaticModel alloc] init];
}

static id css_recorder(long tag) {
    CSSKVORecorder *recorder = [[CSSKVORecorder alloc] init];
    recorder->_tag = tag;
    return recorder;
}

// MARK: KVO scenarios

static const char *kvoAddNilKeyPath(void) {
    CSSKVOModel *model = css_opaque(CSS_AUTORELEASE([[CSSKVOModel alloc] init]));
    id observer = css_opaque(css_recorder(1));
    [model addObserver: observer forKeyPath: css_opaque(nil) options: NSKeyValueObservingOptionNew context: NULL];
    css_event_log_reset_count(&css_kvo_events);
    [model setLevel: 3];
    long delivered = css_event_log_count(&css_kvo_events);
    CSS_RELEASE(observer);
    return css_format("delivered=%ld", delivered);
}

static const char *kvoAddEmptyKeyPath(void) {
    CSSKVOModel *model = css_opaque(CSS_AUTORELEASE([[CSSKVOModel alloc] init]));
    id observer = css_opaque(css_recorder(1));
    [model addObserver: observer forKeyPath: css_opaque(@"") options: NSKeyValueObservingOptionNew context: NULL];
    css_event_log_reset_count(&css_kvo_events);
    [model setLevel: 3];
    long delivered = css_event_log_count(&css_kvo_events);
    CSS_RELEASE(observer);
    return css_format("delivered=%ld", delivered);
}

static const char *kvoObserverDeallocated(void) {
    CSSKVOModel *model = css_opaque(CSS_AUTORELEASE([[CSSKVOModel alloc] init]));
    CSSKVOLargeObserver *observer = [[CSSKVOLargeObserver alloc] init];
    [model addObserver: observer forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    CSS_RELEASE(observer);   // forgot removeObserver:forKeyPath: in its dealloc
    css_event_log_reset_count(&css_kvo_events);
    [model setLevel: 4];
    return css_format("level=%d delivered=%ld", [model level], css_event_log_count(&css_kvo_events));
}

static const char *kvoObserverUnhandled(void) {
    CSSKVOModel *model = css_opaque(CSS_AUTORELEASE([[CSSKVOModel alloc] init]));
    id observer = [[CSSKVOForgetfulObserver alloc] init];
    [model addObserver: observer forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    [model setLevel: 5];
    [model removeObserver: observer forKeyPath: @"level"];
    CSS_RELEASE(observer);
    return css_format("level=%d", [model level]);
}

static const CSSScenario css_observation_table[] = {
    { "kvo.addObserver.nilKeyPath", "kvo", "addObserver:forKeyPath:options:context:", "SIGSEGV", "delivered=0", 1, kvoAddNilKeyPath },
    { "kvo.addObserver.emptyKeyPath", "kvo", "addObserver:forKeyPath:options:context:", "NSRangeException", "delivered=0", 1, kvoAddEmptyKeyPath },
    { "kvo.observer.deallocatedWhileRegistered", "kvo", "observeValueForKeyPath:ofObject:change:context:", "SIGSEGV", "level=4 delivered=0", 1, kvoObserverDeallocated },
    { "kvo.observer.doesNotImplementObserveValue", "kvo", "observeValueForKeyPath:ofObject:change:context:", "NSInvalidArgumentException", "level=5", 1, kvoObserverUnhandled },
};

const CSSScenario *css_observation_scenarios(int *count) {
    *count = (int)(sizeof css_observation_table / sizeof css_observation_table[0]);
    return css_observation_table;
}

// MARK: KVO test support

void *css_kvo_model_new(void) { return (CSS_BRIDGE void *)[[CSSKVOModel alloc] init]; }
void *css_kvo_recorder_new(long tag) { return (CSS_BRIDGE void *)css_recorder(tag); }
void *css_kvo_forgetful_new(void) { return (CSS_BRIDGE void *)[[CSSKVOForgetfulObserver alloc] init]; }
void css_kvo_add(void *model, void *observer, const char *keyPath, unsigned long options, unsigned long context) {
    NSString *path = keyPath ? [NSString stringWithUTF8String: keyPath] : nil;
    [(CSS_BRIDGE id)model addObserver: (CSS_BRIDGE id)observer forKeyPath: path options: options
                              context: (void *)(uintptr_t)context];
}
void css_kvo_remove(void *model, void *observer, const char *keyPath) {
    NSString *path = keyPath ? [NSString stringWithUTF8String: keyPath] : nil;
    [(CSS_BRIDGE id)model removeObserver: (CSS_BRIDGE id)observer forKeyPath: path];
}
void css_kvo_remove_context(void *model, void *observer, const char *keyPath, unsigned long context) {
    NSString *path = keyPath ? [NSString stringWithUTF8String: keyPath] : nil;
    [(CSS_BRIDGE id)model removeObserver: (CSS_BRIDGE id)observer forKeyPath: path context: (void *)(uintptr_t)context];
}
void css_kvo_set_level(void *model, int level) { [(CSS_BRIDGE CSSKVOModel *)model setLevel: level]; }
void css_kvo_set_name(void *model, const char *name) {
    [(CSS_BRIDGE CSSKVOModel *)model setName: name ? [NSString stringWithUTF8String: name] : nil];
}
long css_kvo_deliveries(void) { return css_event_log_count(&css_kvo_events); }
/// Copies the delivery log into `buffer` and clears it.
void css_kvo_take_log(char *buffer, unsigned long size) { css_event_log_take(&css_kvo_events, buffer, size); }

/// Valid observation, every option: the log of what the observers got (the differential test).
void css_kvo_valid_sequence(char *buffer, unsigned long size) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_kvo_take_log(scratch, sizeof scratch);
    CSSKVOModel *model = [[CSSKVOModel alloc] init];
    id a = css_recorder(1), b = css_recorder(2), c = css_recorder(3);
    NSUInteger all = NSKeyValueObservingOptionNew | NSKeyValueObservingOptionOld;
    [model addObserver: a forKeyPath: @"level" options: all context: (void *)11];
    [model addObserver: b forKeyPath: @"level" options: all context: (void *)12];
    [model setLevel: 1];
    [model addObserver: c forKeyPath: @"level" options: all | NSKeyValueObservingOptionInitial context: (void *)13];
    [model setLevel: 2];
    [model removeObserver: b forKeyPath: @"level"];
    [model setLevel: 3];
    [model addObserver: a forKeyPath: @"name" options: NSKeyValueObservingOptionNew | NSKeyValueObservingOptionInitial
               context: (void *)21];
    [model setName: @"x"];
    [model setName: nil];
    [model addObserver: b forKeyPath: @"name" options: all | NSKeyValueObservingOptionPrior context: (void *)22];
    [model setName: @"y"];
    [model removeObserver: a forKeyPath: @"level"];
    [model removeObserver: c forKeyPath: @"level"];
    [model setLevel: 4];
    [model removeObserver: a forKeyPath: @"name"];
    [model removeObserver: b forKeyPath: @"name"];
    [model setName: @"z"];
    CSS_RELEASE(model);
    CSS_RELEASE(a); CSS_RELEASE(b); CSS_RELEASE(c);
    css_kvo_take_log(buffer, size);
    CSS_POOL_END
}

void css_kvo_set_name_object(void *model, void *object) {
    [(CSS_BRIDGE CSSKVOModel *)model setName: (CSS_BRIDGE id)object];
}

static void css_log_change(long tag, NSString *keyPath, void *context, NSDictionary *change) {
    css_log_append([NSString stringWithFormat: @"%ld|%@|%lu|%s", tag, keyPath, (unsigned long)(uintptr_t)context,
                                               css_dictionary_contents(change)]);
}

/// Removes itself from the model it observes in its own -dealloc (the usual, correct pattern). A direct subclass of
/// NSObject, so that the guard's -dealloc hook is on this class and runs before this -dealloc's body.
@interface CSSKVOTidyObserver : NSObject { @public long _tag; CSSKVOModel *_model; }
@end
@implementation CSSKVOTidyObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    css_log_change(_tag, keyPath, context, change);
}
- (void)dealloc {
    [_model removeObserver: self forKeyPath: @"level"];
    CSS_RELEASE(_model);
    CSS_SUPER_DEALLOC();
}
@end

void *css_kvo_tidy_observer_new(void *model, long tag) {
    CSSKVOTidyObserver *observer = [[CSSKVOTidyObserver alloc] init];
    observer->_tag = tag;
#if __has_feature(objc_arc)
    observer->_model = (__bridge CSSKVOModel *)model;
#else
    observer->_model = [(CSSKVOModel *)model retain];
#endif
    [observer->_model addObserver: observer forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    return (CSS_BRIDGE void *)observer;
}

/// Observes its own level from init to dealloc (a direct subclass of NSObject, as above).
@interface CSSKVOSelfObserver : NSObject { int _level; long _tag; }
- (void)setLevel:(int)level;
@end
@implementation CSSKVOSelfObserver
- (instancetype)initWithTag:(long)tag {
    if ((self = [super init])) {
        _tag = tag;
        [self addObserver: self forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    }
    return self;
}
- (int)level { return _level; }
- (void)setLevel:(int)level { _level = level; }
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    css_log_change(_tag, keyPath, context, change);
}
- (void)dealloc {
    [self removeObserver: self forKeyPath: @"level"];
    CSS_SUPER_DEALLOC();
}
@end

void *css_kvo_self_observer_new(long tag) {
    return (CSS_BRIDGE void *)[[CSSKVOSelfObserver alloc] initWithTag: tag];
}

void *css_kvo_operation_new(void) { return (CSS_BRIDGE void *)[[NSOperation alloc] init]; }
void css_kvo_set_priority(void *operation, long priority) {
    [(CSS_BRIDGE NSOperation *)operation setQueuePriority: (NSOperationQueuePriority)priority];
}

// MARK: Observers released while a change is being delivered to them

static pthread_mutex_t css_probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t css_probe_changed = PTHREAD_COND_INITIALIZER;
static bool css_probe_open;
static long css_probe_entered;
static char css_probe_log[4096];

void css_kvo_probe_note(const char *event) {
    pthread_mutex_lock(&css_probe_lock);
    size_t used = strlen(css_probe_log);
    snprintf(css_probe_log + used, sizeof css_probe_log - used, "%s\n", event);
    pthread_mutex_unlock(&css_probe_lock);
}

static void css_probe_note_tag(const char *what, long tag) {
    char event[64];
    snprintf(event, sizeof event, "%s %ld", what, tag);
    css_kvo_probe_note(event);
}

/// Large (see CSSKVOLargeObserver): a message to a freed probe crashes every time.
@interface CSSKVOProbe : NSObject { @public long _tag; bool _blocks; id _victim; char _screen[512 * 1024]; }
@end
@implementation CSSKVOProbe
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    long tag = _tag;   // self may be gone after the victim is released
    css_probe_note_tag("enter", tag);
    pthread_mutex_lock(&css_probe_lock);
    css_probe_entered++;
    pthread_cond_broadcast(&css_probe_changed);
    while (_blocks && !css_probe_open) pthread_cond_wait(&css_probe_changed, &css_probe_lock);
    pthread_mutex_unlock(&css_probe_lock);
    id victim = _victim;
    _victim = nil;
#if !__has_feature(objc_arc)
    CSS_RELEASE(victim);
#else
    victim = nil;
#endif
    css_probe_note_tag("return", tag);
}
- (void)dealloc {
    css_probe_note_tag("dealloc", _tag);
#if !__has_feature(objc_arc)
    CSS_RELEASE(_victim);
#endif
    CSS_SUPER_DEALLOC();
}
@end

void *css_kvo_probe_new(long tag, bool blocks) {
    CSSKVOProbe *probe = [[CSSKVOProbe alloc] init];
    probe->_tag = tag;
    probe->_blocks = blocks;
    return (CSS_BRIDGE void *)probe;
}

void css_kvo_probe_set_victim(void *probe, void *victim) {
    CSSKVOProbe *owner = (CSS_BRIDGE CSSKVOProbe *)probe;
#if __has_feature(objc_arc)
    owner->_victim = (__bridge id)victim;
#else
    owner->_victim = [(id)victim retain];
#endif
}

void css_kvo_probe_reset(void) {
    pthread_mutex_lock(&css_probe_lock);
    css_probe_open = false;
    css_probe_entered = 0;
    css_probe_log[0] = 0;
    pthread_mutex_unlock(&css_probe_lock);
}

bool css_kvo_probe_wait_entered(long count, double seconds) {
    struct timeval now;
    gettimeofday(&now, NULL);
    double end = (double)now.tv_sec + (double)now.tv_usec / 1e6 + seconds;
    struct timespec deadline = { (time_t)end, (long)((end - (double)(time_t)end) * 1e9) };
    pthread_mutex_lock(&css_probe_lock);
    int status = 0;
    while (css_probe_entered < count && status == 0) {
        status = pthread_cond_timedwait(&css_probe_changed, &css_probe_lock, &deadline);
    }
    bool reached = css_probe_entered >= count;
    pthread_mutex_unlock(&css_probe_lock);
    return reached;
}

void css_kvo_probe_open_gate(void) {
    pthread_mutex_lock(&css_probe_lock);
    css_probe_open = true;
    pthread_cond_broadcast(&css_probe_changed);
    pthread_mutex_unlock(&css_probe_lock);
}

void css_kvo_probe_events(char *buffer, unsigned long size) {
    pthread_mutex_lock(&css_probe_lock);
    strncpy(buffer, css_probe_log, size - 1);
    buffer[size - 1] = 0;
    pthread_mutex_unlock(&css_probe_lock);
}
