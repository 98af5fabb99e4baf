// CSRException.m: @try/@catch and @throw for Swift callers (see CSRException.h).
#import <Foundation/Foundation.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CSRException.h"
#include "CSRMemory.h"

static void csr_copy(NSString *text, char *buffer, size_t size) {
    const char *utf8 = [text UTF8String];
    snprintf(buffer, size, "%s", utf8 ? utf8 : "");
}

bool csr_exception_describe(CSRObject object, CSRExceptionInfo *info) {
    id exception = (CSR_BRIDGE id)object;
    if (![exception isKindOfClass: [NSException class]]) return false;
    csr_copy([exception name], info->name, sizeof info->name);
    csr_copy([exception reason], info->reason, sizeof info->reason);
    return true;
}

bool csr_try(CSRBody body, void *context, CSRExceptionInfo *caught) {
    bool raised = false;
    @autoreleasepool {
        @try {
            body(context);
        } @catch (id exception) {
            raised = true;
            if (caught && !csr_exception_describe((CSR_BRIDGE CSRObject)exception, caught)) {
                snprintf(caught->name, sizeof caught->name, "%s", "(not an NSException)");
                caught->reason[0] = 0;
            }
        }
    }
    return raised;
}

bool csr_try_filtered(CSRBody body, CSRCaught caught, void *context) {
    @try {
        body(context);
        return false;
    } @catch (id exception) {
        if (caught((CSR_BRIDGE CSRObject)exception, context)) return true;
        @throw;   // a rethrow (objc_exception_rethrow on Apple): Foundation's preprocessor does not run again
    }
}

CSRObject csr_try_object_with_object(CSRObjectWithObjectIMP original, CSRObject receiver, CSRSelector cmd,
                                     CSRObject argument, CSRCaught caught, void *context, bool *ended) {
    *ended = false;
    @try {
        return original(receiver, cmd, argument);
    } @catch (id exception) {
        if (!caught((CSR_BRIDGE CSRObject)exception, context)) @throw;   // a rethrow, as in csr_try_filtered
        *ended = true;
        return NULL;
    }
}

void csr_raise(const char *name, const char *reason) {
    [NSException raise: [NSString stringWithUTF8String: name] format: @"%s", reason];
    abort(); // not reached
}
