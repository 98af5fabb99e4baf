// CrashShieldProofKit: the Objective-C half of the proof tools (scripts/fuzz.sh, stress.sh, sanitize.sh and the
// churn tests): real calls to real Foundation classes, made from Objective-C as an app makes them.
#ifndef CRASH_SHIELD_PROOF_KIT_H
#define CRASH_SHIELD_PROOF_KIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Differential fuzzing (CSPFuzzCalls.m)

/// One generated call: which table entry, which receiver, which argument choices. Plain data, so the same call can
/// be made twice on fresh, equal receivers.
typedef struct CSPCall {
    uint32_t entry;
    uint32_t receiver;
    uint32_t arguments[3];
} CSPCall;

/// What one call did. Every text is malloc'ed (free with `csp_outcome_free`); `exceptionName` is NULL when the call
/// returned normally.
typedef struct CSPOutcome {
    /// What the caller got (return value and out-parameters), described without addresses.
    char *result;
    /// The receiver, described before and after the call.
    char *before;
    char *after;
    char *exceptionName;
    char *exceptionReason;
} CSPOutcome;

/// Entries in the call table.
uint32_t csp_fuzz_entry_count(void);
/// The entry's name: "NSMutableArray.insertObject:atIndex:".
const char *csp_fuzz_entry_name(uint32_t entry);
/// A call drawn from `random` (a 64-bit generator state the function advances).
void csp_fuzz_generate(uint64_t *random, CSPCall *call);
/// Makes the call on a fresh receiver with fresh arguments, inside @try and an autorelease pool.
void csp_fuzz_run(const CSPCall *call, CSPOutcome *outcome);
void csp_outcome_free(CSPOutcome *outcome);
/// A readable repro: "[GSMutableArray (marray.literal3: (a,b,c)) removeObjectAtIndex: 4294967296 (2^32)]". malloc'ed.
char *csp_fuzz_describe(const CSPCall *call);
/// The receiver kind's name ("marray.literal3").
const char *csp_fuzz_receiver_name(const CSPCall *call);
/// Whether a raising call on this receiver is one the guards are meant to stop. False for the receivers the
/// guards must leave alone by design (an unrecognized selector sent to a class outside the protected scope, such
/// as NSDate), whose calls must raise exactly as without CrashShield.
bool csp_fuzz_in_scope(const CSPCall *call);
/// Whether a raising call must be stopped: the receiver is in scope and a guard hooks the method itself. A raising
/// call to a Foundation method no guard hooks must raise the same, unless a guard stopped a bad call it made inside.
bool csp_fuzz_expects_recovery(const CSPCall *call);
/// The call's shape (entry and argument choices): calls that differ only in their receiver share it. A shape that
/// crashed is not run again.
uint64_t csp_fuzz_key(const CSPCall *call);
/// The selector the call sends ("insertObject:atIndex:").
const char *csp_fuzz_selector(const CSPCall *call);

// MARK: Stress (CSPStress.m)

/// Operation kinds one stress thread cycles through: good and bad calls of every guard family.
typedef enum CSPStressOperation {
    CSPStressContainer, CSPStressString, CSPStressKVC, CSPStressNull, CSPStressUnrecognized,
    CSPStressKVOCycle, CSPStressNotificationCycle, CSPStressZombie, CSPStressTimer,
    CSPStressOperationCount
} CSPStressOperation;
/// The operation's name ("kvo.cycle").
const char *csp_stress_operation_name(int operation);
/// Runs one operation (a handful of good and bad calls, each bad one inside @try) with `seed` choosing its
/// arguments. Returns false when a valid call gave a wrong answer (the message is copied into `problem`).
bool csp_stress_run(int operation, uint64_t seed, char *problem, size_t size);
/// Observes the operations' model class once, on the calling thread, before any thread starts: GNUstep sets its KVO
/// up on first use without a lock that covers it (ARCHITECTURE.md, "Runtime notes"), with or without CrashShield.
void csp_stress_prepare(void);
/// What thread `thread` (0-63) is doing: its operation and a counter that moves with every operation.
void csp_stress_note(int thread, int operation);
uint64_t csp_stress_heartbeat(int thread);
int csp_stress_current_operation(int thread);
/// What the thread that toggles guards is doing ("setGuard(kvo, off)"); a static string.
void csp_stress_note_toggle(const char *action);
const char *csp_stress_toggle(void);
/// On SIGSEGV, SIGBUS, SIGABRT, SIGILL or SIGFPE, prints "STRESS CRASH: ..." with what each of the first `threads`
/// threads and the toggler were doing, then dies of the same signal.
void csp_stress_install_crash_report(int threads);

// MARK: Churn (CSPChurn.m): one cycle each, made from Objective-C

/// A KVO cycle on a fresh model: one observer added and removed cleanly, one removed twice (the second removal
/// raises without CrashShield and is caught here) and, with `freeRegistered`, one freed while still registered (the
/// model is never changed afterwards; GNUstep itself then keeps that registration: about 1.2 KB a cycle).
void csp_churn_kvo_cycle(bool freeRegistered);
/// A notification cycle: one observer added and removed, one freed while registered (never posted to afterwards
/// without CrashShield), one post in between.
void csp_churn_notification_cycle(bool freeRegistered);
/// A zombie cycle: an app object (over 256 bytes) allocated, used and released (a zombie under the zombie guard).
void csp_churn_zombie_cycle(void);
/// The process's resident set size in bytes (/proc/self/statm on Linux; task_info on Apple).
size_t csp_resident_bytes(void);

// MARK: The sanitizer workload (CSPWorkload.m)

/// Good and bad calls of every guard family, `rounds` times, from Objective-C (each bad call inside @try).
/// Returns how many valid calls gave a wrong answer.
long csp_workload(long rounds);

#ifdef __cplusplus
}
#endif
#endif
