// CSBridge.h (private): the Swift functions under the Objective-C API, defined with @_cdecl in
// Sources/CrashShield/Core/ObjCBridge.swift (which documents them; keep both in step). Objects cross as `void *`.
#ifndef CS_BRIDGE_H
#define CS_BRIDGE_H
#include <stdbool.h>
#include <stdint.h>

/// Status codes: CSErrorCode's values (0: OK). `message`, when not NULL, receives a malloc'd text on failure.
typedef void (*CSBridgeRelease)(void *context);
typedef void (*CSBridgeReportFunction)(void *context, const char *reportJSON);
typedef void (*CSBridgeObservationFunction)(void *context, void *notification, void *owner);

int32_t csbridge_start(const char *configurationJSON, CSBridgeReportFunction report, void *context,
                       CSBridgeRelease release, char **message);
void csbridge_stop(void);
bool csbridge_is_running(void);
uint32_t csbridge_active_guards(void);
int32_t csbridge_set_guard(uint32_t guards, bool enabled, char **message);
bool csbridge_flush(double timeoutSeconds);
bool csbridge_wait_for_uploads(double timeoutSeconds);
/// A JSON array (malloc'd: free it) or NULL.
char *csbridge_copy_upload_statistics(void);
/// A JSON array (malloc'd: free it) or NULL.
char *csbridge_copy_reports(void);

void csbridge_post_notification(void *center, void *name, void *object, void *userInfo, void *thread,
                                bool waitUntilDone);
int32_t csbridge_observe(void *center, const char *name, void *object, void *owner, double priority,
                         CSBridgeObservationFunction function, void *context, CSBridgeRelease release,
                         intptr_t *observationID, char **message);
void csbridge_observation_cancel(intptr_t observationID);
bool csbridge_observation_is_active(intptr_t observationID);
void csbridge_remove_observations(void *owner, const char *name, bool byPriority, double priority);
#endif
