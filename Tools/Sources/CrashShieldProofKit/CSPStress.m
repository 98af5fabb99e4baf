// CSPStress.m: the stress test's operations (good and bad calls of every guard family, each bad one inside @try,
// since another thread may switch the guards off at any moment), and the record of what every thread is doing, which
// a crash handler prints before the process dies.
#import <Foundation/Foundation.h>
#include <pthread.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "CSPClasses.h"

// MARK: What every thread is doing (read by the watchdog and by the crash handler)

enum { csp_stress_max_threads = 64 };
// Read and written with relaxed atomic builtins (GCC's and clang's alike; GCC's <stdatomic.h>, first on this include
// path, does not work under clang): the watchdog and the crash handler only need each value whole.
static int csp_stress_current[csp_stress_max_threads];
static uint64_t csp_stress_beats[csp_stress_max_threads];
static const char *csp_stress_toggle_action;   // NULL reads as "idle"

static const char *const csp_stress_names[CSPStressOperationCount] = {
    "container", "string", "kvc", "nsNull", "unrecognizedSelector", "kvo.cycle", "notification.cycle", "zombie", "timer",
};

const char *csp_stress_operation_name(int operation) {
    return operation >= 0 && operation < CSPStressOperationCount ? csp_stress_names[operation] : "none";
}

void csp_stress_note(int thread, int operation) {
    if (thread < 0 || thread >= csp_stress_max_threads) return;
    __atomic_store_n(&csp_stress_current[thread], operation, __ATOMIC_RELAXED);
    __atomic_fetch_add(&csp_stress_beats[thread], 1, __ATOMIC_RELAXED);
}

uint64_t csp_stress_heartbeat(int thread) {
    if (thread < 0 || thread >= csp_stress_max_threads) return 0;
    return __atomic_load_n(&csp_stress_beats[thread], __ATOMIC_RELAXED);
}

int csp_stress_current_operation(int thread) {
    if (thread < 0 || thread >= csp_stress_max_threads) return -1;
    return __atomic_load_n(&csp_stress_current[thread], __ATOMIC_RELAXED);
}

void csp_stress_note_toggle(const char *action) {
    __atomic_store_n(&csp_stress_toggle_action, action, __ATOMIC_RELAXED);
}
const char *csp_stress_toggle(void) {
    const char *action = __atomic_load_n(&csp_stress_toggle_action, __ATOMIC_RELAXED);
    return action ? action : "idle";
}

static int csp_stress_thread_count;

static void csp_write(const char *text) { (void)!write(2, text, strlen(text)); }

/// Prints what each thread was doing (async-signal-safe: only write(2)), then dies of the same signal.
static void csp_stress_crashed(int signal) {
    csp_write("\nSTRESS CRASH: ");
    csp_write(signal == SIGSEGV ? "SIGSEGV" : signal == SIGBUS ? "SIGBUS" : signal == SIGABRT ? "SIGABRT" : "SIGILL/SIGFPE");
    csp_write(" while the toggler was in ");
    csp_write(csp_stress_toggle());
    for (int thread = 0; thread < csp_stress_thread_count; thread++) {
        char line[96];
        snprintf(line, sizeof line, "; thread %d in %s", thread, csp_stress_operation_name(csp_stress_current_operation(thread)));
        csp_write(line);
    }
    csp_write("\nSTRESS CRASH: the crashing thread's stack:\n");
    void *frames[48];
    backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
    struct sigaction restore;
    memset(&restore, 0, sizeof restore);
    restore.sa_handler = SIG_DFL;
    sigaction(signal, &restore, NULL);
    raise(signal);
}

void csp_stress_install_crash_report(int threads) {
    csp_stress_thread_count = threads < csp_stress_max_threads ? threads : csp_stress_max_threads;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = csp_stress_crashed;
    action.sa_flags = SA_ONSTACK;
    int signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
}

// MARK: Checking answers

/// Records the first wrong answer of an operation.
typedef struct CSPProblem {
    char *text;
    size_t size;
    bool found;
} CSPProblem;

static void csp_expect(CSPProblem *problem, bool ok, const char *what) {
    if (ok || problem->found) return;
    problem->found = true;
    if (problem->size) snprintf(problem->text, problem->size, "%s", what);
}

/// Runs a bad call that raises without CrashShield and is stopped with it: either way the caller goes on.
#define CSP_BAD(call) do { @try { call; } @catch (NSException *csp_exception) { (void)csp_exception; } } while (0)

// MARK: Operations

static void csp_stress_container(uint64_t seed, CSPProblem *problem) {
    id objects[3] = { @"a", @"b", @"c" };
    NSArray *array = [NSArray arrayWithObjects: objects count: 3];
    NSMutableArray *mutable = [NSMutableArray arrayWithArray: array];
    csp_expect(problem, [[array objectAtIndex: seed % 3] isEqual: objects[seed % 3]], "objectAtIndex: of a valid index");
    CSP_BAD([array objectAtIndex: 3 + seed % 5]);
    CSP_BAD([mutable insertObject: csp_opaque(nil) atIndex: 0]);
    CSP_BAD([mutable removeObjectAtIndex: 7]);
    [mutable addObject: @"d"];
    csp_expect(problem, [mutable count] == 4, "addObject: after bad calls (a skipped mutation must change nothing)");
    NSMutableDictionary *dictionary = [NSMutableDictionary dictionary];
    CSP_BAD([dictionary setObject: csp_opaque(nil) forKey: @"k"]);
    [dictionary setObject: @"v" forKey: @"k"];
    csp_expect(problem, [dictionary count] == 1 && [[dictionary objectForKey: @"k"] isEqual: @"v"], "setObject:forKey:");
    id withNil[2] = { @"x", csp_opaque(nil) };
    CSP_BAD([NSArray arrayWithObjects: withNil count: 2]);
}

static void csp_stress_string(uint64_t seed, CSPProblem *problem) {
    NSString *text = [NSString stringWithUTF8String: "hello"];
    csp_expect(problem, [[text substringWithRange: NSMakeRange(1, 3)] isEqualToString: @"ell"], "substringWithRange:");
    csp_expect(problem, [text characterAtIndex: seed % 5] == "hello"[seed % 5], "characterAtIndex:");
    CSP_BAD([text substringFromIndex: 9]);
    CSP_BAD([text characterAtIndex: 5 + seed % 3]);
    NSMutableString *mutable = [NSMutableString stringWithString: @"abc"];
    CSP_BAD([mutable insertString: @"x" atIndex: 9]);
    CSP_BAD([mutable deleteCharactersInRange: NSMakeRange(2, 5)]);
    [mutable appendString: @"d"];
    csp_expect(problem, [mutable isEqualToString: @"abcd"], "appendString: after skipped mutations");
}

static void csp_stress_kvc(uint64_t seed, CSPProblem *problem) {
    CSPModel *model = [CSPModel modelNamed: @"m" level: (int)(seed % 7)];
    csp_expect(problem, [[model valueForKey: @"name"] isEqual: @"m"], "valueForKey: of a defined key");
    CSP_BAD([model valueForKey: @"nope"]);
    CSP_BAD([model setValue: @"x" forKey: @"nope"]);
    CSP_BAD([model setValue: csp_opaque(nil) forKey: @"level"]);
    csp_expect(problem, [model level] == (int)(seed % 7), "a skipped setValue:nil forKey: on a scalar keeps the value");
    [model setValue: [NSNumber numberWithInt: 3] forKey: @"level"];
    csp_expect(problem, [model level] == 3, "setValue:forKey: of a defined key");
}

static void csp_stress_null(uint64_t seed, CSPProblem *problem) {
    id null = csp_opaque([NSNull null]);
    CSP_BAD([null length]);
    CSP_BAD([null objectForKey: @"k"]);
    CSP_BAD([null integerValue]);
    csp_expect(problem, [null isEqual: [NSNull null]], "[NSNull isEqual:]");
}

static void csp_stress_unrecognized(uint64_t seed, CSPProblem *problem) {
    CSPPlain *plain = CSP_AUTORELEASE([[CSPPlain alloc] init]);
    csp_expect(problem, [plain value] == 1, "a method the app class implements");
    CSP_BAD([(id)plain count]);
    CSP_BAD([(id)plain objectAtIndex: 0]);
    CSP_BAD([(id)[NSNumber numberWithInt: 5] length]);
    CSP_BAD([(id)@"text" objectForKey: @"k"]);
}

static void csp_stress_kvo(uint64_t seed, CSPProblem *problem) {
    CSPModel *model = CSP_AUTORELEASE([[CSPModel alloc] init]);
    CSPCountingObserver *clean = [[CSPCountingObserver alloc] init];
    CSPCountingObserver *twice = [[CSPCountingObserver alloc] init];
    CSPCountingObserver *dying = [[CSPCountingObserver alloc] init];
    [model addObserver: clean forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    [model setLevel: (int)seed];
    int delivered = clean->_deliveries;
    csp_expect(problem, delivered == 1, delivered == 0 ? "one change delivered once to a registered observer (0 deliveries)"
                                                       : "one change delivered once to a registered observer (2+ deliveries)");
    [model removeObserver: clean forKeyPath: @"level"];
    [model setLevel: (int)seed + 1];
    csp_expect(problem, clean->_deliveries == 1, "no change delivered after removal");
    [model addObserver: twice forKeyPath: @"name" options: 0 context: NULL];
    [model removeObserver: twice forKeyPath: @"name"];
    CSP_BAD([model removeObserver: twice forKeyPath: @"name"]);
    [model addObserver: dying forKeyPath: @"level" options: 0 context: NULL];
    CSP_RELEASE(dying);   // freed while registered; the model is never changed again
    // Every model belongs to one thread: GNUstep 1.28's KVO itself crashes (SIGSEGV, without CrashShield) when
    // threads add and remove observers of one object at the same time.
    CSP_RELEASE(clean);
    CSP_RELEASE(twice);
}

void csp_stress_prepare(void) {
    @autoreleasepool {   // the main thread has no pool yet; GNUstep's KVO autoreleases its observation info
        CSPModel *model = [[CSPModel alloc] init];
        CSPCountingObserver *observer = [[CSPCountingObserver alloc] init];
        [model addObserver: observer forKeyPath: @"level" options: 0 context: NULL];
        [model addObserver: observer forKeyPath: @"name" options: 0 context: NULL];
        [model removeObserver: observer forKeyPath: @"level"];
        [model removeObserver: observer forKeyPath: @"name"];
        CSP_RELEASE(observer);
        CSP_RELEASE(model);
    }
}

static void csp_stress_notification(uint64_t seed, CSPProblem *problem) {
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    CSPCountingObserver *clean = [[CSPCountingObserver alloc] init];
    CSPCountingObserver *dying = [[CSPCountingObserver alloc] init];
    NSString *name = [NSString stringWithFormat: @"CSPStress.%llu", (unsigned long long)(seed % 4)];
    [center addObserver: clean selector: @selector(note:) name: name object: clean];
    [center postNotificationName: name object: clean];
    csp_expect(problem, clean->_deliveries == 1, "a notification delivered once to a registered observer");
    [center removeObserver: clean];
    [center postNotificationName: name object: clean];
    csp_expect(problem, clean->_deliveries == 1, "no notification delivered after removal");
    CSP_BAD([center addObserver: clean selector: @selector(missing:) name: name object: clean]);
    [center removeObserver: clean];
    [center addObserver: dying selector: @selector(note:) name: @"CSPStress.never" object: dying];
    CSP_RELEASE(dying);   // freed while registered; that name is never posted
    CSP_RELEASE(clean);
}

static void csp_stress_zombie(uint64_t seed, CSPProblem *problem) {
    for (int i = 0; i < 4; i++) {
        CSPPlain *plain = [[CSPPlain alloc] init];
        csp_expect(problem, [plain value] == 1, "a live app object");
        CSP_RELEASE(plain);
    }
}

/// A timer target.
@interface CSPStressTimerTarget : NSObject
- (void)tick:(NSTimer *)timer;
@end
@implementation CSPStressTimerTarget
- (void)tick:(NSTimer *)timer {}
@end

static void csp_stress_timer(uint64_t seed, CSPProblem *problem) {
    CSPStressTimerTarget *target = CSP_AUTORELEASE([[CSPStressTimerTarget alloc] init]);
    NSTimer *timer = [NSTimer timerWithTimeInterval: 60 target: target selector: @selector(tick:) userInfo: nil repeats: YES];
    csp_expect(problem, [timer isValid], "a new timer is valid");
    [timer invalidate];
    NSTimer *missing = nil;
    CSP_BAD(missing = [NSTimer timerWithTimeInterval: 60 target: target selector: @selector(missing:) userInfo: nil repeats: YES]);
    [missing invalidate];
}

bool csp_stress_run(int operation, uint64_t seed, char *problemText, size_t size) {
    CSPProblem problem = { problemText, size, false };
    CSP_POOL_BEGIN
    @try {
        switch (operation) {
        case CSPStressContainer: csp_stress_container(seed, &problem); break;
        case CSPStressString: csp_stress_string(seed, &problem); break;
        case CSPStressKVC: csp_stress_kvc(seed, &problem); break;
        case CSPStressNull: csp_stress_null(seed, &problem); break;
        case CSPStressUnrecognized: csp_stress_unrecognized(seed, &problem); break;
        case CSPStressKVOCycle: csp_stress_kvo(seed, &problem); break;
        case CSPStressNotificationCycle: csp_stress_notification(seed, &problem); break;
        case CSPStressZombie: csp_stress_zombie(seed, &problem); break;
        case CSPStressTimer: csp_stress_timer(seed, &problem); break;
        default: break;
        }
    } @catch (NSException *exception) {
        char what[512];
        snprintf(what, sizeof what, "a valid call raised %s: %s", [[exception name] UTF8String], [[exception reason] UTF8String]);
        csp_expect(&problem, false, what);
    }
    CSP_POOL_END
    return !problem.found;
}
