// CSSShapes.m: see CSSShapes.h.
#import <Foundation/Foundation.h>
#include <stdarg.h>
#include "CrashShieldScenarios.h"
#include "CSSMemory.h"

// UIKit's rect on Apple platforms (iOS has no NSRect), NSRect on GNUstep: the same four doubles.
#if defined(__APPLE__)
typedef CGRect CSSRect;   // the type only: iOS's Foundation declares it (CFCGTypes.h), not CoreGraphics' functions
#else
typedef NSRect CSSRect;
#endif
static CSSRect CSSMakeRect(double x, double y, double width, double height) {
    CSSRect rect;
    rect.origin.x = x; rect.origin.y = y; rect.size.width = width; rect.size.height = height;
    return rect;
}

@interface CSSShapeBase : NSObject {
@public
    double alpha;
    CSSRect lastRect;
}
- (double)scaled:(double)factor;
- (double)areaOf:(CSSRect)rect;
- (CSSRect)rectScaledBy:(double)factor;
- (double)mixed:(long)a number:(double)b rect:(CSSRect)rect single:(float)c;
- (long)sumOf:(long)count, ...;
- (void)setAlpha:(double)value;
- (void)setNeedsDisplayInRect:(CSSRect)rect;
@end

@implementation CSSShapeBase
- (double)scaled:(double)factor { return 1.5 * factor; }
- (double)areaOf:(CSSRect)rect { return rect.size.width * rect.size.height + rect.origin.x + rect.origin.y; }
- (CSSRect)rectScaledBy:(double)factor { return CSSMakeRect(1 * factor, 2 * factor, 3 * factor, 4 * factor); }
- (double)mixed:(long)a number:(double)b rect:(CSSRect)rect single:(float)c {
    return (double)a + b + rect.origin.x + rect.origin.y + rect.size.width + rect.size.height + (double)c;
}
- (long)sumOf:(long)count, ... {
    va_list list;
    va_start(list, count);
    long sum = 0;
    for (long index = 0; index < count; index++) sum += va_arg(list, long);
    va_end(list);
    return sum;
}
- (void)setAlpha:(double)value { alpha = value; }
- (void)setNeedsDisplayInRect:(CSSRect)rect { lastRect = rect; }
@end

/// Inherits every method.
@interface CSSShapeView : CSSShapeBase
@end
@implementation CSSShapeView
@end

static CSSRect css_rect(CSSShapeRect rect) { return CSSMakeRect(rect.x, rect.y, rect.width, rect.height); }
static CSSShapeRect css_shape(CSSRect rect) {
    CSSShapeRect shape = { rect.origin.x, rect.origin.y, rect.size.width, rect.size.height };
    return shape;
}

double css_shape_scaled(void *object, double factor) { return [(CSS_BRIDGE CSSShapeBase *)object scaled:factor]; }
double css_shape_area(void *object, CSSShapeRect rect) { return [(CSS_BRIDGE CSSShapeBase *)object areaOf:css_rect(rect)]; }
CSSShapeRect css_shape_rect_scaled(void *object, double factor) {
    return css_shape([(CSS_BRIDGE CSSShapeBase *)object rectScaledBy:factor]);
}
double css_shape_mixed(void *object, long a, double b, CSSShapeRect rect, float c) {
    return [(CSS_BRIDGE CSSShapeBase *)object mixed:a number:b rect:css_rect(rect) single:c];
}
long css_shape_sum(void *object, long a, long b, long c) { return [(CSS_BRIDGE CSSShapeBase *)object sumOf:3, a, b, c]; }
void css_shape_set_alpha(void *object, double value) { [(CSS_BRIDGE CSSShapeBase *)object setAlpha:value]; }
double css_shape_alpha(void *object) { return ((CSS_BRIDGE CSSShapeBase *)object)->alpha; }
void css_shape_set_needs_display(void *object, CSSShapeRect rect) {
    [(CSS_BRIDGE CSSShapeBase *)object setNeedsDisplayInRect:css_rect(rect)];
}
CSSShapeRect css_shape_last_rect(void *object) { return css_shape(((CSS_BRIDGE CSSShapeBase *)object)->lastRect); }
