// CSRUIKit.m: see CSRUIKit.h. Only public methods, sent after respondsToSelector:; no UIKit import (GNUstep has none).
#import <Foundation/Foundation.h>
#include <stdio.h>
#include "CSRUIKit.h"
#include "CSRMemory.h"

/// The public methods asked, as CALayer and UINavigationController declare them (CGPoint has CSRPoint's layout).
@protocol CSRLayerGeometry
- (CSRPoint)anchorPoint;
@end
@protocol CSRNavigationStack
- (NSArray *)viewControllers;
@end

@protocol CSRAlertSheet
- (NSInteger)preferredStyle;
- (id)popoverPresentationController;
@end
@protocol CSRPopoverSource
- (id)sourceView;
- (void)setSourceView:(id)view;
- (id)barButtonItem;
- (id)sourceItem;
- (void)setSourceRect:(CSRRect)rect;
@end
@protocol CSRPresenter
- (id)traitCollection;
- (id)view;
@end
@protocol CSRTraits
- (NSInteger)horizontalSizeClass;
@end
@protocol CSRViewBounds
- (CSRRect)bounds;
@end

/// The popover of an action-sheet alert, or nil (not that class, not an action sheet, no popover).
static id csr_alert_sheet_popover(id alert, Class alertClass) {
    if (alert == nil || alertClass == Nil || ![alert isKindOfClass:alertClass]) return nil;
    if (![alert respondsToSelector:@selector(preferredStyle)] || [(id<CSRAlertSheet>)alert preferredStyle] != 0) return nil;
    if (![alert respondsToSelector:@selector(popoverPresentationController)]) return nil;
    return [(id<CSRAlertSheet>)alert popoverPresentationController];
}

bool csr_alert_sheet_lacks_popover_source(CSRObject presenter, CSRObject presented, CSRClass alertClass) {
    id popover = csr_alert_sheet_popover((CSR_BRIDGE id)presented, (CSR_BRIDGE Class)alertClass);
    if (popover == nil) return false;
    if ([popover respondsToSelector:@selector(sourceView)] && [(id<CSRPopoverSource>)popover sourceView] != nil) return false;
    if ([popover respondsToSelector:@selector(barButtonItem)] && [(id<CSRPopoverSource>)popover barButtonItem] != nil) return false;
    if ([popover respondsToSelector:@selector(sourceItem)] && [(id<CSRPopoverSource>)popover sourceItem] != nil) return false;
    id controller = (CSR_BRIDGE id)presenter;
    if (controller == nil || ![controller respondsToSelector:@selector(traitCollection)]) return false;
    id traits = [(id<CSRPresenter>)controller traitCollection];
    if (traits == nil || ![traits respondsToSelector:@selector(horizontalSizeClass)]) return false;
    return [(id<CSRTraits>)traits horizontalSizeClass] == 2;   // UIUserInterfaceSizeClassRegular
}

bool csr_alert_sheet_use_presenter_view(CSRObject presenter, CSRObject presented) {
    id popover = [(id<CSRAlertSheet>)(CSR_BRIDGE id)presented popoverPresentationController];
    id controller = (CSR_BRIDGE id)presenter;
    if (popover == nil || controller == nil || ![controller respondsToSelector:@selector(view)]) return false;
    id view = [(id<CSRPresenter>)controller view];
    if (view == nil || ![popover respondsToSelector:@selector(setSourceView:)]) return false;
    [(id<CSRPopoverSource>)popover setSourceView:view];
    if ([view respondsToSelector:@selector(bounds)] && [popover respondsToSelector:@selector(setSourceRect:)]) {
        CSRRect bounds = [(id<CSRViewBounds>)view bounds];
        CSRRect centre = { bounds.x + bounds.width / 2, bounds.y + bounds.height / 2, 0, 0 };
        [(id<CSRPopoverSource>)popover setSourceRect:centre];
    }
    return true;
}

CSRPoint csr_layer_anchor_point(CSRObject layer) {
    CSRPoint standard = { 0.5, 0.5 };
    id object = (CSR_BRIDGE id)layer;
    if (object == nil || ![object respondsToSelector:@selector(anchorPoint)]) return standard;
    return [(id<CSRLayerGeometry>)object anchorPoint];
}

bool csr_navigation_stack_contains(CSRObject navigationController, CSRObject controller) {
    id navigation = (CSR_BRIDGE id)navigationController;
    if (navigation == nil || controller == NULL || ![navigation respondsToSelector:@selector(viewControllers)]) return false;
    NSArray *stack = [(id<CSRNavigationStack>)navigation viewControllers];
    if (![stack isKindOfClass:[NSArray class]]) return false;
    return [stack indexOfObjectIdenticalTo:(CSR_BRIDGE id)controller] != NSNotFound;
}

/// What UITableView and UICollectionView answer about their data (their own counts, as UIKit's scroll check reads them).
@protocol CSRIndexedView
- (NSInteger)numberOfSections;
- (NSInteger)numberOfRowsInSection:(NSInteger)section;
- (NSInteger)numberOfItemsInSection:(NSInteger)section;
@end

CSRScrollTarget csr_scroll_target_check(CSRObject view, CSRObject indexPath, bool isTable, CSRScrollFigures *figures) {
    id object = (CSR_BRIDGE id)view, path = (CSR_BRIDGE id)indexPath;
    SEL rows = isTable ? @selector(numberOfRowsInSection:) : @selector(numberOfItemsInSection:);
    if (object == nil || figures == NULL || ![path isKindOfClass:[NSIndexPath class]] || [path length] != 2) {
        return CSRScrollTargetUnjudged;
    }
    if (![object respondsToSelector:@selector(numberOfSections)] || ![object respondsToSelector:rows]) {
        return CSRScrollTargetUnjudged;
    }
    NSUInteger section = [path indexAtPosition:0], index = [path indexAtPosition:1];
    if (isTable && index == NSNotFound) return CSRScrollTargetUnjudged;   // the section itself: UIKit's to judge
    figures->section = (long)section;
    figures->index = (long)index;
    NSInteger sections = [(id<CSRIndexedView>)object numberOfSections];
    if (sections < 0) return CSRScrollTargetUnjudged;
    if (section >= (NSUInteger)sections) {
        figures->count = (long)sections;
        return CSRScrollTargetSectionOutOfBounds;
    }
    NSInteger count = isTable ? [(id<CSRIndexedView>)object numberOfRowsInSection:(NSInteger)section]
                              : [(id<CSRIndexedView>)object numberOfItemsInSection:(NSInteger)section];
    if (count < 0 || index < (NSUInteger)count) return CSRScrollTargetUnjudged;
    figures->count = (long)count;
    return CSRScrollTargetIndexOutOfBounds;
}

/// What UIViewController answers about its place in the presentation chain.
@protocol CSRPresentedController
- (id)presentingViewController;
- (id)parentViewController;
- (BOOL)isBeingDismissed;
@end

CSRObject csr_controller_presented_by(CSRObject controller) {
    id object = (CSR_BRIDGE id)controller;
    if (object == nil || ![object respondsToSelector:@selector(presentingViewController)]
        || ![object respondsToSelector:@selector(parentViewController)]
        || ![object respondsToSelector:@selector(isBeingDismissed)]) {
        return NULL;
    }
    if ([(id<CSRPresentedController>)object parentViewController] != nil) return NULL;
    if ([(id<CSRPresentedController>)object isBeingDismissed]) return NULL;
    return CSR_PASS_BORROWED([(id<CSRPresentedController>)object presentingViewController]);
}

bool csr_navigation_stack_lacks(CSRObject navigationController, CSRObject controller) {
    id navigation = (CSR_BRIDGE id)navigationController, target = (CSR_BRIDGE id)controller;
    if (navigation == nil || target == nil || ![navigation respondsToSelector:@selector(viewControllers)]) return false;
    NSArray *stack = [(id<CSRNavigationStack>)navigation viewControllers];
    if (![stack isKindOfClass:[NSArray class]]) return false;
    return [stack indexOfObjectIdenticalTo:target] == NSNotFound && ![stack containsObject:target];
}

/// What NSLayoutConstraint, UIView and UILayoutGuide answer about a constraint's items and their hierarchy.
@protocol CSRLayoutConstraint
- (id)firstItem;
- (id)secondItem;
- (id)firstAnchor;
- (id)secondAnchor;
- (void)setActive:(BOOL)active;
@end
@protocol CSRLayoutItem
- (id)superview;
- (id)owningView;
@end

/// The topmost ancestor of a layout item (a view: its superview chain; a layout guide: its owning view's), or nil when
/// the item is neither (or a guide without an owning view): not judged.
static id csr_layout_root(id item) {
    if (item != nil && ![item respondsToSelector:@selector(superview)] && [item respondsToSelector:@selector(owningView)]) {
        item = [(id<CSRLayoutItem>)item owningView];
    }
    if (item == nil || ![item respondsToSelector:@selector(superview)]) return nil;
    for (unsigned long depth = 0; depth < 100000; depth++) {
        id parent = [(id<CSRLayoutItem>)item superview];
        if (parent == nil) return item;
        item = parent;
    }
    return nil;
}

bool csr_constraint_lacks_common_ancestor(CSRObject constraint) {
    id object = (CSR_BRIDGE id)constraint;
    if (object == nil || ![object respondsToSelector:@selector(firstItem)] || ![object respondsToSelector:@selector(secondItem)]) {
        return false;
    }
    id first = [(id<CSRLayoutConstraint>)object firstItem], second = [(id<CSRLayoutConstraint>)object secondItem];
    if (first == nil || second == nil) return false;   // one item: its own view holds the constraint
    id firstRoot = csr_layout_root(first), secondRoot = csr_layout_root(second);
    return firstRoot != nil && secondRoot != nil && firstRoot != secondRoot;
}

long csr_constraints_first_lacking_common_ancestor(CSRObject constraints) {
    id array = (CSR_BRIDGE id)constraints;
    if (![array isKindOfClass:[NSArray class]]) return -1;
    NSUInteger count = [(NSArray *)array count];
    for (NSUInteger index = 0; index < count; index++) {
        if (csr_constraint_lacks_common_ancestor((CSR_BRIDGE CSRObject)[(NSArray *)array objectAtIndex:index])) return (long)index;
    }
    return -1;
}

CSRObject csr_constraints_object_at(CSRObject constraints, long index) {
    return CSR_PASS_BORROWED([(NSArray *)(CSR_BRIDGE id)constraints objectAtIndex:(NSUInteger)index]);
}

void csr_constraints_activate_each(CSRObject constraints) {
    NSArray *array = (CSR_BRIDGE NSArray *)constraints;
    NSUInteger count = [array count];
    for (NSUInteger index = 0; index < count; index++) {
        id constraint = [array objectAtIndex:index];
        if (!csr_constraint_lacks_common_ancestor((CSR_BRIDGE CSRObject)constraint)
            && [constraint respondsToSelector:@selector(setActive:)]) {
            [(id<CSRLayoutConstraint>)constraint setActive:YES];
        }
    }
}

void csr_constraint_anchor_description(CSRObject constraint, bool second, char *buffer, unsigned long size) {
    if (buffer == NULL || size == 0) return;
    buffer[0] = 0;
    id object = (CSR_BRIDGE id)constraint;
    SEL selector = second ? @selector(secondAnchor) : @selector(firstAnchor);
    if (object == nil || ![object respondsToSelector:selector]) return;
    id anchor = second ? [(id<CSRLayoutConstraint>)object secondAnchor] : [(id<CSRLayoutConstraint>)object firstAnchor];
    const char *text = [[anchor description] UTF8String];
    snprintf(buffer, size, "%s", text != NULL ? text : "(null)");
}

void csr_format_g(double value, char *buffer, unsigned long size) {
    if (buffer != NULL && size > 0) snprintf(buffer, size, "%g", value);
}
