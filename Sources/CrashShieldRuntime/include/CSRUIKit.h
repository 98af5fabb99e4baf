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

/// What `csr_scroll_target_check` found.
typedef enum CSRScrollTarget {
    /// In bounds, or not judged (not a two-index NSIndexPath, a view that does not answer the counts, a table row of
    /// NSNotFound, which scrolls to its section): the scroll goes to UIKit.
    CSRScrollTargetUnjudged = 0,
    /// `section >= numberOfSections`.
    CSRScrollTargetSectionOutOfBounds = 1,
    /// `row >= numberOfRowsInSection:` (a table view) or `item >= numberOfItemsInSection:` (a collection view).
    CSRScrollTargetIndexOutOfBounds = 2,
} CSRScrollTarget;

/// The figures of an out-of-bounds scroll target: the index path's section and row/item (as UIKit prints them, signed)
/// and the count it is beyond (sections, or rows/items of that section).
typedef struct CSRScrollFigures {
    long section, index, count;
} CSRScrollFigures;

/// Whether `indexPath` (an NSIndexPath of two indexes: section, row or item) lies beyond what the table view
/// (`isTable`) or collection view `view` holds, by its public counts: `numberOfSections`, then (the section in bounds:
/// UIKit raises for the count of a section that does not exist) `numberOfRowsInSection:` / `numberOfItemsInSection:`.
/// Fills `figures` when it does.
CSRScrollTarget csr_scroll_target_check(CSRObject view, CSRObject indexPath, bool isTable, CSRScrollFigures *figures);

/// The controller presenting `controller` (`presentingViewController`, +0) when `controller` is presented or being
/// presented: it has no `parentViewController` (a child's `presentingViewController` is its container's) and is not
/// being dismissed (`isBeingDismissed`). NULL otherwise, or when it does not answer these.
CSRObject csr_controller_presented_by(CSRObject controller);

/// Whether `controller` is not on the stack (`viewControllers`) of `navigationController`: neither itself (identity)
/// nor an equal object (`containsObject:`) is there. False when either is nil or the receiver does not answer
/// `viewControllers` with an array.
bool csr_navigation_stack_lacks(CSRObject navigationController, CSRObject controller);

/// Whether activating `constraint` (an NSLayoutConstraint) would find no common ancestor of its two items: both are
/// set, each is a view (its superview chain) or a layout guide with an owning view (that view's chain), and the two
/// chains end at different roots. False when there is one item or an item is neither (not judged).
bool csr_constraint_lacks_common_ancestor(CSRObject constraint);

/// The index of the first constraint of the array `constraints` that `csr_constraint_lacks_common_ancestor`, or -1.
long csr_constraints_first_lacking_common_ancestor(CSRObject constraints);

/// `[constraints objectAtIndex:index]` (+0).
CSRObject csr_constraints_object_at(CSRObject constraints, long index);

/// Sends `setActive:YES` to each constraint of the array `constraints` that does not lack a common ancestor, in order.
void csr_constraints_activate_each(CSRObject constraints);

/// The description of the constraint's `firstAnchor` (or `secondAnchor`), UTF-8, into `buffer`; "" when it has none.
void csr_constraint_anchor_description(CSRObject constraint, bool second, char *buffer, unsigned long size);

/// `value` as the C library's `%g` prints it into `buffer` ("nan", "320", "75.75"; glibc writes "-nan" for a NaN with
/// the sign bit set, as GNUstep's exception texts then do).
void csr_format_g(double value, char *buffer, unsigned long size);

#ifdef __cplusplus
}
#endif
#endif
