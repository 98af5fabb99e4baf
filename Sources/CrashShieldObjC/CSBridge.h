// CSBridge.h (private): the Swift functions under the Objective-C API, defined with @_cdecl in
// Sources/CrashShield/Core/ObjCBridge*.swift, Sources/CrashShieldUpload/ObjCBridgeUpload.swift (upload sinks and
// statistics) and Sources/CrashShieldNotifications/ObjCBridgeNotifications.swift (the notification categories),
// which document them; keep both in step.
// Objects cross as `void *`; a report crosses as a `const void *` lent for one call.
#ifndef CS_BRIDGE_H
#define CS_BRIDGE_H
#include <stdbool.h>
#include <stdint.h>

/// Status codes: CSErrorCode's values (0: OK). `message`, when not NULL, receives a malloc'd text on failure.
typedef void (*CSBridgeRelease)(void *context);
/// `report` is lent for the call: read it with the csbridge_report_ functions, never keep it.
typedef void (*CSBridgeReportFunction)(void *context, const void *report);
/// A name, or a pair (a class and a selector, a key and a value); `second` is NULL for a name.
typedef void (*CSBridgeNameFunction)(void *context, const char *first, const char *second);
typedef void (*CSBridgeObservationFunction)(void *context, void *notification, void *owner);

/// `configuration`: from csbridge_configuration_create (ObjCBridgeConfiguration.swift), borrowed.
int32_t csbridge_start(const void *configuration, CSBridgeReportFunction report, void *context,
                       CSBridgeRelease release, char **message);

// The configuration, field by field (ObjCBridgeConfiguration.swift): create (+1), fill, start, release.
void *csbridge_configuration_create(void);
void csbridge_configuration_release(void *configuration);
void csbridge_configuration_set_guards(void *configuration, uint32_t guards, bool debugMode);
void csbridge_configuration_add_mode_override(void *configuration, uint32_t guards, bool debugMode);
void csbridge_configuration_add_excluded_class(void *configuration, const char *name);
void csbridge_configuration_add_protected_prefix(void *configuration, const char *name);
void csbridge_configuration_add_foundation_class(void *configuration, const char *name);
void csbridge_configuration_add_zombie_class(void *configuration, const char *name);
void csbridge_configuration_set_limits(void *configuration, intptr_t maxDistinctReports,
                                       intptr_t detailedCapturesPerSecond, intptr_t maxStackDepth);
void csbridge_configuration_set_zombies(void *configuration, intptr_t maxBytes, intptr_t maxCount,
                                        intptr_t maxObjectSize, bool recordsDeallocationStack);
void csbridge_configuration_set_switches(void *configuration, bool kvoLeavesSystemClassesAlone, bool redactsAppData,
                                         bool logsReports);
/// A NULL selector adds the class with no methods.
void csbridge_configuration_add_main_thread_method(void *configuration, const char *className, const char *selector);
void csbridge_configuration_set_report_store(void *configuration, const char *path);
/// HTTP when `dsn` is NULL, else Sentry; later headers go to this sink.
void csbridge_configuration_add_upload(void *configuration, const char *endpoint, const char *dsn, const char *folder,
                                       uint32_t uploadedGuards, const char *release, const char *environment,
                                       const char *dist);
void csbridge_configuration_add_upload_header(void *configuration, const char *name, const char *value);
void csbridge_stop(void);
bool csbridge_is_running(void);
uint32_t csbridge_active_guards(void);
int32_t csbridge_set_guard(uint32_t guards, bool enabled, char **message);
bool csbridge_flush(double timeoutSeconds);
/// Calls `function(context, text, NULL)` for each sink of the running configuration that cannot work now.
void csbridge_sink_failures(CSBridgeNameFunction function, void *context);
bool csbridge_wait_for_uploads(double timeoutSeconds);
/// Calls `function(context, statistics)` for each upload sink of the last start (`statistics` lent for the call).
void csbridge_upload_statistics(CSBridgeReportFunction function, void *context);
char *csbridge_upload_statistics_copy_folder(const void *statistics);
bool csbridge_upload_statistics_is_sentry(const void *statistics);
intptr_t csbridge_upload_statistics_delivered_reports(const void *statistics);
intptr_t csbridge_upload_statistics_rejected_batches(const void *statistics);
intptr_t csbridge_upload_statistics_dropped_reports(const void *statistics);
intptr_t csbridge_upload_statistics_requests(const void *statistics);
intptr_t csbridge_upload_statistics_queued_reports(const void *statistics);
intptr_t csbridge_upload_statistics_credential_refusals(const void *statistics);
intptr_t csbridge_upload_statistics_rate_limited_reports(const void *statistics);

// Reports (ObjCBridgeReports.swift). Strings are malloc'd (free them); dates are seconds since 1970.
void csbridge_reports(CSBridgeReportFunction function, void *context);
bool csbridge_decode_report(const void *bytes, intptr_t length, CSBridgeReportFunction function, void *context);
char *csbridge_report_copy_signature(const void *report);
uint32_t csbridge_report_guard(const void *report);
char *csbridge_report_copy_guard_name(const void *report);
char *csbridge_report_copy_exception_name(const void *report);
char *csbridge_report_copy_reason(const void *report);
char *csbridge_report_copy_class_name(const void *report);
char *csbridge_report_copy_selector(const void *report);
char *csbridge_report_copy_method(const void *report);
char *csbridge_report_copy_hint(const void *report);
bool csbridge_report_recovered(const void *report);
uint64_t csbridge_report_occurrences(const void *report);
double csbridge_report_first_seen(const void *report);
double csbridge_report_last_seen(const void *report);
char *csbridge_report_copy_thread_name(const void *report);
bool csbridge_report_on_main_thread(const void *report);
void csbridge_report_details(const void *report, CSBridgeNameFunction function, void *context);
char *csbridge_report_copy_json(const void *report);

// Swift's defaults (Configuration.production, UploadOptions()), which CSConfiguration and CSUploadSink start from.
uint32_t csbridge_default_guards(void);
bool csbridge_default_debug_mode(void);
intptr_t csbridge_default_max_distinct_reports(void);
intptr_t csbridge_default_detailed_captures_per_second(void);
intptr_t csbridge_default_max_stack_depth(void);
intptr_t csbridge_default_zombie_max_bytes(void);
intptr_t csbridge_default_zombie_max_count(void);
intptr_t csbridge_default_zombie_max_object_size(void);
bool csbridge_default_records_zombie_deallocation_stack(void);
bool csbridge_default_kvo_leaves_system_classes_alone(void);
void csbridge_default_foundation_classes(CSBridgeNameFunction function, void *context);
void csbridge_default_main_thread_only_methods(CSBridgeNameFunction function, void *context);
uint32_t csbridge_default_uploaded_guards(void);

void csbridge_post_notification(void *center, void *name, void *object, void *userInfo, void *thread,
                                bool waitUntilDone);
int32_t csbridge_observe(void *center, const char *name, void *object, void *owner, double priority,
                         CSBridgeObservationFunction function, void *context, CSBridgeRelease release,
                         intptr_t *observationID, char **message);
void csbridge_observation_cancel(intptr_t observationID);
bool csbridge_observation_is_active(intptr_t observationID);
void csbridge_remove_observations(void *owner, const char *name, bool byPriority, double priority);
#endif
