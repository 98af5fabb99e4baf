// CSRWebKit.h: the WKWebView JavaScript panel delegate part of the opt-in UIKit guard (UIKitGuard.swift). WebKit hands
// the delegate's `webView:runJavaScript...Panel...completionHandler:` a block whose destruction, uncalled, raises
// NSInternalInconsistencyException ("Completion handler passed to -[<class> <selector>] was not called": WebKit's
// CompletionHandlerCallChecker). The guard calls the delegate's method with a wrapper block in its place: every call of
// the wrapper goes to WebKit's block unchanged; when the wrapper is destroyed uncalled, the incident channel
// (CSRIncident.h, `CSRIncidentDroppedHandler`) is asked first, and on recovery WebKit's block is called once with the
// default answer (alert: none; confirm: NO; text input: nil) before it is released. No UIKit or WebKit import: the
// same code compiles here (GNUstep: libBlocksRuntime's blocks), where fixture classes shaped like WebKit's call it.
#ifndef CSR_WEBKIT_H
#define CSR_WEBKIT_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The three panels, by the shape of their completion handler.
typedef enum CSRWebKitPanel {
    /// `webView:runJavaScriptAlertPanelWithMessage:initiatedByFrame:completionHandler:`: `void (^)(void)`.
    CSRWebKitPanelAlert = 0,
    /// `webView:runJavaScriptConfirmPanelWithMessage:initiatedByFrame:completionHandler:`: `void (^)(BOOL)`.
    CSRWebKitPanelConfirm = 1,
    /// `webView:runJavaScriptTextInputPanelWithPrompt:defaultText:initiatedByFrame:completionHandler:`:
    /// `void (^)(NSString *)`.
    CSRWebKitPanelTextInput = 2,
} CSRWebKitPanel;

/// Calls `original` (the delegate's implementation of `selector`) on `delegate` with `webView`, `text` (message or
/// prompt), for a text input `defaultText`, `frame`, and a wrapper of `handler` in its place (`handler` itself when it
/// is nil). The wrapper's holder reports an uncalled release through `csr_incident_report`, naming `delegate`'s class
/// and `selector`; it never raises itself (WebKit's block does, when it is released uncalled on a pass-through).
void csr_webkit_run_panel(
    CSRIMP original, CSRObject delegate, CSRSelector selector, CSRWebKitPanel panel, CSRObject webView,
    CSRObject text, CSRObject defaultText, CSRObject frame, CSRObject handler);

#ifdef __cplusplus
}
#endif
#endif
