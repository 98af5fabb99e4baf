// CSSFamilies.h (private): one table per guard family, and helpers for describing results.
#ifndef CSS_FAMILIES_H
#define CSS_FAMILIES_H
#import <Foundation/Foundation.h>
#include "CrashShieldScenarios.h"

const CSSScenario *css_array_scenarios(int *count);

/// A description of `object` that lives until the current autorelease pool drains ("nil" for nil).
const char *css_describe(id object);
/// printf-style, autoreleased.
const char *css_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

/// Hides a value from the optimizer so a scenario's bad call is really made.
id css_opaque(id object);
NSUInteger css_opaque_index(NSUInteger index);

#endif
