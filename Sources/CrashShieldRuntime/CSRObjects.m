// CSRObjects.m: object descriptions and autorelease pools (see CSRObjects.h).
#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include <string.h>
#include <stdio.h>
#include "CSRObjects.h"
#include "CSRMemory.h"

// The copies below run on the failure path, on the app's thread, once per stopped call (a report's details are
// built before the rate limit): what -description and -UTF8String autorelease (a new string, GNUstep's
// GSAutoreleasedMemory buffer) goes into a pool of their own, never into the caller's, which a loop without a pool
// never drains (issue 31: KVC's key, 2 objects per stopped call).

void csr_object_describe(CSRObject object, char *buffer, size_t size) {
    if (size == 0) return;
    if (object == NULL) { snprintf(buffer, size, "nil"); return; }
    id value = (CSR_BRIDGE id)object;
    @autoreleasepool {
        NSString *text = nil;
        @try { text = [value description]; } @catch (NSException *ignored) { text = nil; }
        const char *utf8 = [text UTF8String];
        snprintf(buffer, size, "%s", utf8 ? utf8 : class_getName(object_getClass(value)));
    }
}

bool csr_string_copyUTF8(CSRObject string, char *buffer, size_t size) {
    id value = (CSR_BRIDGE id)string;
    if (size == 0 || value == nil || ![value isKindOfClass: [NSString class]]) return false;
    @autoreleasepool {
        const char *utf8 = [(NSString *)value UTF8String];
        snprintf(buffer, size, "%s", utf8 ? utf8 : "");
    }
    return true;
}

CSRObject csr_string_create(const char *utf8) {
    NSString *string = [[NSString alloc] initWithUTF8String: utf8 ? utf8 : ""];
    return CSR_PASS_AUTORELEASED_NEW(string);
}

CSRObject csr_cocoa_error_create(long code, const char *debugDescription) {
    NSString *text = [NSString stringWithUTF8String: debugDescription ? debugDescription : ""];
    NSDictionary *info = [NSDictionary dictionaryWithObject: text ? text : @"" forKey: @"NSDebugDescription"];
    return CSR_PASS_AUTORELEASED([NSError errorWithDomain: NSCocoaErrorDomain code: code userInfo: info]);
}

CSRObject csr_object_copy_autoreleased(CSRObject object) {
    if (!object) return NULL;
    return CSR_PASS_AUTORELEASED_NEW([(CSR_BRIDGE id)object copy]);
}

void csr_with_autorelease_pool(void (*body)(void *context), void *context) {
    @autoreleasepool { body(context); }
}

// Class-cluster samples (csr_cluster_sample_classes, csr_cluster_placeholder_class): CSRClassClusters.h.
