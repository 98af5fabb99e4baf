// CSSUIKitFixtures.m: classes shaped like CALayer and UINavigationController (CSSShapes.h), raising what Core
// Animation and UIKit raise (texts from public crash logs, Docs/AppleRuntime.md §16). The UIKit guard is installed on
// them in the tests in place of the real classes, which GNUstep has not.
#import <Foundation/Foundation.h>
#include <math.h>
#include "CrashShieldScenarios.h"
#include "CSSMemory.h"

#if defined(__APPLE__)
typedef CGRect CSSFixtureRect;
typedef CGPoint CSSFixturePoint;
#else
typedef NSRect CSSFixtureRect;
typedef NSPoint CSSFixturePoint;
#endif

static CSSFixturePoint css_point(double x, double y) { CSSFixturePoint point; point.x = x; point.y = y; return point; }
static CSSFixtureRect css_fixture_rect(CSSShapeRect rect) {
    CSSFixtureRect value;
    value.origin.x = rect.x; value.origin.y = rect.y; value.size.width = rect.width; value.size.height = rect.height;
    return value;
}

/// Like CALayer: -setFrame: sets the position it computes from the anchor point (raising there for NaN, as
/// `-[CALayer setFrame:]` -> `-[CALayer setPosition:]` does in public stacks), then the bounds' size.
@interface CSSLayer : NSObject {
@public
    CSSFixturePoint position, anchor;
    CSSFixtureRect bounds;
}
- (void)setPosition:(CSSFixturePoint)value;
- (void)setBounds:(CSSFixtureRect)value;
- (void)setFrame:(CSSFixtureRect)value;
- (CSSFixturePoint)anchorPoint;
@end

@implementation CSSLayer
- (instancetype)init {
    if ((self = [super init])) anchor = css_point(0.5, 0.5);
    return self;
}
- (void)setPosition:(CSSFixturePoint)value {
    if (isnan(value.x) || isnan(value.y)) {
        [NSException raise:@"CALayerInvalidGeometry" format:@"CALayer position contains NaN: [%g %g]", value.x, value.y];
    }
    position = value;
}
- (void)setBounds:(CSSFixtureRect)value {
    if (isnan(value.origin.x) || isnan(value.origin.y) || isnan(value.size.width) || isnan(value.size.height)) {
        [NSException raise:@"CALayerInvalidGeometry" format:@"CALayer bounds contains NaN: [%g %g; %g %g]",
                           value.origin.x, value.origin.y, value.size.width, value.size.height];
    }
    bounds = value;
}
- (void)setFrame:(CSSFixtureRect)value {
    [self setPosition:css_point(value.origin.x + value.size.width * anchor.x, value.origin.y + value.size.height * anchor.y)];
    CSSFixtureRect resized = bounds;
    resized.size = value.size;
    [self setBounds:resized];
}
- (CSSFixturePoint)anchorPoint { return anchor; }
@end

/// Like UIViewController, for the stack.
@interface CSSViewController : NSObject
@end
@implementation CSSViewController
@end

/// Like UINavigationController: `viewControllers` and the push check (iOS 13 and later's text).
@interface CSSNavigationController : NSObject {
    NSMutableArray *stack;
}
- (NSArray *)viewControllers;
- (void)pushViewController:(id)controller animated:(BOOL)animated;
@end

@implementation CSSNavigationController
- (instancetype)init {
    if ((self = [super init])) stack = [[NSMutableArray alloc] init];
    return self;
}
- (void)dealloc {
    CSS_RELEASE(stack);
    CSS_SUPER_DEALLOC();
}
/// The stack itself (+0, as a getter returns it; never autoreleased: the guard asks it where no pool may be).
- (NSArray *)viewControllers { return stack; }
- (void)pushViewController:(id)controller animated:(BOOL)animated {
    (void)animated;
    if ([stack indexOfObjectIdenticalTo:controller] != NSNotFound) {
        NSString *bundle = [[NSBundle mainBundle] bundleIdentifier];
        [NSException raise:NSInvalidArgumentException
                    format:@"<%@: %p> is pushing the same view controller instance (<%@: %p>) more than once which is not "
                           @"supported and is most likely an error in the application%@",
                           NSStringFromClass([self class]), (void *)self, NSStringFromClass([controller class]),
                           (CSS_BRIDGE void *)controller, bundle ? [@" : " stringByAppendingString:bundle] : @""];
    }
    [stack addObject:controller];
}
@end

void *css_layer_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSLayer alloc] init]; }
void css_layer_set_position(void *layer, double x, double y) { [(CSS_BRIDGE CSSLayer *)layer setPosition:css_point(x, y)]; }
void css_layer_set_bounds(void *layer, CSSShapeRect value) { [(CSS_BRIDGE CSSLayer *)layer setBounds:css_fixture_rect(value)]; }
void css_layer_set_frame(void *layer, CSSShapeRect value) { [(CSS_BRIDGE CSSLayer *)layer setFrame:css_fixture_rect(value)]; }
void css_layer_set_anchor(void *layer, double x, double y) { ((CSS_BRIDGE CSSLayer *)layer)->anchor = css_point(x, y); }
void css_layer_geometry(void *layer, double *out) {
    CSSLayer *object = (CSS_BRIDGE CSSLayer *)layer;
    out[0] = object->position.x; out[1] = object->position.y;
    out[2] = object->bounds.origin.x; out[3] = object->bounds.origin.y;
    out[4] = object->bounds.size.width; out[5] = object->bounds.size.height;
}
void *css_navigation_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSNavigationController alloc] init]; }
void *css_view_controller_new(void) { return (CSS_BRIDGE_RETAINED void *)[[CSSViewController alloc] init]; }
void css_navigation_push(void *navigation, void *controller, bool animated) {
    [(CSS_BRIDGE CSSNavigationController *)navigation pushViewController:(CSS_BRIDGE id)controller animated:animated ? YES : NO];
}
long css_navigation_count(void *navigation) {
    return (long)[[(CSS_BRIDGE CSSNavigationController *)navigation viewControllers] count];
}

// MARK: Action sheets (like UIAlertController, UIPopoverPresentationController, UIViewController on an iPad)

@interface CSSPopover : NSObject {
@public
    id sourceView;
    id barButtonItem;
    CSSFixtureRect sourceRect;
}
- (id)sourceView;
- (void)setSourceView:(id)view;
- (id)barButtonItem;
- (void)setSourceRect:(CSSFixtureRect)rect;
@end
@implementation CSSPopover
- (void)dealloc {
    CSS_RELEASE(sourceView);
    CSS_RELEASE(barButtonItem);
    CSS_SUPER_DEALLOC();
}
- (id)sourceView { return sourceView; }
- (void)setSourceView:(id)view {
    id old = sourceView;
    sourceView = CSS_RETAIN(view);
    CSS_RELEASE(old);
}
- (id)barButtonItem { return barButtonItem; }
- (void)setSourceRect:(CSSFixtureRect)rect { sourceRect = rect; }
@end

@interface CSSAlertController : NSObject {
@public
    NSInteger style;
    CSSPopover *popover;
}
- (NSInteger)preferredStyle;
- (id)popoverPresentationController;
@end
@implementation CSSAlertController
- (void)dealloc {
    CSS_RELEASE(popover);
    CSS_SUPER_DEALLOC();
}
- (NSInteger)preferredStyle { return style; }
- (id)popoverPresentationController { return popover; }
@end

@interface CSSTraits : NSObject {
@public
    NSInteger horizontal;
}
- (NSInteger)horizontalSizeClass;
@end
@implementation CSSTraits
- (NSInteger)horizontalSizeClass { return horizontal; }
@end

@interface CSSPresentedView : NSObject
- (CSSFixtureRect)bounds;
@end
@implementation CSSPresentedView
- (CSSFixtureRect)bounds {
    CSSFixtureRect rect;
    rect.origin.x = 0; rect.origin.y = 0; rect.size.width = 200; rect.size.height = 100;
    return rect;
}
@end

/// Like UIViewController: raises what UIKit raises (when the popover transition begins) at the presentation itself.
@interface CSSPresentingController : NSObject {
@public
    CSSTraits *traits;
    CSSPresentedView *view;
    long presentations;
}
- (id)traitCollection;
- (id)view;
- (void)presentViewController:(id)controller animated:(BOOL)animated completion:(id)completion;
@end
@implementation CSSPresentingController
- (instancetype)init {
    if ((self = [super init])) {
        traits = [[CSSTraits alloc] init];
        view = [[CSSPresentedView alloc] init];
    }
    return self;
}
- (void)dealloc {
    CSS_RELEASE(traits);
    CSS_RELEASE(view);
    CSS_SUPER_DEALLOC();
}
- (id)traitCollection { return traits; }
- (id)view { return view; }
- (void)presentViewController:(id)controller animated:(BOOL)animated completion:(id)completion {
    (void)animated; (void)completion;
    if ([controller isKindOfClass:[CSSAlertController class]]) {
        CSSAlertController *alert = controller;
        CSSPopover *popover = alert->popover;
        if (alert->style == 0 && popover != nil && popover->sourceView == nil && popover->barButtonItem == nil
            && traits->horizontal == 2) {
            [NSException raise:@"NSGenericException"
                        format:@"Your application has presented a UIAlertController (<%@: %p>) of style "
                               @"UIAlertControllerStyleActionSheet from %@ (<%@: %p>). The modalPresentationStyle of a "
                               @"UIAlertController with this style is UIModalPresentationPopover. You must provide location "
                               @"information for this popover through the alert controller's popoverPresentationController. "
                               @"You must provide either a sourceView and sourceRect or a barButtonItem.  If this "
                               @"information is not known when you present the alert controller, you may provide it in the "
                               @"UIPopoverPresentationControllerDelegate method -prepareForPopoverPresentation.",
                               NSStringFromClass([alert class]), (void *)alert, NSStringFromClass([self class]),
                               NSStringFromClass([self class]), (void *)self];
        }
    }
    presentations++;
}
@end

void *css_presenter_new(bool regularWidth) {
    CSSPresentingController *presenter = [[CSSPresentingController alloc] init];
    presenter->traits->horizontal = regularWidth ? 2 : 1;
    return (CSS_BRIDGE_RETAINED void *)presenter;
}
void *css_alert_new(long style, bool withPopover) {
    CSSAlertController *alert = [[CSSAlertController alloc] init];
    alert->style = style;
    if (withPopover) alert->popover = [[CSSPopover alloc] init];
    return (CSS_BRIDGE_RETAINED void *)alert;
}
void css_presenter_present(void *presenter, void *alert) {
    [(CSS_BRIDGE CSSPresentingController *)presenter presentViewController:(CSS_BRIDGE id)alert animated:YES completion:nil];
}
long css_presenter_presentations(void *presenter) { return ((CSS_BRIDGE CSSPresentingController *)presenter)->presentations; }
bool css_alert_source(void *alert, double *rect) {
    CSSPopover *popover = ((CSS_BRIDGE CSSAlertController *)alert)->popover;
    if (popover == nil || popover->sourceView == nil) return false;
    rect[0] = popover->sourceRect.origin.x; rect[1] = popover->sourceRect.origin.y;
    rect[2] = popover->sourceRect.size.width; rect[3] = popover->sourceRect.size.height;
    return true;
}
