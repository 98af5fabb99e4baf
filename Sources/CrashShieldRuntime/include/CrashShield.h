// CrashShield.h: start CrashShield from Objective-C or C. The implementation is Swift (`@_cdecl`).
#ifndef CRASH_SHIELD_C_API_H
#define CRASH_SHIELD_C_API_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of the C entry points.
typedef enum CrashShieldStatus {
    CrashShieldStatusOK = 0,
    CrashShieldStatusAlreadyRunning = 1,
    CrashShieldStatusInvalidArgument = 2,
    CrashShieldStatusFailed = 3,
} CrashShieldStatus;

/// Starts CrashShield with the production-safe guards in release mode (recover and report).
/// `debugMode`: fail loudly instead of recovering, for development builds.
CrashShieldStatus crashshield_start(bool debugMode);
/// Restores every original implementation. Safe to call when not running.
void crashshield_stop(void);
/// Called with one JSON object per report (first occurrence and count updates), on CrashShield's delivery queue
/// (never on the thread that hit the guard). `handler` must not be NULL. Replaces the handler set before.
CrashShieldStatus crashshield_set_report_handler(void (*handler)(const char *reportJSON, void *context), void *context);
/// Unregisters the report handler: reports made from now on are not passed to it (one already being delivered may
/// still arrive). The caller may free the handler's context once `crashshield_flush` returned.
void crashshield_clear_report_handler(void);
/// Hands pending report counts to the handler and waits until it has taken every report made so far, at most
/// `timeoutSeconds` (0: do not wait). true: all delivered.
bool crashshield_flush(double timeoutSeconds);

#ifdef __cplusplus
}
#endif
#endif
