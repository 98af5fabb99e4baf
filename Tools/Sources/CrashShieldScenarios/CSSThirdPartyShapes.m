// CSSThirdPartyShapes.m: test support shaped like third-party code inside an app that forwards messages or observes
// with its own KVO contexts: a class that overrides forwardingTargetForSelector: without calling super, an NSProxy
// forwarder, ReactiveObjC's shared KVO proxy (one observer, a context per subscription), AFNetworking's observers of
// operations (static contexts, super for any other). Each sequence returns what the code observed, as one text: it
// must be the same with every guard on as without CrashShield (the differential tests).
#import <Foundation/Foundation.h>
#include <string.h>
#include <unistd.h>
#include "CSSFamilies.h"
#include "CSSMemory.h"


#if !defined(__APPLE__)
/// GNUstep 1.28 does not declare (or implement) it; Apple does. CrashShield's KVO guard adds it.
@interface NSObject (CSSThirdPartyContextRemoval)
- (void)removeObserver:(NSObject *)observer forKeyPath:(NSString *)keyPath context:(void *)context;
@end
#endif

/// What the observers saw, one line each.
static CSSEventLog css_tp_events = CSS_EVENT_LOG_INITIALIZER;
static void css_tp_log(NSString *line) { css_event_log_append(&css_tp_events, line); }
static bool css_tp_logged(NSString *line) {
    pthread_mutex_lock(&css_tp_events.lock);
    bool found = [[css_tp_events.text componentsSeparatedByString: @"\n"] containsObject: line];
    pthread_mutex_unlock(&css_tp_events.lock);
    return found;
}
/// How each removal with a context went ("context": the method did it; "fallback": it raised, GNUstep without the
/// guard has no such method, and the observer was removed by key path, which has the same effect in these sequences).
static CSSEventLog css_tp_removals = CSS_EVENT_LOG_INITIALIZER;

/// What a call gave, or the exception it raised.
#define CSS_TP_TRY(expression) ({ \
    const char *css_text; \
    @try { css_text = (expression); } \
    @catch (NSException *exception) { \
        css_text = css_format("raised(%s: %s)", [[exception name] UTF8String], [[exception reason] UTF8String]); \
    } \
    css_text; })

/// Runs `statement`; an exception it raises (an observer's super for a context it does not know) is logged.
#define CSS_TP_DO(statement) do { \
    @try { statement; } \
    @catch (NSException *exception) { \
        css_tp_log([NSString stringWithFormat: @"raised(%@: %@)", [exception name], [exception reason]]); \
    } \
} while (0)

// MARK: Forwarders

/// What the forwarders hand messages to.
@interface CSSTPWorker : NSObject
- (NSString *)greeting:(NSString *)name;
- (NSInteger)answer;
- (NSRange)span;
@end
@implementation CSSTPWorker
- (NSString *)greeting:(NSString *)name { return [NSString stringWithFormat: @"hello %@", name]; }
- (NSInteger)answer { return 42; }
- (NSRange)span { return NSMakeRange(3, 4); }
@end

/// The messages code sends to a forwarder; the last two nobody implements.
@interface NSObject (CSSThirdPartyMessages)
- (NSString *)greeting:(NSString *)name;
- (NSInteger)answer;
- (NSRange)span;
- (NSInteger)unhandledCount;
- (id)unhandledObject;
@end

/// Overrides forwardingTargetForSelector: without calling super: every message its worker answers goes to the
/// worker, nil (no target) for the rest.
@interface CSSTPForwarder : NSObject { CSSTPWorker *_worker; }
@end
@implementation CSSTPForwarder
- (instancetype)init {
    if ((self = [super init])) _worker = [[CSSTPWorker alloc] init];
    return self;
}
- (id)forwardingTargetForSelector:(SEL)selector { return [_worker respondsToSelector: selector] ? _worker : nil; }
- (void)dealloc {
    CSS_RELEASE(_worker);
    CSS_SUPER_DEALLOC();
}
@end

/// An NSProxy forwarder (a delegate multiplexer, a mock): hands every invocation to its worker.
@interface CSSTPProxy : NSProxy { CSSTPWorker *_worker; }
+ (id)proxy;
@end
@implementation CSSTPProxy
+ (id)proxy {
    CSSTPProxy *proxy = [self alloc];
    proxy->_worker = [[CSSTPWorker alloc] init];
    return CSS_AUTORELEASE(proxy);
}
- (NSMethodSignature *)methodSignatureForSelector:(SEL)selector { return [_worker methodSignatureForSelector: selector]; }
- (void)forwardInvocation:(NSInvocation *)invocation { [invocation invokeWithTarget: _worker]; }
- (BOOL)respondsToSelector:(SEL)selector { return [_worker respondsToSelector: selector]; }
- (void)dealloc {
    CSS_RELEASE(_worker);
    CSS_SUPER_DEALLOC();
}
@end

static const char *css_tp_messages(id receiver) {
    NSString *name = @"app";
    const char *greeting = CSS_TP_TRY(css_describe([receiver greeting: name]));
    const char *answer = CSS_TP_TRY(css_format("%ld", (long)[receiver answer]));
    const char *span = CSS_TP_TRY(css_format("{%lu,%lu}", (unsigned long)[receiver span].location,
                                             (unsigned long)[receiver span].length));
    const char *count = CSS_TP_TRY(css_format("%ld", (long)[receiver unhandledCount]));
    const char *object = CSS_TP_TRY(css_describe([receiver unhandledObject]));
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Warc-performSelector-leaks"
    const char *performed = CSS_TP_TRY(css_describe([receiver performSelector: NSSelectorFromString(@"answerText")]));
    const char *performedKnown = CSS_TP_TRY(css_describe([receiver performSelector: @selector(greeting:) withObject: @"perform"]));
#pragma clang diagnostic pop
    return css_format("greeting=%s answer=%s span=%s unhandledCount=%s unhandledObject=%s performUnknown=%s "
                      "performKnown=%s responds=%d,%d", greeting, answer, span, count, object, performed, performedKnown,
                      (int)[receiver respondsToSelector: @selector(answer)],
                      (int)[receiver respondsToSelector: @selector(unhandledCount)]);
}

const char *css_third_party_forwarding_calls(void) {
    CSSTPForwarder *forwarder = CSS_AUTORELEASE([[CSSTPForwarder alloc] init]);
    id proxy = [CSSTPProxy proxy];
    return css_format("forwarder: %s\nproxy: %s", css_tp_messages(css_opaque(forwarder)), css_tp_messages(css_opaque(proxy)));
}

// MARK: KVO users with their own contexts

/// An app model: a string, an integer, a child (KVO-compliant accessors, notified automatically).
@interface CSSTPModel : NSObject { NSString *_title; NSInteger _count; CSSTPModel *_child; }
- (NSString *)title;
- (void)setTitle:(NSString *)title;
- (NSInteger)count;
- (void)setCount:(NSInteger)count;
- (CSSTPModel *)child;
- (void)setChild:(CSSTPModel *)child;
@end
@implementation CSSTPModel
- (NSString *)title { return _title; }
- (void)setTitle:(NSString *)title {
    id old = _title;
    _title = CSS_RETAIN(title);
    CSS_RELEASE(old);
}
- (NSInteger)count { return _count; }
- (void)setCount:(NSInteger)count { _count = count; }
- (CSSTPModel *)child { return _child; }
- (void)setChild:(CSSTPModel *)child {
    id old = _child;
    _child = CSS_RETAIN(child);
    CSS_RELEASE(old);
}
- (void)dealloc {
    CSS_RELEASE(_title);
    CSS_RELEASE(_child);
    CSS_SUPER_DEALLOC();
}
@end

/// Removes an observer with its context (the method ReactiveObjC and AFNetworking call); where the running
/// Foundation has no such method (GNUstep without the guard), by key path.
static void css_tp_remove(id object, id observer, NSString *keyPath, void *context) {
    @try {
        [object removeObserver: observer forKeyPath: keyPath context: context];
        css_event_log_append(&css_tp_removals, @"context");
    } @catch (NSException *exception) {
        (void)exception;
        [object removeObserver: observer forKeyPath: keyPath];
        css_event_log_append(&css_tp_removals, @"fallback");
    }
}

@class CSSTPTrampoline;

/// ReactiveObjC's RACKVOProxy: the one observer of every subscription; the context says which subscription a change
/// belongs to. A context it does not know goes to super (NSObject raises), as RACKVOProxy does.
@interface CSSTPSharedObserver : NSObject { NSMutableDictionary *_trampolines; }
- (void)addTrampoline:(CSSTPTrampoline *)trampoline forContext:(void *)context;
- (void)removeTrampolineForContext:(void *)context;
@end

/// ReactiveObjC's RACKVOTrampoline: one subscription, registered with the shared observer and itself as context.
@interface CSSTPTrampoline : NSObject {
@public
    long _tag;
    id _target;   // not retained (RACKVOTrampoline holds it weakly; the sequence keeps it alive)
    NSString *_keyPath;
    CSSTPSharedObserver *_observer;
}
@end

@implementation CSSTPSharedObserver
- (instancetype)init {
    if ((self = [super init])) _trampolines = [[NSMutableDictionary alloc] init];
    return self;
}
- (void)addTrampoline:(CSSTPTrampoline *)trampoline forContext:(void *)context {
    [_trampolines setObject: trampoline forKey: [NSValue valueWithPointer: context]];
}
- (void)removeTrampolineForContext:(void *)context {
    [_trampolines removeObjectForKey: [NSValue valueWithPointer: context]];
}
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    CSSTPTrampoline *trampoline = [_trampolines objectForKey: [NSValue valueWithPointer: context]];
    if (trampoline == nil) {
        css_tp_log([NSString stringWithFormat: @"rac|%@|unknown context", keyPath]);
        [super observeValueForKeyPath: keyPath ofObject: object change: change context: context];
        return;
    }
    css_tp_log([NSString stringWithFormat: @"rac%ld|%@|%s|%s", trampoline->_tag, keyPath,
                                           object == trampoline->_target ? "target" : "other",
                                           css_dictionary_contents(change)]);
}
- (void)dealloc {
    CSS_RELEASE(_trampolines);
    CSS_SUPER_DEALLOC();
}
@end

@implementation CSSTPTrampoline
+ (id)trampolineOn:(id)target keyPath:(NSString *)keyPath options:(NSKeyValueObservingOptions)options
          observer:(CSSTPSharedObserver *)observer tag:(long)tag {
    CSSTPTrampoline *trampoline = [[self alloc] init];
    trampoline->_tag = tag;
    trampoline->_target = target;
    trampoline->_keyPath = [keyPath copy];
    trampoline->_observer = CSS_RETAIN(observer);
    [observer addTrampoline: trampoline forContext: (CSS_BRIDGE void *)trampoline];
    [target addObserver: observer forKeyPath: keyPath options: options context: (CSS_BRIDGE void *)trampoline];
    return trampoline;
}
- (void)dispose {
    css_tp_remove(_target, _observer, _keyPath, (CSS_BRIDGE void *)self);
    [_observer removeTrampolineForContext: (CSS_BRIDGE void *)self];
}
- (void)dealloc {
    CSS_RELEASE(_keyPath);
    CSS_RELEASE(_observer);
    CSS_SUPER_DEALLOC();
}
@end

/// AFNetworking's pattern: static contexts, each change checked against them, anything else to super.
static int CSSTPFinishedContext, CSSTPExecutingContext;

@interface CSSTPOperationObserver : NSObject { @public const char *_label; }
@end
@implementation CSSTPOperationObserver
- (void)observeValueForKeyPath:(NSString *)keyPath ofObject:(id)object change:(NSDictionary *)change
                       context:(void *)context {
    if (context == &CSSTPFinishedContext || context == &CSSTPExecutingContext) {
        css_tp_log([NSString stringWithFormat: @"%s|%@|%s|%s", _label, keyPath,
                                               context == &CSSTPFinishedContext ? "finishedContext" : "executingContext",
                                               css_dictionary_contents(change)]);
    } else {
        [super observeValueForKeyPath: keyPath ofObject: object change: change context: context];
    }
}
@end

/// An app operation (AFURLConnectionOperation's shape: a subclass of NSOperation with its own main).
@interface CSSTPOperation : NSOperation { @public long _tag; }
@end
@implementation CSSTPOperation
- (void)main { css_tp_log([NSString stringWithFormat: @"op%ld|main", _tag]); }
@end

static void css_tp_observe_operation(NSOperation *operation, CSSTPOperationObserver *observer) {
    NSKeyValueObservingOptions options = NSKeyValueObservingOptionNew | NSKeyValueObservingOptionOld;
    [operation addObserver: observer forKeyPath: @"isFinished" options: options context: &CSSTPFinishedContext];
    [operation addObserver: observer forKeyPath: @"isExecuting" options: options context: &CSSTPExecutingContext];
}

static void css_tp_stop_observing_operation(NSOperation *operation, CSSTPOperationObserver *observer) {
    css_tp_remove(operation, observer, @"isExecuting", &CSSTPExecutingContext);
    css_tp_remove(operation, observer, @"isFinished", &CSSTPFinishedContext);
}

/// ReactiveObjC-style subscriptions on app models (several key paths, a key path through a relationship, the
/// initial value), then AFNetworking-style observers of a Foundation NSOperation and of an app subclass, run
/// in place and on a queue (waitUntilFinished included). Every removal is made with its context. `log`: what the
/// observers saw; `removals`: how each removal went (see css_tp_removals).
void css_third_party_kvo_sequence(char *log, unsigned long logSize, char *removals, unsigned long removalsSize) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_event_log_take(&css_tp_events, scratch, sizeof scratch);
    css_event_log_take(&css_tp_removals, scratch, sizeof scratch);
    NSKeyValueObservingOptions newOld = NSKeyValueObservingOptionNew | NSKeyValueObservingOptionOld;

    // ReactiveObjC: one shared observer, a context per subscription.
    CSSTPSharedObserver *shared = [[CSSTPSharedObserver alloc] init];
    CSSTPModel *model = [[CSSTPModel alloc] init], *child = [[CSSTPModel alloc] init], *other = [[CSSTPModel alloc] init];
    CSS_TP_DO([model setChild: child]);
    CSSTPTrampoline *title = [CSSTPTrampoline trampolineOn: model keyPath: @"title" options: newOld observer: shared tag: 1];
    CSSTPTrampoline *count = [CSSTPTrampoline trampolineOn: model keyPath: @"count"
                                                   options: NSKeyValueObservingOptionNew | NSKeyValueObservingOptionInitial
                                                  observer: shared tag: 2];
    CSSTPTrampoline *childTitle = [CSSTPTrampoline trampolineOn: child keyPath: @"title" options: NSKeyValueObservingOptionNew
                                                       observer: shared tag: 3];
    CSSTPTrampoline *path = [CSSTPTrampoline trampolineOn: model keyPath: @"child.title" options: newOld
                                                 observer: shared tag: 4];
    CSSTPTrampoline *otherTitle = [CSSTPTrampoline trampolineOn: other keyPath: @"title" options: newOld
                                                       observer: shared tag: 5];
    CSS_TP_DO([model setTitle: @"a"]);
    CSS_TP_DO([model setCount: 5]);
    CSS_TP_DO([child setTitle: @"c1"]);
    CSS_TP_DO([other setTitle: @"o1"]);
    CSSTPModel *replacement = [[CSSTPModel alloc] init];
    CSS_TP_DO([replacement setTitle: @"r"]);
    CSS_TP_DO([model setChild: replacement]);
    CSS_TP_DO([replacement setTitle: @"r2"]);
    CSS_TP_DO([child setTitle: @"c2"]);
    CSS_TP_DO([title dispose]);
    CSS_TP_DO([model setTitle: @"b"]);
    CSS_TP_DO([count dispose]);
    CSS_TP_DO([childTitle dispose]);
    CSS_TP_DO([path dispose]);
    CSS_TP_DO([otherTitle dispose]);
    CSS_TP_DO([model setCount: 6]);
    CSS_TP_DO([child setTitle: @"c3"]);
    CSS_TP_DO([other setTitle: @"o2"]);
    CSS_RELEASE(title); CSS_RELEASE(count); CSS_RELEASE(childTitle); CSS_RELEASE(path); CSS_RELEASE(otherTitle);
    CSS_RELEASE(replacement); CSS_RELEASE(other); CSS_RELEASE(child); CSS_RELEASE(model); CSS_RELEASE(shared);

    // AFNetworking: observers of operations, static contexts.
    CSSTPOperationObserver *observer = [[CSSTPOperationObserver alloc] init];
    observer->_label = "foundationOp";
    NSOperation *plain = [[NSOperation alloc] init];
    css_tp_observe_operation(plain, observer);
    CSS_TP_DO([plain start]);
    css_tp_stop_observing_operation(plain, observer);
    css_tp_log([NSString stringWithFormat: @"foundationOp|finished=%d", (int)[plain isFinished]]);
    CSS_RELEASE(plain);

    observer->_label = "appOp";
    CSSTPOperation *own = [[CSSTPOperation alloc] init];
    own->_tag = 1;
    css_tp_observe_operation(own, observer);
    CSS_TP_DO([own start]);
    CSS_TP_DO([own waitUntilFinished]);
    css_tp_stop_observing_operation(own, observer);
    css_tp_log([NSString stringWithFormat: @"appOp|finished=%d", (int)[own isFinished]]);
    CSS_RELEASE(own);

    observer->_label = "queuedOp";
    NSOperationQueue *queue = [[NSOperationQueue alloc] init];
    CSSTPOperation *queued = [[CSSTPOperation alloc] init];
    queued->_tag = 2;
    css_tp_observe_operation(queued, observer);
    CSS_TP_DO([queue addOperation: queued]);
    CSS_TP_DO([queued waitUntilFinished]);
    CSS_TP_DO([queue waitUntilAllOperationsAreFinished]);
    // The queue's thread tells isExecuting NO after isFinished YES (which ends the waits): wait for that change too.
    for (int i = 0; i < 2000 && !css_tp_logged(@"queuedOp|isExecuting|executingContext|{kind=1,new=0,old=1}"); i++) {
        usleep(1000);
    }
    css_tp_stop_observing_operation(queued, observer);
    css_tp_log([NSString stringWithFormat: @"queuedOp|finished=%d", (int)[queued isFinished]]);
    CSS_RELEASE(queued);
    CSS_RELEASE(queue);
    CSS_RELEASE(observer);

    css_event_log_take(&css_tp_events, log, logSize);
    css_event_log_take(&css_tp_removals, removals, removalsSize);
    CSS_POOL_END
}

/// One observer (ReactiveObjC's shared one) registered twice for one key path of one object, with two contexts (two
/// subscriptions to the same key): each change and the removal by key path, as the running Foundation handles them.
void css_third_party_kvo_same_key_sequence(char *log, unsigned long logSize) {
    CSS_POOL_BEGIN
    char scratch[16];
    css_event_log_take(&css_tp_events, scratch, sizeof scratch);
    CSSTPSharedObserver *shared = [[CSSTPSharedObserver alloc] init];
    CSSTPModel *model = [[CSSTPModel alloc] init];
    CSSTPTrampoline *first = [CSSTPTrampoline trampolineOn: model keyPath: @"title" options: NSKeyValueObservingOptionNew
                                                  observer: shared tag: 1];
    CSSTPTrampoline *second = [CSSTPTrampoline trampolineOn: model keyPath: @"title"
                                                    options: NSKeyValueObservingOptionNew | NSKeyValueObservingOptionOld
                                                   observer: shared tag: 2];
    CSS_TP_DO([model setTitle: @"a"]);
    CSS_TP_DO([model removeObserver: shared forKeyPath: @"title"]);
    CSS_TP_DO([model setTitle: @"b"]);
    CSS_TP_DO([model removeObserver: shared forKeyPath: @"title"]);   // Foundation may still have the other one
    CSS_TP_DO([model setTitle: @"c"]);
    CSS_RELEASE(first); CSS_RELEASE(second); CSS_RELEASE(model); CSS_RELEASE(shared);
    css_event_log_take(&css_tp_events, log, logSize);
    CSS_POOL_END
}
