// CSRObjects.h: the few Foundation calls Swift needs to describe objects in reports and to build samples
// (CSRObjects.m).
#ifndef CSR_OBJECTS_H
#define CSR_OBJECTS_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Copies `[object description]` (UTF-8, truncated) into `buffer`; "nil" for nil. Safe for any object.
void csr_object_describe(CSRObject object, char *buffer, size_t size);
/// Copies the UTF-8 contents of an NSString into `buffer`; returns false if `string` is not an NSString.
bool csr_string_copyUTF8(CSRObject string, char *buffer, size_t size);
/// A new NSString from UTF-8 (NULL: the empty string). +0, autoreleased: alive until the current autorelease pool
/// drains (call it inside one; under ARC too, see CSRMemory.h).
CSRObject csr_string_create(const char *utf8);

/// A new NSError in NSCocoaErrorDomain with `code` and `debugDescription` (NSDebugDescription in its userInfo, as
/// Foundation's own JSON errors carry), autoreleased (+0, in the current pool): what a method with an error
/// parameter hands its caller.
CSRObject csr_cocoa_error_create(long code, const char *debugDescription);
/// `[object copy]` handed out at +0, autoreleased (its +1 goes to the current pool): what a method that returns a new
/// object without `copy`/`new` in its name (`arrayByAddingObject:`) hands its caller. NULL for NULL.
CSRObject csr_object_copy_autoreleased(CSRObject object);
/// Runs `body(context)` inside a fresh autorelease pool.
void csr_with_autorelease_pool(void (*body)(void *context), void *context);

#ifdef __cplusplus
}
#endif
#endif
