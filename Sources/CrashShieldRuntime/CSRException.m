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
    // A pool of its own: the recovery of a raised hot read copies the exception on the app's thread, once per stopped
    // call; -UTF8String's buffers (GSAutoreleasedMemory on GNUstep) must not pile up in the caller's pool.
    @autoreleasepool {
        csr_copy([exception name], info->name, sizeof info->name);
        csr_copy([exception reason], info->reason, sizeof info->reason);
    }
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

/// One `@try` shape (CSRException.h): `CALL` is the original's call; `ZERO` what an ended exception answers. An
/// exception the filter does not take goes on as a rethrow (`@throw;`, as in csr_try_filtered).
#define CSR_TRY_SHAPE(CALL, ZERO)                                                                              \
    *ended = false;                                                                                            \
    @try {                                                                                                     \
        return CALL;                                                                                           \
    } @catch (id exception) {                                                                                  \
        if (!caught((CSR_BRIDGE CSRObject)exception, context)) @throw;                                        \
        *ended = true;                                                                                         \
        return ZERO;                                                                                           \
    }
/// The same for an original that answers nothing.
#define CSR_TRY_VOID_SHAPE(CALL)                                                                               \
    *ended = false;                                                                                            \
    @try {                                                                                                     \
        CALL;                                                                                                  \
    } @catch (id exception) {                                                                                  \
        if (!caught((CSR_BRIDGE CSRObject)exception, context)) @throw;                                        \
        *ended = true;                                                                                         \
    }

void csr_try_void(CSRVoidIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught, void *context,
                  bool *ended) {
    CSR_TRY_VOID_SHAPE(original(receiver, cmd))
}

void csr_try_void_with_object(CSRVoidWithObjectIMP original, CSRObject receiver, CSRSelector cmd, CSRObject argument,
                              CSRCaught caught, void *context, bool *ended) {
    CSR_TRY_VOID_SHAPE(original(receiver, cmd, argument))
}

void csr_try_void_with_word(CSRVoidWithWordIMP original, CSRObject receiver, CSRSelector cmd,
                            unsigned long long argument, CSRCaught caught, void *context, bool *ended) {
    CSR_TRY_VOID_SHAPE(original(receiver, cmd, argument))
}

unsigned long long csr_try_word(CSRWordIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught,
                                void *context, bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd), 0)
}

CSRObject csr_try_object(CSRObjectIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught, void *context,
                         bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd), NULL)
}

CSRObject csr_try_object_with_object(CSRObjectWithObjectIMP original, CSRObject receiver, CSRSelector cmd,
                                     CSRObject argument, CSRCaught caught, void *context, bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd, argument), NULL)
}

CSRObject csr_try_object_with_word(CSRObjectWithWordIMP original, CSRObject receiver, CSRSelector cmd,
                                   unsigned long argument, CSRCaught caught, void *context, bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd, argument), NULL)
}

CSRObject csr_try_object_with_object_object(CSRObjectWithObjectObjectIMP original, CSRObject receiver, CSRSelector cmd,
                                            CSRObject first, CSRObject second, CSRCaught caught, void *context,
                                            bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd, first, second), NULL)
}

CSRObject csr_try_object_with_object_va_list(CSRObjectWithObjectVaListIMP original, CSRObject receiver,
                                             CSRSelector cmd, CSRObject argument, void *arguments,
                                             CSRCaught caught, void *context, bool *ended) {
    CSR_TRY_SHAPE(original(receiver, cmd, argument, arguments), NULL)
}

void csr_raise(const char *name, const char *reason) {
    [NSException raise: [NSString stringWithUTF8String: name] format: @"%s", reason];
    abort(); // not reached
}
