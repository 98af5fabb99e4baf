// CSSNotificationScenarios.m: notification-center and timer code that crashes without CrashShield, and the test
// support for the notification and timer guards (recording observers and timer targets, threads with run loops,
// valid sequences for the differential tests).
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "CSSFamilies.h"
#include "CSSMemory.h"


// MARK: The delivery log (every recording observer and timer target appends one line per delivery)

static CSSEventLog css_note_events = CSS_EVENT_LOG_INITIALIZER;

static void css_note_append(NSString *line) { css_event_log_append(&css_note_events, line); }

static const char *css_thread_label(void) {
    if ([NSThread isMainThread]) return "main";
    NSString *name = [[NSThread currentThread] name];
    return [name length] ? [name UTF8String] : "other";
}

/// Records every notification: "tag|selector|name|object|{userInfo}|thread".
@interface CSSNoteRecorder : NSObject { @public long _tag; }
- (void)note:(NSNotification *)notification;
- (void)other:(NSNotification *)notification;
@end
@implementation CSSNoteRecorder
- (void)record:(NSNotification *)notification selector:(const char *)selector {
    css_note_append([NSString stringWithFormat: @"%ld|%s|%@|%s|%s|%s", _tag, selector, [notification name],
                                                css_describe([notification object]),
                                                css_dictionary_contents([notification userInfo]), css_thread_label()]);
}
- (void)note:(NSNotification *)notification { [self record: notification selector: "note:"]; }
- (void)other:(NSNotification *)notification { [self record: notification selector: "other:"]; }
@end

/// Its memory goes back to the system when it is freed, so a message sent to it afterwards crashes every time.
@interface CSSNoteLargeObserver : CSSNoteRecorder { char _screen[512 * 1024]; }
@end
@implementation CSSNoteLargeObserver
@end

/// An observer class of its own (not a recorder subclass), for the one test that checks whether the guard hooks its
/// -dealloc: a hook on a shared superclass would hide that. Logs "tag|forgotten:|name".
@interface CSSNoteForgottenObserver : NSObject { @public long _tag; }
- (void)forgotten:(NSNotification *)notification;
@end
@implementation CSSNoteForgottenObserver
- (void)forgotten:(NSNotification *)notification {
    css_note_append([NSString stringWithFormat: @"%ld|forgotten:|%@", _tag, [notification name]]);
}
@end

/// Removes itself from the default center in its own -dealloc (correct code: never reported).
@interface CSSNoteTidyObserver : CSSNoteRecorder
@end
@implementation CSSNoteTidyObserver
- (void)dealloc {
    [[NSNotificationCenter defaultCenter] removeObserver: self];
    CSS_SUPER_DEALLOC();
}
@end

/// Removes only one of its registrations in its -dealloc (the "CSSNote.A" one).
@interface CSSNoteHalfTidyObserver : CSSNoteRecorder
@end
@implementation CSSNoteHalfTidyObserver
- (void)dealloc {
    [[NSNotificationCenter defaultCenter] removeObserver: self name: @"CSSNote.A" object: nil];
    CSS_SUPER_DEALLOC();
}
@end

static id css_note_recorder(Class cls, long tag) {
    CSSNoteRecorder *recorder = [[cls alloc] init];
    recorder->_tag = tag;
    return recorder;
}

// MARK: Notification scenarios

/// Hides a selector from the optimizer (and from the compiler's undeclared-selector check).
static SEL css_opaque_selector(SEL selector) {
    __asm__ volatile("" : "+r"(selector));
    return selector;
}

static const char *noteObserverDeallocated(void) {
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    id observer = css_note_recorder([CSSNoteLargeObserver class], 1);
    [center addObserver: observer selector: @selector(note:) name: @"CSSNote.Scenario" object: nil];
    CSS_RELEASE(observer);   // forgot removeObserver: in its dealloc
    css_event_log_reset_count(&css_note_events);
    [center postNotificationName: @"CSSNote.Scenario" object: nil];
    return css_format("delivered=%ld", css_event_log_count(&css_note_events));
}

/// Registers a recorder for `selector`, posts once, and answers how many deliveries the recorder logged.
static const char *notePostToRecorderObservingWith(SEL selector) {
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    id observer = css_note_recorder([CSSNoteRecorder class], 1);
    [center addObserver: observer selector: selector name: @"CSSNote.Scenario" object: nil];
    css_event_log_reset_count(&css_note_events);
    [center postNotificationName: @"CSSNote.Scenario" object: nil];
    long delivered = css_event_log_count(&css_note_events);
    [center removeObserver: observer];
    CSS_RELEASE(observer);
    return css_format("delivered=%ld", delivered);
}

static const char *noteMissingSelector(void) {
    return notePostToRecorderObservingWith(css_opaque_selector(@selector(noteTypo:)));
}

static const char *noteNilObserver(void) {
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    [center addObserver: css_opaque(nil) selector: @selector(note:) name: @"CSSNote.Scenario" object: nil];
    [center postNotificationName: @"CSSNote.Scenario" object: nil];
    return "posted";
}

static const char *noteNullSelector(void) { return notePostToRecorderObservingWith(css_opaque_selector(NULL)); }

// MARK: Timer scenarios

/// A timer target whose memory goes back to the system when it is freed: a message sent to it afterwards crashes
/// every time. Counts its fires.
@interface CSSTimerLargeTarget : NSObject { char _screen[512 * 1024]; }
- (void)tick:(NSTimer *)timer;
@end
static long css_timer_large_fires;
@implementation CSSTimerLargeTarget
- (void)tick:(NSTimer *)timer { css_timer_large_fires++; }
@end

/// The target of a repeating timer is released once more than it was retained: it is freed while the timer still
/// holds it, and the timer's next fire messages freed memory.
static const char *timerTargetOverReleased(void) {
    css_timer_large_fires = 0;
    void *target = (CSS_BRIDGE_RETAINED void *)[[CSSTimerLargeTarget alloc] init];
    NSTimer *timer = CSS_RETAIN([NSTimer scheduledTimerWithTimeInterval: 0.01 target: (CSS_BRIDGE id)target
                                                               selector: @selector(tick:) userInfo: nil repeats: YES]);
    css_object_release(target);   // the owner is done with it
    css_object_release(target);   // a release too many: the timer's own reference is gone
    // Until the timer has fired (unprotected: the fire messages freed memory; protected: the fire invalidates it),
    // at most 2 s: one short run could end before the first fire on a loaded machine, and nothing would be sent.
    NSDate *limit = [NSDate dateWithTimeIntervalSinceNow: 2.0];
    while ([timer isValid] && [limit timeIntervalSinceNow] > 0) {
        [[NSRunLoop currentRunLoop] runUntilDate: [NSDate dateWithTimeIntervalSinceNow: 0.02]];
    }
    const char *result = css_format("fired=%ld valid=%d", css_timer_large_fires, (int)[timer isValid]);
    CSS_RELEASE(timer);
    return result;
}

static const CSSScenario css_notification_table[] = {
    { "notification.observer.deallocatedWhileRegistered", "notification", "note:", "SIGSEGV", "delivered=0", 1, noteObserverDeallocated },
    { "timer.target.overReleased", "timer", "tick:", "SIGSEGV", "fired=0 valid=0", 1, timerTargetOverReleased },
#if !defined(__APPLE__)
    // GNUstep checks at add time; Apple registers them and fails at the post (or not at all for nil).
    { "notification.addObserver.missingSelector", "notification", "addObserver:selector:name:object:", "NSInvalidArgumentException", "delivered=0", 1, noteMissingSelector },
    { "notification.addObserver.nilObserver", "notification", "addObserver:selector:name:object:", "NSInvalidArgumentException", "posted", 1, noteNilObserver },
    { "notification.addObserver.nullSelector", "notification", "addObserver:selector:name:object:", "NSInvalidArgumentException", "delivered=0", 1, noteNullSelector },
#endif
};

const CSSScenario *css_notification_scenarios(int *count) {
    *count = (int)(sizeof css_notification_table / sizeof css_notification_table[0]);
    return css_notification_table;
}

// MARK: Notification test support

void *css_note_recorder_new(long tag) { return (CSS_BRIDGE void *)css_note_recorder([CSSNoteRecorder class], tag); }
void *css_note_large_recorder_new(long tag) {
    return (CSS_BRIDGE void *)css_note_recorder([CSSNoteLargeObserver class], tag);
}
void *css_note_tidy_recorder_new(long tag) { return (CSS_BRIDGE void *)css_note_recorder([CSSNoteTidyObserver class], tag); }
void *css_note_half_tidy_recorder_new(long tag) {
    return (CSS_BRIDGE void *)css_note_recorder([CSSNoteHalfTidyObserver class], tag);
}
void *css_note_forgotten_observer_new(long tag) {
    CSSNoteForgottenObserver *observer = [[CSSNoteForgottenObserver alloc] init];
    observer->_tag = tag;
    return (__bridge_retained void *)observer;
}
void *css_note_center_new(void) { return (CSS_BRIDGE void *)[[NSNotificationCenter alloc] init]; }
void *css_note_default_center(void) { return (CSS_BRIDGE void *)[NSNotificationCenter defaultCenter]; }

static NSString *css_string(const char *text) { return text ? [NSString stringWithUTF8String: text] : nil; }

void css_note_add(void *center, void *observer, const char *selector, const char *name, void *object) {
    [(CSS_BRIDGE NSNotificationCenter *)center addObserver: (CSS_BRIDGE id)observer
                                                  selector: selector ? sel_registerName(selector) : NULL
                                                      name: css_string(name) object: (CSS_BRIDGE id)object];
}
void css_note_remove(void *center, void *observer) {
    [(CSS_BRIDGE NSNotificationCenter *)center removeObserver: (CSS_BRIDGE id)observer];
}
void css_note_remove_named(void *center, void *observer, const char *name, void *object) {
    [(CSS_BRIDGE NSNotificationCenter *)center removeObserver: (CSS_BRIDGE id)observer name: css_string(name)
                                                       object: (CSS_BRIDGE id)object];
}
/// Posts `name` with `object` and, when `key` is given, userInfo {key: value}.
void css_note_post(void *center, const char *name, void *object, const char *key, const char *value) {
    NSDictionary *info = key ? [NSDictionary dictionaryWithObject: css_string(value) forKey: css_string(key)] : nil;
    [(CSS_BRIDGE NSNotificationCenter *)center postNotificationName: css_string(name) object: (CSS_BRIDGE id)object
                                                           userInfo: info];
}
/// A new NSString (+1), to use as a notification object or a userInfo value.
void *css_note_string_new(const char *text) {
    return (CSS_BRIDGE void *)[[NSString alloc] initWithUTF8String: text];
}
/// A new dictionary {key: value} (+1).
void *css_note_dictionary_new(const char *key, const char *value) {
    return (CSS_BRIDGE void *)[[NSDictionary alloc] initWithObjectsAndKeys: css_string(value), css_string(key), nil];
}
/// `[[dictionary objectForKey:key] UTF8String]` (NULL when absent).
const char *css_note_dictionary_value(void *dictionary, const char *key) {
    id value = [(CSS_BRIDGE NSDictionary *)dictionary objectForKey: css_string(key)];
    return value ? [[value description] UTF8String] : NULL;
}
/// `[object description]` as UTF-8 (lives until the pool drains).
const char *css_note_describe(void *object) { return css_describe((CSS_BRIDGE id)object); }

long css_note_deliveries_count(void) { return css_event_log_count(&css_note_events); }
/// Copies the delivery log into `buffer` and clears it.
void css_note_take_log(char *buffer, unsigned long size) { css_event_log_take(&css_note_events, buffer, size); }

/// Valid use of the default center and a private one: the log of what the observers got (the differential test).
void css_note_valid_sequence(char *buffer, unsigned long size) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_note_take_log(scratch, sizeof scratch);
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    NSNotificationCenter *own = [[NSNotificationCenter alloc] init];
    id a = css_note_recorder([CSSNoteRecorder class], 1), b = css_note_recorder([CSSNoteRecorder class], 2);
    id c = css_note_recorder([CSSNoteTidyObserver class], 3);
    id sender = [NSString stringWithUTF8String: "sender"];
    NSDictionary *info = [NSDictionary dictionaryWithObject: @"v" forKey: @"k"];
    [center addObserver: a selector: @selector(note:) name: @"CSSNote.A" object: nil];
    [center addObserver: b selector: @selector(note:) name: @"CSSNote.A" object: sender];
    [center addObserver: b selector: @selector(other:) name: nil object: sender];
    [center addObserver: c selector: @selector(note:) name: @"CSSNote.B" object: nil];
    [own addObserver: a selector: @selector(other:) name: @"CSSNote.A" object: nil];
    [center postNotificationName: @"CSSNote.A" object: nil];
    [center postNotificationName: @"CSSNote.A" object: sender userInfo: info];
    [center postNotificationName: @"CSSNote.B" object: sender];
    [own postNotificationName: @"CSSNote.A" object: sender];
    [center removeObserver: b name: @"CSSNote.A" object: nil];
    [center postNotificationName: @"CSSNote.A" object: sender];
    [center removeObserver: b name: nil object: sender];
    [center postNotificationName: @"CSSNote.A" object: sender];
    CSS_RELEASE(c);   // removes itself in its dealloc
    [center postNotificationName: @"CSSNote.B" object: nil];
    [center addObserver: a selector: @selector(note:) name: @"CSSNote.A" object: nil];
    [center postNotificationName: @"CSSNote.A" object: nil];
    [center removeObserver: a];
    [own removeObserver: a];
    [center postNotificationName: @"CSSNote.A" object: nil];
    [own postNotificationName: @"CSSNote.A" object: nil];
    CSS_RELEASE(own);
    CSS_RELEASE(a); CSS_RELEASE(b);
    css_note_take_log(buffer, size);
    CSS_POOL_END
}

// MARK: Threads with run loops

/// Runs its run loop (with a port so it does not return at once) until told to stop.
@interface CSSRunLoopThread : NSThread { @public volatile int _stop; volatile int _running; }
@end
@implementation CSSRunLoopThread
- (void)main {
    CSS_POOL_BEGIN
    NSRunLoop *loop = [NSRunLoop currentRunLoop];
    [loop addPort: [NSPort port] forMode: NSDefaultRunLoopMode];
    _running = 1;
    while (!_stop) {
        CSS_POOL_BEGIN
        [loop runMode: NSDefaultRunLoopMode beforeDate: [NSDate dateWithTimeIntervalSinceNow: 0.02]];
        CSS_POOL_END
    }
    _running = 0;
    CSS_POOL_END
}
@end

/// A thread named `name` running its run loop (+1). Returns once the loop runs.
void *css_runloop_thread_start(const char *name) {
    CSSRunLoopThread *thread = [[CSSRunLoopThread alloc] init];
    [thread setName: css_string(name)];
    [thread start];
    while (!thread->_running) usleep(1000);
    return (CSS_BRIDGE void *)thread;
}
/// Stops and releases a thread `css_runloop_thread_start` returned.
void css_runloop_thread_stop(void *thread) {
    CSSRunLoopThread *t = (CSS_BRIDGE CSSRunLoopThread *)thread;
    t->_stop = 1;
    while (t->_running) usleep(1000);
    CSS_RELEASE(t);
}
/// Runs the current thread's run loop for `seconds`.
void css_runloop_run(double seconds) {
    CSS_POOL_BEGIN
    [[NSRunLoop currentRunLoop] runUntilDate: [NSDate dateWithTimeIntervalSinceNow: seconds]];
    CSS_POOL_END
}
/// Whether this is the main thread, as GNUstep sees it.
bool css_is_main_thread(void) { return [NSThread isMainThread] ? true : false; }

// MARK: Timer test support

/// Records every fire: "tag|selector|userInfo|argument-is-the-timer|valid|n"; invalidates the timer after `_limit`
/// fires (0: never).
@interface CSSTimerTarget : NSObject { @public long _tag; long _fires; long _limit; }
- (void)tick:(NSTimer *)timer;
@end
@implementation CSSTimerTarget
- (void)tick:(NSTimer *)timer {
    _fires++;
    css_note_append([NSString stringWithFormat: @"%ld|tick:|%s|%s|%s|%ld", _tag, css_describe([timer userInfo]),
                                                [timer isKindOfClass: [NSTimer class]] ? "timer" : "other",
                                                [timer isValid] ? "valid" : "invalid", _fires]);
    if (_limit && _fires >= _limit) [timer invalidate];
}
@end

/// Invalidates its timer in its own -dealloc: a pattern that never runs, as its timer retains it (a retain cycle
/// Foundation keeps until the timer is invalidated by someone else).
@interface CSSTimerOwner : CSSTimerTarget { @public NSTimer *_timer; }
@end
@implementation CSSTimerOwner
- (void)dealloc {
    [_timer invalidate];
    CSS_RELEASE(_timer);
    CSS_SUPER_DEALLOC();
}
@end

void *css_timer_target_new(long tag, long limit) {
    CSSTimerTarget *target = [[CSSTimerTarget alloc] init];
    target->_tag = tag;
    target->_limit = limit;
    return (CSS_BRIDGE void *)target;
}
long css_timer_target_fires(void *target) { return ((CSS_BRIDGE CSSTimerTarget *)target)->_fires; }
/// `scheduledTimerWithTimeInterval:target:selector:userInfo:repeats:` (userInfo: a string or nil); not retained.
void *css_timer_schedule(double interval, void *target, const char *selector, const char *userInfo, bool repeats) {
    return (CSS_BRIDGE void *)[NSTimer scheduledTimerWithTimeInterval: interval target: (CSS_BRIDGE id)target
                                                             selector: sel_registerName(selector)
                                                             userInfo: css_string(userInfo) repeats: repeats];
}
/// An owner that schedules a repeating timer on itself, keeps it, and invalidates it in its -dealloc (+1).
void *css_timer_owner_new(long tag, double interval) {
    CSSTimerOwner *owner = [[CSSTimerOwner alloc] init];
    owner->_tag = tag;
    owner->_timer = CSS_RETAIN([NSTimer scheduledTimerWithTimeInterval: interval target: owner
                                                              selector: @selector(tick:) userInfo: nil repeats: YES]);
    return (CSS_BRIDGE void *)owner;
}
void *css_timer_owner_timer(void *owner) { return (CSS_BRIDGE void *)((CSS_BRIDGE CSSTimerOwner *)owner)->_timer; }
void *css_timer_retain(void *timer) { return (CSS_BRIDGE void *)CSS_RETAIN((CSS_BRIDGE NSTimer *)timer); }
bool css_timer_is_valid(void *timer) { return [(CSS_BRIDGE NSTimer *)timer isValid] ? true : false; }
void css_timer_invalidate(void *timer) { [(CSS_BRIDGE NSTimer *)timer invalidate]; }

// MARK: Timers whose target only the timer keeps alive

/// Scheduled on itself and released by whoever made it: only its timer keeps it alive (as Foundation's timers retain
/// their target). Logs "tag|work:|n" per fire, invalidates its timer after `_limit` fires, and logs "tag|dealloc".
@interface CSSTimerWorker : NSObject { @public long _tag; long _fires; long _limit; }
- (void)work:(NSTimer *)timer;
@end
@implementation CSSTimerWorker
- (void)work:(NSTimer *)timer {
    _fires++;
    css_note_append([NSString stringWithFormat: @"%ld|work:|%ld|%s", _tag, _fires, [timer isValid] ? "valid" : "invalid"]);
    if (_fires >= _limit) [timer invalidate];
}
- (void)dealloc {
    css_note_append([NSString stringWithFormat: @"%ld|dealloc", _tag]);
    CSS_SUPER_DEALLOC();
}
@end

/// YYWeakProxy's shape, the usual way apps break the timer/target cycle: the timer retains the proxy (nothing else
/// does), the proxy does not retain its target and hands every message to it (`forwardingTargetForSelector:`, and
/// `forwardInvocation:` where the runtime does not ask for a forwarding target); once the target is gone,
/// `methodSignatureForSelector:`/`forwardInvocation:` answer any message with nothing. Under ARC
/// the target is a zeroing weak reference; GCC's libobjc has none, so here the owner clears it in its -dealloc.
@interface CSSTimerWeakProxy : NSProxy {
#if __has_feature(objc_arc)
    __weak id _target;
#else
    id _target;   // not retained
#endif
@public
    long _tag;
}
+ (id)proxyWithTarget:(id)target tag:(long)tag;
- (void)clearTarget;
@end
@implementation CSSTimerWeakProxy
+ (id)proxyWithTarget:(id)target tag:(long)tag {
    CSSTimerWeakProxy *proxy = [self alloc];
    proxy->_target = target;
    proxy->_tag = tag;
    return CSS_AUTORELEASE(proxy);
}
- (void)clearTarget { _target = nil; }
- (id)forwardingTargetForSelector:(SEL)selector { return _target; }
// GCC's libobjc never asks an NSProxy for a forwarding target: the invocation goes to the target while it lives.
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector {
    id target = _target;
    NSMethodSignature *signature = target ? [target methodSignatureForSelector: selector] : nil;
    return signature ? signature : [NSObject instanceMethodSignatureForSelector: @selector(init)];
}
- (void)forwardInvocation:(NSInvocation *)invocation {
    id target = _target;
    if (target && [target respondsToSelector: [invocation selector]]) {
        [invocation invokeWithTarget: target];
        return;
    }
    void *nothing = NULL;   // the target is gone: nothing happens
    [invocation setReturnValue: &nothing];
}
- (BOOL)respondsToSelector:(SEL)selector { return [_target respondsToSelector: selector]; }
- (BOOL)isKindOfClass:(Class)cls { return [_target isKindOfClass: cls]; }
- (NSUInteger)hash { return [_target hash]; }
- (void)dealloc {
    css_note_append([NSString stringWithFormat: @"%ld|proxy.dealloc", _tag]);
    CSS_SUPER_DEALLOC();
}
@end

/// Keeps a repeating timer whose target is a weak proxy of itself and invalidates it in its -dealloc (the pattern
/// YYWeakProxy exists for). Logs "tag|tick:|n" for its first `_limit` fires (its owner lets it go after those, at a
/// time the run loop decides) and "tag|owner.dealloc".
@interface CSSTimerProxyOwner : NSObject {
@public
    long _tag; long _fires; long _limit; NSTimer *_timer; CSSTimerWeakProxy *_proxy;
}
- (void)tick:(NSTimer *)timer;
@end
@implementation CSSTimerProxyOwner
- (void)tick:(NSTimer *)timer {
    _fires++;
    if (_fires > _limit) return;
    css_note_append([NSString stringWithFormat: @"%ld|tick:|%ld|%s", _tag, _fires, timer == _timer ? "own" : "other"]);
}
- (void)dealloc {
    css_note_append([NSString stringWithFormat: @"%ld|owner.dealloc", _tag]);
    [_proxy clearTarget];   // what the zeroing weak reference does under ARC
    [_timer invalidate];
    CSS_RELEASE(_timer);
    CSS_SUPER_DEALLOC();
}
@end

/// A target that lacks the timer's selector but forwards it (an NSObject subclass overriding
/// `forwardingTargetForSelector:` without calling super, answering `respondsToSelector:` NO): the fire reaches the
/// worker it forwards to. Logs "tag|forwarder.dealloc".
@interface CSSTimerForwarder : NSObject { @public long _tag; CSSTimerWorker *_worker; }
@end
@implementation CSSTimerForwarder
- (id)forwardingTargetForSelector:(SEL)selector { return _worker; }
- (void)dealloc {
    css_note_append([NSString stringWithFormat: @"%ld|forwarder.dealloc", _tag]);
    CSS_RELEASE(_worker);
    CSS_SUPER_DEALLOC();
}
@end

@interface NSObject (CSSTimerForwarded)
- (void)work:(NSTimer *)timer;
@end

/// Runs this thread's run loop until `condition` holds, or 3 s.
#define CSS_RUN_LOOP_UNTIL(condition) do { \
    NSDate *css_deadline = [NSDate dateWithTimeIntervalSinceNow: 3]; \
    while (!(condition) && [css_deadline timeIntervalSinceNow] > 0) { \
        CSS_POOL_BEGIN \
        [[NSRunLoop currentRunLoop] runMode: NSDefaultRunLoopMode beforeDate: [NSDate dateWithTimeIntervalSinceNow: 0.01]]; \
        CSS_POOL_END \
    } \
} while (0)

static long css_note_lines_containing(NSString *text) {
    long found = 0;
    pthread_mutex_lock(&css_note_events.lock);
    for (NSString *line in [css_note_events.text componentsSeparatedByString: @"\n"]) {
        if ([line rangeOfString: text].location != NSNotFound) found++;
    }
    pthread_mutex_unlock(&css_note_events.lock);
    return found;
}

/// The three shapes, one after the other, each `fires` times: the fire log (the differential test).
/// 1: a worker scheduled on itself and released; 2: an owner whose timer targets a weak proxy of it, released after
/// `fires` fires; 3: a forwarder that lacks the selector and forwards it to a worker that invalidates after `fires`.
void css_timer_unowned_target_sequence(long fires, char *buffer, unsigned long size) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_note_take_log(scratch, sizeof scratch);
    // 1. A worker only its timer keeps alive.
    CSS_POOL_BEGIN
    CSSTimerWorker *worker = [[CSSTimerWorker alloc] init];
    worker->_tag = 1;
    worker->_limit = fires;
    [NSTimer scheduledTimerWithTimeInterval: 0.005 target: worker selector: @selector(work:) userInfo: nil repeats: YES];
    CSS_RELEASE(worker);
    CSS_POOL_END
    CSS_RUN_LOOP_UNTIL(css_note_lines_containing(@"1|dealloc") > 0);
    // 2. A weak proxy only the timer keeps alive.
    CSSTimerProxyOwner *owner = [[CSSTimerProxyOwner alloc] init];
    owner->_tag = 2;
    owner->_limit = fires;
    CSS_POOL_BEGIN
    owner->_proxy = [CSSTimerWeakProxy proxyWithTarget: owner tag: 2];
    owner->_timer = CSS_RETAIN([NSTimer scheduledTimerWithTimeInterval: 0.005 target: owner->_proxy
                                                              selector: @selector(tick:) userInfo: nil repeats: YES]);
    CSS_POOL_END
    CSS_RUN_LOOP_UNTIL(owner->_fires >= fires);
    CSS_RELEASE(owner);
    CSS_RUN_LOOP_UNTIL(css_note_lines_containing(@"2|proxy.dealloc") > 0);
    // 3. A forwarder only its timer keeps alive.
    CSS_POOL_BEGIN
    CSSTimerForwarder *forwarder = [[CSSTimerForwarder alloc] init];
    forwarder->_tag = 3;
    forwarder->_worker = [[CSSTimerWorker alloc] init];
    forwarder->_worker->_tag = 3;
    forwarder->_worker->_limit = fires;
    [NSTimer scheduledTimerWithTimeInterval: 0.005 target: forwarder selector: @selector(work:) userInfo: nil
                                    repeats: YES];
    css_note_append([NSString stringWithFormat: @"3|responds=%d", (int)[forwarder respondsToSelector: @selector(work:)]]);
    CSS_RELEASE(forwarder);
    CSS_POOL_END
    CSS_RUN_LOOP_UNTIL(css_note_lines_containing(@"3|dealloc") > 0);
    css_note_take_log(buffer, size);
    CSS_POOL_END
}

/// Valid timers on this thread's run loop, every creation form: the fire log (the differential test).
void css_timer_valid_sequence(char *buffer, unsigned long size) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_note_take_log(scratch, sizeof scratch);
    CSSTimerTarget *once = (CSS_BRIDGE CSSTimerTarget *)css_timer_target_new(1, 0);
    CSSTimerTarget *thrice = (CSS_BRIDGE CSSTimerTarget *)css_timer_target_new(2, 3);
    CSSTimerTarget *manual = (CSS_BRIDGE CSSTimerTarget *)css_timer_target_new(3, 2);
    CSSTimerTarget *stopped = (CSS_BRIDGE CSSTimerTarget *)css_timer_target_new(4, 0);
    NSRunLoop *loop = [NSRunLoop currentRunLoop];
    [NSTimer scheduledTimerWithTimeInterval: 0.01 target: once selector: @selector(tick:) userInfo: @"one" repeats: NO];
    [NSTimer scheduledTimerWithTimeInterval: 0.06 target: thrice selector: @selector(tick:) userInfo: @"three"
                                    repeats: YES];
    // Kept (GNUstep's run loop holds the only reference to a scheduled timer and frees it once it is invalidated).
    NSTimer *added = CSS_RETAIN([NSTimer timerWithTimeInterval: 0.25 target: manual selector: @selector(tick:)
                                                      userInfo: nil repeats: YES]);
    [loop addTimer: added forMode: NSDefaultRunLoopMode];
    NSTimer *never = [[NSTimer alloc] initWithFireDate: [NSDate dateWithTimeIntervalSinceNow: 0.03] interval: 0.03
                                                target: stopped selector: @selector(tick:) userInfo: @"never" repeats: YES];
    [loop addTimer: never forMode: NSDefaultRunLoopMode];
    [never invalidate];
    [loop runUntilDate: [NSDate dateWithTimeIntervalSinceNow: 0.7]];
    css_note_append([NSString stringWithFormat: @"valid:%d,%d,%d", [added isValid], [never isValid],
                                                [never userInfo] == nil]);
    CSS_RELEASE(never); CSS_RELEASE(added);
    CSS_RELEASE(once); CSS_RELEASE(thrice); CSS_RELEASE(manual); CSS_RELEASE(stopped);
    css_note_take_log(buffer, size);
    CSS_POOL_END
}
