// CSPChurn.m: churn cycles (observe/unobserve, notification observers, app objects that become zombies), the
// process's resident memory, and the sanitizer workload.
#import <Foundation/Foundation.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <mach/mach.h>
#endif
#include "CSPClasses.h"

void csp_churn_kvo_cycle(bool freeRegistered) {
    CSP_POOL_BEGIN
    CSPModel *model = [[CSPModel alloc] init];
    CSPCountingObserver *clean = [[CSPCountingObserver alloc] init];
    CSPCountingObserver *twice = [[CSPCountingObserver alloc] init];
    CSPCountingObserver *dying = [[CSPCountingObserver alloc] init];
    [model addObserver: clean forKeyPath: @"level" options: NSKeyValueObservingOptionNew context: NULL];
    [model setLevel: 1];
    [model removeObserver: clean forKeyPath: @"level"];
    [model addObserver: twice forKeyPath: @"name" options: 0 context: NULL];
    [model removeObserver: twice forKeyPath: @"name"];
    @try {
        [model removeObserver: twice forKeyPath: @"name"];   // raises without CrashShield
    } @catch (NSException *exception) {
        (void)exception;
    }
    if (freeRegistered) [model addObserver: dying forKeyPath: @"level" options: 0 context: NULL];
    CSP_RELEASE(dying);   // freed while registered; the model is never changed again
    CSP_RELEASE(clean);
    CSP_RELEASE(twice);
    CSP_RELEASE(model);
    CSP_POOL_END
}

void csp_churn_notification_cycle(bool freeRegistered) {
    CSP_POOL_BEGIN
    NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
    CSPCountingObserver *clean = [[CSPCountingObserver alloc] init];
    [center addObserver: clean selector: @selector(note:) name: @"CSPChurn.note" object: nil];
    [center postNotificationName: @"CSPChurn.note" object: nil];
    [center removeObserver: clean];
    CSP_RELEASE(clean);
    if (freeRegistered) {
        CSPCountingObserver *dying = [[CSPCountingObserver alloc] init];
        [center addObserver: dying selector: @selector(note:) name: @"CSPChurn.never" object: nil];
        CSP_RELEASE(dying);   // freed while registered; that name is never posted
    }
    CSP_POOL_END
}

/// An app object of 256 bytes and more: kept as a zombie, it shows in the resident set.
@interface CSPChurnZombie : CSPPlain { char _state[256]; }
@end
@implementation CSPChurnZombie
@end

void csp_churn_zombie_cycle(void) {
    CSPChurnZombie *object = [[CSPChurnZombie alloc] init];
    (void)[object value];
    CSP_RELEASE(object);
}

size_t csp_resident_bytes(void) {
#if defined(__APPLE__)
    struct mach_task_basic_info info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) return 0;
    return (size_t)info.resident_size;
#else
    FILE *file = fopen("/proc/self/statm", "r");
    if (!file) return 0;
    unsigned long total = 0, resident = 0;
    int fields = fscanf(file, "%lu %lu", &total, &resident);
    fclose(file);
    return fields == 2 ? (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
#endif
}

long csp_workload(long rounds) {
    long wrong = 0;
    char problem[512];
    for (long round = 0; round < rounds; round++) {
        for (int operation = 0; operation < CSPStressOperationCount; operation++) {
            if (!csp_stress_run(operation, (uint64_t)round, problem, sizeof problem)) {
                fprintf(stderr, "workload: %s: %s\n", csp_stress_operation_name(operation), problem);
                wrong++;
            }
        }
    }
    return wrong;
}
