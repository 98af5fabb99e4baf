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

#endif
