// CSRException.h: Objective-C exceptions, which only Objective-C can raise and catch.
#ifndef CSR_EXCEPTION_H
#define CSR_EXCEPTION_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What an `NSException` said, copied out so Swift can read it after the exception is gone.
typedef struct CSRExceptionInfo {
    char name[128];
    char reason[1024];
} CSRExceptionInfo;

/// The name and reason of a caught exception, when it is an `NSException` (false otherwise).
bool csr_exception_describe(CSRObject exception, CSRExceptionInfo *info);

typedef void (*CSRBody)(void *context);

/// Runs `body(context)` inside `@try` and an autorelease pool. Returns true and fills `caught` when an Objective-C
/// exception (any object, NSException or not) was raised. Never on a hot path: guards check preconditions instead.
bool csr_try(CSRBody body, void *context, CSRExceptionInfo *caught);

typedef bool (*CSRCaught)(CSRObject exception, void *context);

/// Runs `body(context)` inside `@try`. An exception is handed to `caught(exception, context)`: true ends it there
/// (returns true), false raises the same exception object on. Returns false when nothing was raised.
bool csr_try_filtered(CSRBody body, CSRCaught caught, void *context);

typedef CSRObject (*CSRObjectWithObjectIMP)(CSRObject receiver, CSRSelector cmd, CSRObject argument);

/// `original(receiver, cmd, argument)` inside `@try`, with no frame but this one between the `@try` and the original
/// (an exception unwinds no Swift frame, whose releases it would skip). Returns what the original answered. When it
/// raises, `caught(exception, context)` decides while the exception is caught: true ends it there (NULL is returned
/// and `*ended` set), false raises the same exception object on. No ownership changes hands here: the answer is the
/// original's, as the original gave it.
CSRObject csr_try_object_with_object(CSRObjectWithObjectIMP original, CSRObject receiver, CSRSelector cmd,
                                     CSRObject argument, CSRCaught caught, void *context, bool *ended);

/// Raises an `NSException` with `name` and `reason`, as Foundation would.
void csr_raise(const char *name, const char *reason) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif
#endif
