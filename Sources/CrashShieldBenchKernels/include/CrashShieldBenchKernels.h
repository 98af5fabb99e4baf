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

#ifdef __cplusplus
}
#endif
#endif
