// CSSWebKitFixtures.m: a class shaped like WKWebView running JavaScript panels, and WKUIDelegate-shaped delegates
// (CSSShapes.h). The handler block the web view hands its delegate is shaped like WebKit's: destroyed without ever
// being called, it raises what WebKit's CompletionHandlerCallChecker raises (NSInternalInconsistencyException,
// "Completion handler passed to -[<delegate class> <selector>] was not called": public crash reports,
// react-native-webview#3503, firefox-ios#12709). The UIKit guard hooks the delegates in the tests (GNUstep has no
// WebKit).
#import <Foundation/Foundation.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <objc/runtime.h>
#include <Block.h>
#include "CrashShieldScenarios.h"
#include "CSSMemory.h"
#include "CSSFamilies.h"

/// What the web view's handler received: calls and the last answer.
@interface CSSPanelRecord : NSObject {
@public
    long calls;
    char answer[64];
    /// Set when the handler was destroyed uncalled: the method to name (owned by the record).
    NSString *dropped;
    /// Set once the drop was raised for (a record raises once).
    BOOL raised;
}
@end
@implementation CSSPanelRecord
- (void)dealloc {
    CSS_RELEASE(dropped);
    CSS_SUPER_DEALLOC();
}
@end

/// Guards the records' calls and answers: a delegate may answer on another thread (behaviour 4) while the web view
/// reads them, as app code may call WebKit's handler from any thread.
static pthread_mutex_t css_record_lock = PTHREAD_MUTEX_INITIALIZER;

/// Raises what WebKit's checker raises for a handler destroyed uncalled since the last look. WebKit raises in the
/// block's destructor itself; here an exception cannot leave a dispose helper (Debian's libBlocksRuntime has no unwind
/// tables: the unwinder aborts in `_Block_release`), so the fixture raises right after the release that destroyed it.
/// The record keeps the method's name (the caller holds the record while this raises): nothing is autoreleased here.
static void css_raise_if_dropped(CSSPanelRecord *record) {
    pthread_mutex_lock(&css_record_lock);
    NSString *method = record->raised ? nil : record->dropped;   // the record keeps it
    if (method != nil) record->raised = YES;
    pthread_mutex_unlock(&css_record_lock);
    if (method == nil) return;
    [NSException raise:NSInternalInconsistencyException format:@"Completion handler passed to %@ was not called", method];
}

static CSSPanelRecord *css_last_record;

static void css_record(CSSPanelRecord *record, const char *answer) {
    pthread_mutex_lock(&css_record_lock);
    record->calls++;
    strncpy(record->answer, answer, sizeof record->answer - 1);
    pthread_mutex_unlock(&css_record_lock);
}

/// WebKit's handler, built by the block ABI as CSRWebKit.m builds its wrapper (libBlocksRuntime on GCC's libobjc
/// does not retain a block literal's captured objects): its dispose helper is the checker's destructor.
struct CSSBlockDescriptor {
    unsigned long reserved, size;
    void (*copy)(void *destination, const void *source);
    void (*dispose)(const void *block);
};
typedef struct CSSHandlerBlock {
    void *isa;
    int flags, reserved;
    void (*invoke)(void);
    const struct CSSBlockDescriptor *descriptor;
    const void *record;   // CSSPanelRecord, owned by the heap block
    const void *method;   // NSString "-[Class selector]", owned by the heap block
} CSSHandlerBlock;
extern void *_NSConcreteStackBlock[32];

static void css_handler_alert(CSSHandlerBlock *block) { css_record((CSS_BRIDGE CSSPanelRecord *)block->record, "called"); }
static void css_handler_confirm(CSSHandlerBlock *block, BOOL result) {
    css_record((CSS_BRIDGE CSSPanelRecord *)block->record, result ? "YES" : "NO");
}
static void css_handler_text(CSSHandlerBlock *block, const void *result) {
    NSString *text = (CSS_BRIDGE NSString *)result;
    css_record((CSS_BRIDGE CSSPanelRecord *)block->record, text == nil ? "nil" : [text UTF8String]);
}
/// The heap block takes over the stack block's +1 references (the stack block is never disposed).
static void css_handler_copy(void *destination, const void *source) {
    CSSHandlerBlock *to = (CSSHandlerBlock *)destination;
    const CSSHandlerBlock *from = (const CSSHandlerBlock *)source;
    to->record = from->record;
    to->method = from->method;
}
/// WebKit's CompletionHandlerCallChecker: destroyed uncalled, it raises. The heap block's two references are given up
/// here, explicitly (ARC: the __bridge_transfer locals at the end of the scope; MRC: the releases), never autoreleased:
/// the block may go on a thread or at a moment without an autorelease pool.
static void css_handler_dispose(const void *object) {
    const CSSHandlerBlock *block = (const CSSHandlerBlock *)object;
#if __has_feature(objc_arc)
    CSSPanelRecord *record = (__bridge_transfer CSSPanelRecord *)block->record;
    NSString *method = (__bridge_transfer NSString *)block->method;
#else
    CSSPanelRecord *record = (CSSPanelRecord *)block->record;
    NSString *method = (NSString *)block->method;
#endif
    pthread_mutex_lock(&css_record_lock);
    if (record->calls == 0) record->dropped = CSS_RETAIN(method);
    pthread_mutex_unlock(&css_record_lock);
    CSS_RELEASE(method);
    CSS_RELEASE(record);
}
static const struct CSSBlockDescriptor css_handler_descriptor = {
    0, sizeof(CSSHandlerBlock), css_handler_copy, css_handler_dispose,
};

/// Like a WKUIDelegate: `behaviour` 0 drops the handler, 1 answers, 2 keeps it to answer later, 3 answers twice,
/// 4 answers on a thread of its own started before the method returns (joined by css_panel_delegate_finish).
@interface CSSPanelDelegate : NSObject {
@public
    long behaviour;
    const void *kept;   // a Block_copy of the handler (a block is no object to message on GNUstep)
    long keptPanel;
    pthread_t answerer;
    bool answering;
    struct CSSAnswer *answer;   // behaviour 4: what its thread answers (freed once that thread was joined)
}
- (void)webView:(id)webView runJavaScriptAlertPanelWithMessage:(NSString *)message initiatedByFrame:(id)frame
    completionHandler:(void (^)(void))completionHandler;
- (void)webView:(id)webView runJavaScriptConfirmPanelWithMessage:(NSString *)message initiatedByFrame:(id)frame
    completionHandler:(void (^)(BOOL result))completionHandler;
- (void)webView:(id)webView runJavaScriptTextInputPanelWithPrompt:(NSString *)prompt defaultText:(NSString *)defaultText
    initiatedByFrame:(id)frame completionHandler:(void (^)(NSString *result))completionHandler;
@end

static void css_answer(const void *handler, long panel) {
    if (panel == 0) ((CSS_BRIDGE void (^)(void))handler)();
    else if (panel == 1) ((CSS_BRIDGE void (^)(BOOL))handler)(YES);
    else ((CSS_BRIDGE void (^)(NSString *))handler)(@"typed");
}

/// Behaviour 4's thread: answers the handler it was given (a Block_copy) and releases it, there.
typedef struct CSSAnswer {
    const void *handler;
    long panel;
    bool answered;   // set (atomically) once the handler was called, before it is released
} CSSAnswer;
static void *css_answer_on_thread(void *argument) {
    CSSAnswer *answer = (CSSAnswer *)argument;
    const void *handler = answer->handler;
    long panel = answer->panel;
    CSS_POOL_BEGIN
    css_answer(handler, panel);
    __atomic_store_n(&answer->answered, true, __ATOMIC_RELEASE);
    _Block_release(handler);
    CSS_POOL_END
    return NULL;
}
/// Every other behaviour-4 delegate waits, before returning, until its thread answered: that thread's release and the
/// web view's (or a wrapper's) then race, and either may be the last; otherwise its thread usually releases last.
static long css_answers_started;

@implementation CSSPanelDelegate
- (void)dealloc {
    if (answering) pthread_join(answerer, NULL);
    free(answer);
    if (kept != NULL) _Block_release(kept);
    CSS_SUPER_DEALLOC();
}
- (void)panel:(long)panel handler:(const void *)handler {
    switch (behaviour) {
    case 1: css_answer(handler, panel); break;
    case 2: {
        const void *old = kept;
        kept = _Block_copy(handler);
        keptPanel = panel;
        if (old != NULL) _Block_release(old);
        break;
    }
    case 3: css_answer(handler, panel); css_answer(handler, panel); break;
    case 4: {
        if (answering) pthread_join(answerer, NULL);
        free(answer);
        answer = (CSSAnswer *)calloc(1, sizeof(CSSAnswer));
        answer->handler = _Block_copy(handler);
        answer->panel = panel;
        answering = pthread_create(&answerer, NULL, css_answer_on_thread, answer) == 0;
        if (!answering) css_answer_on_thread(answer);
        if (__atomic_fetch_add(&css_answers_started, 1, __ATOMIC_RELAXED) % 2 == 1) {
            while (!__atomic_load_n(&answer->answered, __ATOMIC_ACQUIRE)) sched_yield();
        }
        break;
    }
    default: break;   // drops it
    }
}
- (void)webView:(id)webView runJavaScriptAlertPanelWithMessage:(NSString *)message initiatedByFrame:(id)frame
    completionHandler:(void (^)(void))completionHandler {
    [self panel:0 handler:(CSS_BRIDGE const void *)completionHandler];
}
- (void)webView:(id)webView runJavaScriptConfirmPanelWithMessage:(NSString *)message initiatedByFrame:(id)frame
    completionHandler:(void (^)(BOOL result))completionHandler {
    [self panel:1 handler:(CSS_BRIDGE const void *)completionHandler];
}
- (void)webView:(id)webView runJavaScriptTextInputPanelWithPrompt:(NSString *)prompt defaultText:(NSString *)defaultText
    initiatedByFrame:(id)frame completionHandler:(void (^)(NSString *result))completionHandler {
    [self panel:2 handler:(CSS_BRIDGE const void *)completionHandler];
}
@end

/// A delegate subclass that overrides none of the panel methods (WebKit names the class implementing the method).
@interface CSSPanelDelegateSubclass : CSSPanelDelegate
@end
@implementation CSSPanelDelegateSubclass
@end

/// The class WebKit's checker names: the delegate's class, or the topmost superclass whose lookup of the selector
/// gives the same method.
static Class css_implementing_class(id delegate, SEL selector) {
    Class cls = object_getClass(delegate);
    Method method = class_getInstanceMethod(cls, selector);
    Class parent = class_getSuperclass(cls);
    while (parent != Nil && class_getInstanceMethod(parent, selector) == method) {
        cls = parent;
        parent = class_getSuperclass(parent);
    }
    return cls;
}

/// Like WKWebView (also the frame it names).
@interface CSSWebView : NSObject
@end
@implementation CSSWebView
@end

void *css_panel_delegate_new(long behaviour) {
    CSSPanelDelegate *delegate = [[CSSPanelDelegate alloc] init];
    delegate->behaviour = behaviour;
    return (CSS_BRIDGE_RETAINED void *)delegate;
}

void *css_panel_delegate_subclass_new(long behaviour) {
    CSSPanelDelegate *delegate = [[CSSPanelDelegateSubclass alloc] init];
    delegate->behaviour = behaviour;
    return (CSS_BRIDGE_RETAINED void *)delegate;
}

void css_panel_delegate_finish(void *object) {
    CSSPanelDelegate *delegate = (CSS_BRIDGE CSSPanelDelegate *)object;
    if (delegate->answering) {
        pthread_join(delegate->answerer, NULL);
        delegate->answering = false;
    }
    const void *handler = delegate->kept;
    delegate->kept = NULL;
    if (handler != NULL) {
        css_answer(handler, delegate->keptPanel);
        _Block_release(handler);
    }
    if (css_last_record != nil) css_raise_if_dropped(css_last_record);
}

static long css_copy_answer(CSSPanelRecord *record, char *answer, unsigned long size) {
    pthread_mutex_lock(&css_record_lock);
    if (answer != NULL && size > 0) {
        strncpy(answer, record ? record->answer : "", size - 1);
        answer[size - 1] = 0;
    }
    long calls = record ? record->calls : 0;
    pthread_mutex_unlock(&css_record_lock);
    return calls;
}

long css_webview_last_calls(char *answer, unsigned long size) { return css_copy_answer(css_last_record, answer, size); }

long css_webview_run_panel(void *object, long panel, char *answer, unsigned long size) {
    static const char *const selectors[] = {
        "webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:",
        "webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:",
        "webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:",
    };
    id delegate = (CSS_BRIDGE id)object;
    CSSWebView *view = [[CSSWebView alloc] init];
    CSSPanelRecord *record = [[CSSPanelRecord alloc] init];
    CSSPanelRecord *old = css_last_record;
    css_last_record = CSS_RETAIN(record);
    CSS_RELEASE(old);
    // The class by its runtime name (NSStringFromClass would hand back an autoreleased string: no pool is assumed).
    Class named = css_implementing_class(delegate, sel_registerName(selectors[panel]));
    NSString *method = [[NSString alloc] initWithFormat:@"-[%s %s]", class_getName(named), selectors[panel]];
    CSSHandlerBlock stack = {_NSConcreteStackBlock, 1 << 25, 0, NULL, &css_handler_descriptor,
                             (CSS_BRIDGE_RETAINED const void *)CSS_RETAIN(record),
                             (CSS_BRIDGE_RETAINED const void *)CSS_RETAIN(method)};
    stack.invoke = panel == 0   ? (void (*)(void))css_handler_alert
                   : panel == 1 ? (void (*)(void))css_handler_confirm
                                : (void (*)(void))css_handler_text;
    const void *handler = _Block_copy(&stack);   // WebKit's heap block: the checker lives as long as it
    CSS_RELEASE(method);
    @try {
        if (panel == 0) {
            [delegate webView:view runJavaScriptAlertPanelWithMessage:@"Hello" initiatedByFrame:view
                completionHandler:(CSS_BRIDGE void (^)(void))handler];
        } else if (panel == 1) {
            [delegate webView:view runJavaScriptConfirmPanelWithMessage:@"Sure?" initiatedByFrame:view
                completionHandler:(CSS_BRIDGE void (^)(BOOL))handler];
        } else {
            [delegate webView:view runJavaScriptTextInputPanelWithPrompt:@"Name?" defaultText:@"default"
                initiatedByFrame:view completionHandler:(CSS_BRIDGE void (^)(NSString *))handler];
        }
        _Block_release(handler);   // WebKit's reference: the checker goes here when the delegate did not keep it
        css_raise_if_dropped(record);
    } @finally {
        CSS_RELEASE(view);
        CSS_RELEASE(record);
    }
    return css_copy_answer(css_last_record, answer, size);
}

// MARK: Crash-matrix scenarios (the opt-in uikit guard finds CSSPanelDelegate among the matrix binary's own classes)

static const char *css_dropped_panel(long panel) {
    void *delegate = css_panel_delegate_new(0);
    char answer[64];
    long calls = 0;
    @try {
        calls = css_webview_run_panel(delegate, panel, answer, sizeof answer);
    } @finally {
        css_object_release(delegate);
    }
    return css_format("calls=%ld answer=%s", calls, answer);
}
static const char *webViewAlertHandlerDropped(void) { return css_dropped_panel(0); }
static const char *webViewConfirmHandlerDropped(void) { return css_dropped_panel(1); }
static const char *webViewTextInputHandlerDropped(void) { return css_dropped_panel(2); }

static const CSSScenario css_webkit_table[] = {
    { "webView.alertPanel.handlerNeverCalled", "uikit", "webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:", "NSInternalInconsistencyException", "calls=1 answer=called", 1, webViewAlertHandlerDropped },
    { "webView.confirmPanel.handlerNeverCalled", "uikit", "webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:", "NSInternalInconsistencyException", "calls=1 answer=NO", 1, webViewConfirmHandlerDropped },
    { "webView.textInputPanel.handlerNeverCalled", "uikit", "webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:", "NSInternalInconsistencyException", "calls=1 answer=nil", 1, webViewTextInputHandlerDropped },
};

const CSSScenario *css_webkit_scenarios(int *count) {
    *count = (int)(sizeof css_webkit_table / sizeof css_webkit_table[0]);
    return css_webkit_table;
}
