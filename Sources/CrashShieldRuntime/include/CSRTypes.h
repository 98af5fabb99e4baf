// CSRTypes.h: the opaque types the runtime layer hands to Swift.
//
// Swift on Linux has no Objective-C interop, and on Apple platforms we want the same code path, so objects, classes
// and selectors cross the boundary as raw pointers. Only the runtime layer looks inside them.
#ifndef CSR_TYPES_H
#define CSR_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// An Objective-C object (`id`), never retained or released by passing it around.
typedef void *CSRObject;
/// An Objective-C class or metaclass (`Class`).
typedef void *CSRClass;
/// An Objective-C selector (`SEL`).
typedef const void *CSRSelector;
/// A method implementation (`IMP`); cast to the real signature before calling.
typedef void (*CSRIMP)(void);

/// Same layout and calling convention as `NSRange` (two `NSUInteger`s).
typedef struct CSRRange {
    unsigned long location;
    unsigned long length;
} CSRRange;

/// Same layout and calling convention as CGRect / NSRect (four doubles).
typedef struct CSRRect {
    double x, y, width, height;
} CSRRect;

#if defined(__OBJC__)
#define CSR_BRIDGE __bridge
#else
#define CSR_BRIDGE
#endif

/// Ownership of an object a function returns as a CSRObject, identical under ARC (Apple) and manual reference
/// counting (here). Every such function's comment says which it is: "+1" (declared CSR_RETURNS_RETAINED: the caller
/// owns it and releases it with `csr_object_release_owned`), "+0, autoreleased" (alive until the current autorelease
/// pool drains) or "+0, borrowed" (kept alive by the object named there). Swift sees raw pointers either way (no
/// Objective-C interop on Linux), so the comment is the contract; the attribute lets the static analyzer check the
/// C side. How the Objective-C layer keeps it: CSRMemory.h, scripts/check-ownership.sh.
#if defined(__has_attribute)
#if __has_attribute(cf_returns_retained)
#define CSR_RETURNS_RETAINED __attribute__((cf_returns_retained))
#endif
#endif
#ifndef CSR_RETURNS_RETAINED
#define CSR_RETURNS_RETAINED
#endif

#endif
