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

/// Like UIViewController, for the stack and the presentation chain: `presentingViewController` (set by
/// CSSPresentingController when it presents it; not retained, as UIKit's is not the presented's to own),
/// `parentViewController`, `isBeingDismissed`.
@interface CSSViewController : NSObject {
@public
    id presenting;
    id parent;
    BOOL beingDismissed;
}
- (id)presentingViewController;
- (id)parentViewController;
- (BOOL)isBeingDismissed;
@end
@implementation CSSViewController
- (id)presentingViewController { return presenting; }
- (id)parentViewController { return parent; }
- (BOOL)isBeingDismissed { return beingDismissed; }
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
/// UIKit's assertion in `-[UINavigationController popToViewController:transition:]` (a copy of the stack, as
/// `viewControllers` is one, is searched); pops the controllers above it and returns them.
- (NSArray *)popToViewController:(id)controller animated:(BOOL)animated {
    (void)animated;
    NSUInteger index = [stack indexOfObject:controller];
    if (index == NSNotFound) {
        [NSException raise:NSInternalInconsistencyException format:@"Tried to pop to a view controller that doesn't exist."];
    }
    NSRange above = NSMakeRange(index + 1, [stack count] - index - 1);
    NSArray *popped = [stack subarrayWithRange:above];
    [stack removeObjectsInRange:above];
    return popped;
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
- (void)presentViewController:(id)controller animated:(BOOL)animated completion:(void (^)(void))completion;
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
- (void)presentViewController:(id)controller animated:(BOOL)animated completion:(void (^)(void))completion {
    (void)animated;
    // UIKit's checks in -[UIViewController _presentViewController:withAnimationController:completion:].
    if (controller == nil) {
        [NSException raise:NSInvalidArgumentException
                    format:@"Application tried to present a nil modal view controller on target <%@: %p>.",
                           NSStringFromClass([self class]), (void *)self];
    }
    if ([controller isKindOfClass:[CSSViewController class]]) {
        CSSViewController *presented = controller;
        if (presented->presenting != nil && presented->parent == nil && !presented->beingDismissed) {
            [NSException raise:NSInvalidArgumentException
                        format:@"Application tried to present modally a view controller <%@: %p> that is already being "
                               @"presented by <%@: %p>.",
                               NSStringFromClass([presented class]), (void *)presented,
                               NSStringFromClass([presented->presenting class]), (CSS_BRIDGE void *)presented->presenting];
        }
        presented->presenting = self;
    }
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
    if (completion != nil) completion();
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

// MARK: Presenting and popping (like UIViewController's presentation chain and UINavigationController's pop)

void css_presenter_present_counting(void *presenter, void *controller, long *completions) {
    [(CSS_BRIDGE CSSPresentingController *)presenter presentViewController:(CSS_BRIDGE id)controller animated:YES
                                                                completion:^{ (*completions)++; }];
}
void *css_view_controller_presenter(void *controller) {
    return (CSS_BRIDGE void *)((CSS_BRIDGE CSSViewController *)controller)->presenting;
}
void css_view_controller_set_chain(void *controller, void *presenter, void *parent, bool beingDismissed) {
    CSSViewController *object = (CSS_BRIDGE CSSViewController *)controller;
    object->presenting = (CSS_BRIDGE id)presenter;
    object->parent = (CSS_BRIDGE id)parent;
    object->beingDismissed = beingDismissed ? YES : NO;
}
long css_navigation_pop_to(void *navigation, void *controller, bool *returnedNil) {
    NSArray *popped = [(CSS_BRIDGE CSSNavigationController *)navigation popToViewController:(CSS_BRIDGE id)controller
                                                                                  animated:YES];
    if (returnedNil != NULL) *returnedNil = popped == nil;
    return (long)[popped count];
}

// MARK: Table and collection views (like UITableView and UICollectionView scrolling to an index path)

/// Like UITableView (`collection` NO) or UICollectionView: sections of the counts given; `numberOfRowsInSection:` /
/// `numberOfItemsInSection:` raise for a section that does not exist, as UIKit's do (-[UITableViewRowData
/// numberOfRowsInSection:]: "Requested the number of rows for section (0) which is out of bounds.", exyte/Chat#292);
/// a scroll to an index path beyond them raises what UIKit raises (iOS 13+ table view, iOS 15+ collection view texts,
/// FoundationFailures.swift); a valid one is recorded. A table row of NSNotFound scrolls to its section.
@interface CSSIndexedView : NSObject {
@public
    NSMutableArray *counts;
    BOOL collection;
    long scrolls;
    long lastSection, lastIndex, lastPosition;
    BOOL lastAnimated;
}
@end

@implementation CSSIndexedView
- (void)dealloc {
    CSS_RELEASE(counts);
    CSS_SUPER_DEALLOC();
}
- (NSInteger)numberOfSections { return (NSInteger)[counts count]; }
- (NSInteger)countInSection:(NSInteger)section {
    if (section < 0 || (NSUInteger)section >= [counts count]) {
        [NSException raise:NSInternalInconsistencyException
                    format:@"Requested the number of rows for section (%ld) which is out of bounds.", (long)section];
    }
    return [[counts objectAtIndex:(NSUInteger)section] integerValue];
}
- (void)record:(NSIndexPath *)path position:(NSInteger)position animated:(BOOL)animated {
    scrolls++;
    lastSection = (long)[path indexAtPosition:0];
    lastIndex = (long)[path indexAtPosition:1];
    lastPosition = (long)position;
    lastAnimated = animated;
}
@end

@interface CSSTableView : CSSIndexedView
- (NSInteger)numberOfRowsInSection:(NSInteger)section;
- (void)scrollToRowAtIndexPath:(NSIndexPath *)path atScrollPosition:(NSInteger)position animated:(BOOL)animated;
@end
@implementation CSSTableView
- (NSInteger)numberOfRowsInSection:(NSInteger)section { return [self countInSection:section]; }
- (void)scrollToRowAtIndexPath:(NSIndexPath *)path atScrollPosition:(NSInteger)position animated:(BOOL)animated {
    long section = (long)[path indexAtPosition:0], row = (long)[path indexAtPosition:1];
    long sections = (long)[counts count];
    if ((unsigned long)section >= (unsigned long)sections) {
        [NSException raise:NSRangeException
                    format:@"Attempted to scroll the table view to an out-of-bounds section (%ld) when there are only "
                           @"%ld sections. Table view: %@", section, sections, [self description]];
    }
    long rows = (long)[self numberOfRowsInSection:section];
    if ((NSUInteger)row != NSNotFound && (unsigned long)row >= (unsigned long)rows) {
        [NSException raise:NSRangeException
                    format:@"Attempted to scroll the table view to an out-of-bounds row (%ld) when there are only %ld "
                           @"rows in section %ld. Table view: %@", row, rows, section, [self description]];
    }
    [self record:path position:position animated:animated];
}
@end

@interface CSSCollectionView : CSSIndexedView
- (NSInteger)numberOfItemsInSection:(NSInteger)section;
- (void)scrollToItemAtIndexPath:(NSIndexPath *)path atScrollPosition:(NSUInteger)position animated:(BOOL)animated;
@end
@implementation CSSCollectionView
- (NSInteger)numberOfItemsInSection:(NSInteger)section { return [self countInSection:section]; }
- (void)scrollToItemAtIndexPath:(NSIndexPath *)path atScrollPosition:(NSUInteger)position animated:(BOOL)animated {
    long section = (long)[path indexAtPosition:0], item = (long)[path indexAtPosition:1];
    long sections = (long)[counts count];
    if ((unsigned long)section >= (unsigned long)sections) {
        [NSException raise:NSInternalInconsistencyException
                    format:@"Attempted to scroll the collection view to an out-of-bounds section (%ld) when there are "
                           @"only %ld sections. Collection view: %@.", section, sections, [self description]];
    }
    long items = (long)[self numberOfItemsInSection:section];
    if ((unsigned long)item >= (unsigned long)items) {
        [NSException raise:NSInternalInconsistencyException
                    format:@"Attempted to scroll the collection view to an out-of-bounds item (%ld) when there are only "
                           @"%ld items in section %ld. Collection view: %@.", item, items, section, [self description]];
    }
    [self record:path position:(NSInteger)position animated:animated];
}
@end

void *css_indexed_view_new(bool collection, const long *counts, long sections) {
    CSSIndexedView *view = collection ? [[CSSCollectionView alloc] init] : [[CSSTableView alloc] init];
    view->collection = collection ? YES : NO;
    view->counts = [[NSMutableArray alloc] init];
    for (long i = 0; i < sections; i++) [view->counts addObject:[NSNumber numberWithLong:counts[i]]];
    return (CSS_BRIDGE_RETAINED void *)view;
}
void css_indexed_view_set_count(void *view, long section, long count) {
    [((CSS_BRIDGE CSSIndexedView *)view)->counts replaceObjectAtIndex:(NSUInteger)section
                                                          withObject:[NSNumber numberWithLong:count]];
}
void css_indexed_view_scroll(void *view, const unsigned long *indexes, unsigned long length, long position,
                             bool animated) {
    CSS_POOL_BEGIN
    NSUInteger path[8];
    for (unsigned long i = 0; i < length && i < 8; i++) path[i] = (NSUInteger)indexes[i];
    NSIndexPath *indexPath = [NSIndexPath indexPathWithIndexes:path length:(NSUInteger)(length < 8 ? length : 8)];
    CSSIndexedView *object = (CSS_BRIDGE CSSIndexedView *)view;
    if (object->collection) {
        [(CSSCollectionView *)object scrollToItemAtIndexPath:indexPath atScrollPosition:(NSUInteger)position
                                                    animated:animated ? YES : NO];
    } else {
        [(CSSTableView *)object scrollToRowAtIndexPath:indexPath atScrollPosition:(NSInteger)position
                                              animated:animated ? YES : NO];
    }
    CSS_POOL_END
}
void css_indexed_view_scroll_nil(void *view) {
    CSSIndexedView *object = (CSS_BRIDGE CSSIndexedView *)view;
    if (object->collection) {
        [(CSSCollectionView *)object scrollToItemAtIndexPath:nil atScrollPosition:0 animated:NO];
    } else {
        [(CSSTableView *)object scrollToRowAtIndexPath:nil atScrollPosition:0 animated:NO];
    }
}
long css_indexed_view_scrolls(void *view, long *last) {
    CSSIndexedView *object = (CSS_BRIDGE CSSIndexedView *)view;
    if (last != NULL) {
        last[0] = object->lastSection; last[1] = object->lastIndex; last[2] = object->lastPosition;
        last[3] = object->lastAnimated ? 1 : 0;
    }
    return object->scrolls;
}

// MARK: Auto Layout (like UIView, UILayoutGuide, NSLayoutAnchor and NSLayoutConstraint activation)

/// Like UIView, for its place in a hierarchy: `superview` (not retained, as UIKit's is not the subview's to own).
@interface CSSLayoutView : NSObject {
@public
    id superview;
}
- (id)superview;
@end
@implementation CSSLayoutView
- (id)superview { return superview; }
@end

/// Like UILayoutGuide: an owning view, no superview.
@interface CSSLayoutGuide : NSObject {
@public
    id owningView;
}
- (id)owningView;
@end
@implementation CSSLayoutGuide
- (id)owningView { return owningView; }
@end

/// Like NSLayoutXAxisAnchor's description: <CSSLayoutAnchor:0x... "CSSLayoutView:0x....leading">.
@interface CSSLayoutAnchor : NSObject {
@public
    id item;
    const char *name;
}
@end
@implementation CSSLayoutAnchor
- (NSString *)description {
    return [NSString stringWithFormat:@"<%@:%p \"%@:%p.%s\">", NSStringFromClass([self class]), (void *)self,
                                      NSStringFromClass([item class]), (CSS_BRIDGE void *)item, name];
}
@end

static id css_layout_root(id item) {
    if ([item isKindOfClass:[CSSLayoutGuide class]]) item = ((CSSLayoutGuide *)item)->owningView;
    if (![item isKindOfClass:[CSSLayoutView class]]) return nil;
    while (((CSSLayoutView *)item)->superview != nil) item = ((CSSLayoutView *)item)->superview;
    return item;
}

/// Like NSLayoutConstraint: activation adds it to the closest common ancestor of its items and raises UIKit's
/// NSGenericException when there is none; `+activateConstraints:` activates in order and raises at the first such
/// constraint, after activating those before it.
@interface CSSLayoutConstraint : NSObject {
@public
    id firstItem, secondItem;
    CSSLayoutAnchor *firstAnchor, *secondAnchor;
    BOOL active;
}
- (id)firstItem;
- (id)secondItem;
- (id)firstAnchor;
- (id)secondAnchor;
- (void)setActive:(BOOL)value;
+ (void)activateConstraints:(NSArray *)constraints;
@end
@implementation CSSLayoutConstraint
- (void)dealloc {
    CSS_RELEASE(firstAnchor);
    CSS_RELEASE(secondAnchor);
    CSS_SUPER_DEALLOC();
}
- (id)firstItem { return firstItem; }
- (id)secondItem { return secondItem; }
- (id)firstAnchor { return firstAnchor; }
- (id)secondAnchor { return secondAnchor; }
- (void)activate {
    if (secondItem != nil && css_layout_root(firstItem) != css_layout_root(secondItem)) {
        [NSException raise:@"NSGenericException"
                    format:@"Unable to activate constraint with anchors %@ and %@ because they have no common ancestor.  "
                           @"Does the constraint or its anchors reference items in different view hierarchies?  "
                           @"That's illegal.", firstAnchor, secondAnchor];
    }
    active = YES;
}
- (void)setActive:(BOOL)value {
    if (value) [self activate]; else active = NO;
}
+ (void)activateConstraints:(NSArray *)constraints {
    for (NSUInteger i = 0; i < [constraints count]; i++) [(CSSLayoutConstraint *)[constraints objectAtIndex:i] activate];
}
@end

void *css_layout_view_new(void *superview) {
    CSSLayoutView *view = [[CSSLayoutView alloc] init];
    view->superview = (CSS_BRIDGE id)superview;
    return (CSS_BRIDGE_RETAINED void *)view;
}
void *css_layout_guide_new(void *owningView) {
    CSSLayoutGuide *guide = [[CSSLayoutGuide alloc] init];
    guide->owningView = (CSS_BRIDGE id)owningView;
    return (CSS_BRIDGE_RETAINED void *)guide;
}
void *css_layout_constraint_new(void *first, void *second) {
    CSSLayoutConstraint *constraint = [[CSSLayoutConstraint alloc] init];
    constraint->firstItem = (CSS_BRIDGE id)first;
    constraint->secondItem = (CSS_BRIDGE id)second;
    constraint->firstAnchor = [[CSSLayoutAnchor alloc] init];
    constraint->firstAnchor->item = (CSS_BRIDGE id)first;
    constraint->firstAnchor->name = "leading";
    if (second != NULL) {
        constraint->secondAnchor = [[CSSLayoutAnchor alloc] init];
        constraint->secondAnchor->item = (CSS_BRIDGE id)second;
        constraint->secondAnchor->name = "trailing";
    }
    return (CSS_BRIDGE_RETAINED void *)constraint;
}
void css_layout_constraint_set_active(void *constraint, bool active) {
    [(CSS_BRIDGE CSSLayoutConstraint *)constraint setActive:active ? YES : NO];
}
bool css_layout_constraint_is_active(void *constraint) { return ((CSS_BRIDGE CSSLayoutConstraint *)constraint)->active; }
void css_layout_activate(void *const *constraints, long count) {
    CSS_POOL_BEGIN
    NSMutableArray *array = [NSMutableArray array];
    for (long i = 0; i < count; i++) [array addObject:(CSS_BRIDGE id)constraints[i]];
    [CSSLayoutConstraint activateConstraints:array];
    CSS_POOL_END
}
