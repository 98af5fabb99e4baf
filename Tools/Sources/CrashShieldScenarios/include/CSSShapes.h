// CSSShapes.h: methods of every argument shape, for the pass-throughs that stopped overrides become
// (CSRPassThrough.h). CSSShapeBase implements them; CSSShapeView (and classes made from it at run time) only inherits
// them, so a hook there is an added override. Each function sends the real message.
#ifndef CSS_SHAPES_H
#define CSS_SHAPES_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif


/// A rect as four doubles (NSRect / CGRect: 32 bytes, on the stack on x86_64, in d0-d3 on arm64).
typedef struct CSSShapeRect { double x, y, width, height; } CSSShapeRect;

/// `-scaled:(double)` -> double: 1.5 x factor.
double css_shape_scaled(void *object, double factor);
/// `-areaOf:(NSRect)` -> double: width x height + x + y.
double css_shape_area(void *object, CSSShapeRect rect);
/// `-rectScaledBy:(double)` -> NSRect (returned in memory): {1, 2, 3, 4} x factor.
CSSShapeRect css_shape_rect_scaled(void *object, double factor);
/// `-mixed:(long) number:(double) rect:(NSRect) single:(float)` -> double: the sum of every field.
double css_shape_mixed(void *object, long a, double b, CSSShapeRect rect, float c);
/// `-sumOf:(long)count, ...` (variadic longs) -> long: the sum of the three.
long css_shape_sum(void *object, long a, long b, long c);
/// `-setAlpha:(double)` and `-setNeedsDisplayInRect:(NSRect)` (UIView's shapes): the last value each got.
void css_shape_set_alpha(void *object, double alpha);
double css_shape_alpha(void *object);
void css_shape_set_needs_display(void *object, CSSShapeRect rect);
CSSShapeRect css_shape_last_rect(void *object);

#ifdef __cplusplus
}
#endif



// Fixture classes shaped like CALayer and UINavigationController (GNUstep has neither), for the opt-in UIKit guard:
// CSSLayer keeps a position, bounds and anchor point and raises what Core Animation raises for NaN geometry;
// CSSNavigationController keeps a stack and raises what UIKit raises for a controller pushed twice.
#ifdef __cplusplus
extern "C" {
#endif

void *css_layer_new(void);
void css_layer_set_position(void *layer, double x, double y);
void css_layer_set_bounds(void *layer, CSSShapeRect bounds);
void css_layer_set_frame(void *layer, CSSShapeRect frame);
void css_layer_set_anchor(void *layer, double x, double y);
/// Position x, y, then bounds x, y, width, height, into `out` (6 doubles).
void css_layer_geometry(void *layer, double *out);
void *css_navigation_new(void);
void *css_view_controller_new(void);
void css_navigation_push(void *navigation, void *controller, bool animated);
long css_navigation_count(void *navigation);
/// Like a UIViewController in a regular-width (iPad) or compact environment, and a UIAlertController (style 0: action
/// sheet; 1: alert) with or without a popover presentation controller.
void *css_presenter_new(bool regularWidth);
void *css_alert_new(long style, bool withPopover);
void css_presenter_present(void *presenter, void *alert);
long css_presenter_presentations(void *presenter);
/// Whether the alert's popover got a source view; its source rect into `rect` (4 doubles).
bool css_alert_source(void *alert, double *rect);
/// Presents `controller` (may be NULL) with a completion block that counts its calls into `completions`. The fixture
/// raises UIKit's exceptions for nil and for a controller already presented (`presentingViewController` set, no
/// parent, not being dismissed), sets the presented controller's `presentingViewController`, then calls the completion.
void css_presenter_present_counting(void *presenter, void *controller, long *completions);
/// The fixture controller's `presentingViewController` (+0), and its presentation chain set by hand.
void *css_view_controller_presenter(void *controller);
void css_view_controller_set_chain(void *controller, void *presenter, void *parent, bool beingDismissed);
/// `popToViewController:animated:` (NULL controller allowed): how many controllers it popped; whether it returned nil.
long css_navigation_pop_to(void *navigation, void *controller, bool *returnedNil);
/// Like UITableView (`collection` false) or UICollectionView with `sections` sections of `counts` rows/items (+1).
void *css_indexed_view_new(bool collection, const long *counts, long sections);
void css_indexed_view_set_count(void *view, long section, long count);
/// `scrollToRowAtIndexPath:` / `scrollToItemAtIndexPath:atScrollPosition:animated:` with an NSIndexPath of `length`
/// indexes (at most 8); `_nil` with a nil index path.
void css_indexed_view_scroll(void *view, const unsigned long *indexes, unsigned long length, long position,
                             bool animated);
void css_indexed_view_scroll_nil(void *view);
/// How many scrolls went through; the last one's section, row/item, position and animated (0/1) into `last` (4 longs).
long css_indexed_view_scrolls(void *view, long *last);
/// Like UIView (`superview`, may be NULL; not retained), UILayoutGuide (`owningView`) and NSLayoutConstraint between
/// `first` and `second` (NULL: one item), all +1. Activation raises UIKit's NSGenericException for items with no
/// common ancestor; `css_layout_activate` is `+activateConstraints:` of the `count` constraints.
void *css_layout_view_new(void *superview);
void *css_layout_guide_new(void *owningView);
void *css_layout_constraint_new(void *first, void *second);
void css_layout_constraint_set_active(void *constraint, bool active);
bool css_layout_constraint_is_active(void *constraint);
void css_layout_activate(void *const *constraints, long count);

/// Like WKWebView running a JavaScript panel (CSSWebKitFixtures.m): `panel` 0 alert, 1 confirm, 2 text input. The
/// delegate's `webView:runJavaScript...completionHandler:` gets a handler block shaped like WebKit's: released
/// uncalled, it raises NSInternalInconsistencyException as WebKit's CompletionHandlerCallChecker does. Returns how
/// many times the handler was called so far; `answer` (when not NULL) gets the last answer: "called" (alert), "YES" /
/// "NO" (confirm), "nil" or the text (text input), "" when never called.
long css_webview_run_panel(void *delegate, long panel, char *answer, unsigned long size);
/// Delegates: 0 drops the handler, 1 calls it (confirm: YES; text input: "typed"), 2 keeps it (call
/// `css_panel_delegate_finish` later: it answers as 1 does and forgets it), 3 calls it twice, 4 answers as 1 does on a
/// thread it starts before the method returns, and releases it there (`css_panel_delegate_finish` waits for it).
void *css_panel_delegate_new(long behaviour);
/// A subclass of that delegate that overrides no panel method (WebKit's reason names the class that implements it).
void *css_panel_delegate_subclass_new(long behaviour);
void css_panel_delegate_finish(void *delegate);
/// The last panel run's handler calls and answer (a kept handler answers after `css_webview_run_panel` returned).
long css_webview_last_calls(char *answer, unsigned long size);
#ifdef __cplusplus
}
#endif

#endif
