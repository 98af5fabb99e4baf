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
/// Called with one JSON object per report (first occurrence and count updates). `handler` must not be NULL.
CrashShieldStatus crashshield_set_report_handler(void (*handler)(const char *reportJSON, void *context), void *context);

#ifdef __cplusplus
}
#endif
#endif
