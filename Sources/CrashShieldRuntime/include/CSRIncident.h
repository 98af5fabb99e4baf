// CSRIncident.h: the one channel through which the C layer hands a stopped call to Swift's incident path.
//
// Every C replacement that finds a failure (a hot-read trampoline that caught an exception, a variadic trampoline
// that read an invalid list, a message to a zombie, a WKWebView panel handler dropped uncalled) fills one `CSRIncident` on its cold path and calls `csr_incident_report`. Swift registers the one handler
// (`csr_incident_set_handler`) before it installs any of them; the handler judges the incident and carries the verdict
// out (it may raise Foundation's exception: the C frames between unwind normally). Valid calls never reach here.
#ifndef CSR_INCIDENT_H
#define CSR_INCIDENT_H

#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What stopped the call.
typedef enum CSRIncidentSource {
    /// A hot-read trampoline (CSRHotReads.h) caught `exception`, raised by its original for `argument` (the index).
    /// `table`: the hook point's table; `implementation`: the trampoline.
    CSRIncidentHotRead = 1,
    /// A variadic trampoline (CSRVariadic.h) read an invalid call: `table`: the hook point's table; `argument`: for an
    /// objects-and-keys list, how many objects precede the nil; 0 for a format.
    CSRIncidentVariadic,
    /// A zombie (CSRZombie.h) received `selector`; `implementation`: the zombie message.
    CSRIncidentZombie,
    /// A WKWebView JavaScript panel's completion handler (CSRWebKit.h) was released uncalled: `cls`, the delegate's
    /// class; `selector`, the delegate method; `argument`, the `CSRWebKitPanel`. true: answer WebKit's block with the
    /// default.
    CSRIncidentDroppedHandler,
} CSRIncidentSource;

/// One stopped call, as the C layer saw it. Fields a source does not name are zero.
typedef struct CSRIncident {
    CSRIncidentSource source;
    /// The hook point's table (hot reads, variadic trampolines).
    CSRHookTable *table;
    /// The replacement or implementation that stopped (or raised for) the call.
    CSRIMP implementation;
    CSRClass cls;
    CSRObject receiver;
    CSRSelector selector;
    uintptr_t argument;
    /// The exception the original raised (any object thrown).
    CSRObject exception;
} CSRIncident;

/// true: recover (the source returns a zero value or skips the call); false: go on as without CrashShield (call the
/// original, let its exception continue).
typedef bool (*CSRIncidentHandler)(const CSRIncident *incident);

void csr_incident_set_handler(CSRIncidentHandler handler);

/// Hands `incident` to the handler; false when none is registered.
bool csr_incident_report(const CSRIncident *incident);

#ifdef __cplusplus
}
#endif
#endif
