// CSRUIKit.h: what the opt-in UIKit guard (UIKitGuard.swift) asks of Core Animation and UIKit objects, through their
// public API only (declared here as informal protocols, so that the same code compiles without UIKit: on GNUstep the
// tests use fixture classes shaped like CALayer and UINavigationController).
#ifndef CSR_UIKIT_H
#define CSR_UIKIT_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Same layout and calling convention as CGPoint / NSPoint.
typedef struct CSRPoint {
    double x, y;
} CSRPoint;

/// `-[CALayer anchorPoint]`, or {0.5, 0.5} (Core Animation's default) when `layer` does not answer it.
CSRPoint csr_layer_anchor_point(CSRObject layer);

/// Whether `-[UINavigationController viewControllers]` of `navigationController` holds `controller` itself (identity,
/// as UIKit's check); false when it does not answer `viewControllers` or `controller` is nil.
bool csr_navigation_stack_contains(CSRObject navigationController, CSRObject controller);

/// Whether `presented` is an action-sheet alert controller (an instance of `alertClass`, `preferredStyle` 0:
/// UIAlertControllerStyleActionSheet) whose `popoverPresentationController` has no `sourceView`, `barButtonItem` or
/// (iOS 16+) `sourceItem`, presented from a controller whose `traitCollection.horizontalSizeClass` is regular (2): UIKit
/// presents it as a popover there, and raises for the missing location. False for anything else.
bool csr_alert_sheet_lacks_popover_source(CSRObject presenter, CSRObject presented, CSRClass alertClass);

/// Gives the popover of `presented` the presenter's `view` as `sourceView` and a zero-size `sourceRect` at the centre of
/// its bounds. False when the presenter has no view or the alert no popover.
bool csr_alert_sheet_use_presenter_view(CSRObject presenter, CSRObject presented);

/// `value` as the C library's `%g` prints it into `buffer` ("nan", "320", "75.75"; glibc writes "-nan" for a NaN with
/// the sign bit set, as GNUstep's exception texts then do).
void csr_format_g(double value, char *buffer, unsigned long size);

#ifdef __cplusplus
}
#endif
#endif
