// CSRObjects.h: the few Foundation calls Swift needs to describe objects in reports and to build samples.
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
/// Runs `body(context)` inside a fresh autorelease pool.
void csr_with_autorelease_pool(void (*body)(void *context), void *context);

/// Concrete classes found behind a public class cluster, from real sample instances.
/// `family` is a public class name (NSArray, NSMutableArray, NSDictionary, ...). Writes up to `max` distinct classes
/// (placeholders included) and returns how many. 0 for an unknown family.
int csr_cluster_sample_classes(const char *family, CSRClass *out, int max);

/// Test switch: from now on every family's samples also look up the class named `name`, as they look up the classes
/// clang's constant literals use (NSConstantArray, NSConstantDictionary: CSRClassClusters.m), keeping it where it is a
/// kind of the family. NULL forgets every name added. False when the table is full. Samples already made are not made
/// again (`ClassSamples` keeps them per process).
bool csr_test_cluster_sample_class_named(const char *name);

/// The class `[family alloc]` hands out (a placeholder that `-init...` replaces, or the concrete class itself); the
/// `-init...` methods of a class cluster run there. NULL for an unknown family.
CSRClass csr_cluster_placeholder_class(const char *family);

#ifdef __cplusplus
}
#endif
#endif
