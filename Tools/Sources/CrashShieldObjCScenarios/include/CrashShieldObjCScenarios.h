// CrashShieldObjCScenarios: Objective-C app code using CrashShield's Objective-C API, for CrashShieldObjCTests.
// Each function runs one scenario as an app would and returns what happened: `key=value` lines, malloc'd (free it).
// Plain C, so that XCTest (Swift) can call it on every platform.
#ifndef CRASH_SHIELD_OBJC_SCENARIOS_H
#define CRASH_SHIELD_OBJC_SCENARIOS_H

#ifdef __cplusplus
extern "C" {
#endif

/// Configure (container and KVC guards, a report block), start, one bad call, flush, the report list, stop.
char *csos_start_bad_call_report(void);
/// `+[CSReport reportWithJSONData:]` on `json` (a report as Swift encodes it): every field of the CSReport, and whether
/// data that is no complete report gives nil.
char *csos_report_fields(const char *json);
/// Starts CrashShield with every CSConfiguration field set to a value other than its default (and an HTTP and a Sentry
/// upload sink in `folder`), and leaves it running: the caller reads Swift's configuration, then stops it.
char *csos_start_every_field(const char *folder);
/// A new CSConfiguration's and CSUploadSink's defaults.
char *csos_configuration_defaults(void);
/// The kill switch: a guard switched off lets the call raise as without CrashShield, on again stops it.
char *csos_kill_switch(void);
/// The same bad call three times: the block gets the first occurrence, then the count on flush.
char *csos_flush_count_update(void);
/// Bad input: each returns NO and an NSError with its code; nothing stays running.
char *csos_bad_input(const char *folder);
/// Deny and allow lists, per-guard modes.
char *csos_lists_and_modes(void);
/// HTTP and Sentry upload sinks and the report store, configured from Objective-C, receive the report.
char *csos_upload_sinks(const char *folder);
/// A report store whose folder cannot be made: the guards start anyway, `sinkFailures` names it, and it writes
/// once the folder can be made.
char *csos_unwritable_store(const char *folder);
/// An HTTP upload sink to the server on 127.0.0.1:`port`: a bad call, then waiting for delivery and the statistics.
char *csos_upload_wait(const char *folder, int port);
/// Posting on a thread: a post whose observers (selector and block) run on the main thread, a worker thread, the caller's.
char *csos_post_on_threads(void);
/// Owner-bound blocks: blocks by priority, with (note, owner).
char *csos_block_priorities(void);
/// Owner-bound blocks: an owner's deallocation removes its blocks (and releases them), others stay.
char *csos_owner_death(void);
/// Owner-bound blocks: removal by level and by name; bad input.
char *csos_remove_by_level(void);

#ifdef __cplusplus
}
#endif
#endif
