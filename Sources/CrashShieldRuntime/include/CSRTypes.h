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

#if defined(__OBJC__)
#define CSR_BRIDGE __bridge
#else
#define CSR_BRIDGE
#endif

#endif
