// CrashShieldBenchKernels: the hot calls an app makes, timed in Objective-C so only the call itself is measured.
#ifndef CRASH_SHIELD_BENCH_KERNELS_H
#define CRASH_SHIELD_BENCH_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/// A benchmark kernel: runs `iterations` valid calls, returns nanoseconds per call.
typedef double (*CSBKernel)(unsigned long iterations);

typedef struct CSBBenchmark {
    const char *name;
    CSBKernel kernel;
    /// The guard measured: a GuardCategory name ("container", "zombie", "mainThreadUI"), optionally with a variant
    /// after a slash ("zombie/stack": with deallocation stacks).
    const char *guard;
} CSBBenchmark;

/// Every kernel.
const CSBBenchmark *csb_benchmarks(int *count);

/// Bad calls, one per guard family, each crashing without its guard (`guard` names it): nanoseconds per stopped call.
const CSBBenchmark *csb_stopped_calls(int *count);

/// The app-like workload (JSON, KVC models, sorting, strings, dictionaries and sets): nanoseconds per screen load.
double csb_app_workload(unsigned long iterations);
/// The checksum of the last `csb_app_workload` run: the same with and without guards, or a guard changed a result.
unsigned long csb_app_workload_checksum(void);

/// Runs `kernel`: the only function whose instructions `scripts/bench-instructions.sh` counts (callgrind's
/// --toggle-collect), so set-up, start() and the warm-up stay out of the count.
double csb_run_measured(CSBKernel kernel, unsigned long iterations);

/// Registers `count` new NSObject subclasses with two methods each (objc_allocateClassPair), as a large app has;
/// returns how many were registered.
int csb_register_app_classes(int count);
/// A new object of an app class of this binary that answers no unusual selector (owned by the caller: leaked here).
void *csb_forwarding_receiver(void);

/// The Foundation the kernels run on: GNUstep Base's version ("1.28.0"), or "Apple" on Apple platforms.
const char *csb_foundation_version(void);

#ifdef __cplusplus
}
#endif
#endif
