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

/// The same as `csr_try_object_with_object` for the other shapes a hook runs under `@try` (NSFileHandle's legacy
/// methods, `+[NSPredicate predicateWithFormat:arguments:]`): the original with no frame but this one between the
/// `@try` and it; `caught` decides while the exception is caught (true: ended, `*ended` set, 0/NULL returned; false:
/// the same exception object is raised on). The original's answer is returned as it gave it (no ownership change).
typedef void (*CSRVoidIMP)(CSRObject receiver, CSRSelector cmd);
typedef void (*CSRVoidWithObjectIMP)(CSRObject receiver, CSRSelector cmd, CSRObject argument);
typedef void (*CSRVoidWithWordIMP)(CSRObject receiver, CSRSelector cmd, unsigned long long argument);
typedef unsigned long long (*CSRWordIMP)(CSRObject receiver, CSRSelector cmd);
typedef CSRObject (*CSRObjectIMP)(CSRObject receiver, CSRSelector cmd);
typedef CSRObject (*CSRObjectWithWordIMP)(CSRObject receiver, CSRSelector cmd, unsigned long argument);
typedef CSRObject (*CSRObjectWithObjectObjectIMP)(CSRObject receiver, CSRSelector cmd, CSRObject first,
                                                  CSRObject second);
typedef CSRObject (*CSRObjectWithObjectVaListIMP)(CSRObject receiver, CSRSelector cmd, CSRObject argument,
                                                  void *arguments);
void csr_try_void(CSRVoidIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught, void *context,
                  bool *ended);
void csr_try_void_with_object(CSRVoidWithObjectIMP original, CSRObject receiver, CSRSelector cmd, CSRObject argument,
                              CSRCaught caught, void *context, bool *ended);
void csr_try_void_with_word(CSRVoidWithWordIMP original, CSRObject receiver, CSRSelector cmd,
                            unsigned long long argument, CSRCaught caught, void *context, bool *ended);
unsigned long long csr_try_word(CSRWordIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught,
                                void *context, bool *ended);
CSRObject csr_try_object(CSRObjectIMP original, CSRObject receiver, CSRSelector cmd, CSRCaught caught, void *context,
                         bool *ended);
CSRObject csr_try_object_with_word(CSRObjectWithWordIMP original, CSRObject receiver, CSRSelector cmd,
                                   unsigned long argument, CSRCaught caught, void *context, bool *ended);
CSRObject csr_try_object_with_object_object(CSRObjectWithObjectObjectIMP original, CSRObject receiver, CSRSelector cmd,
                                            CSRObject first, CSRObject second, CSRCaught caught, void *context,
                                            bool *ended);
/// `arguments`, a `va_list`, is handed on untouched as the one word it is in a call on every supported ABI (arm64
/// Darwin: a `char *`; x86_64: an array that decays to a pointer; AAPCS64's struct goes by reference), and read
/// once, by the original.
CSRObject csr_try_object_with_object_va_list(CSRObjectWithObjectVaListIMP original, CSRObject receiver,
                                             CSRSelector cmd, CSRObject argument, void *arguments,
                                             CSRCaught caught, void *context, bool *ended);

/// Raises an `NSException` with `name` and `reason`, as Foundation would.
void csr_raise(const char *name, const char *reason) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif
#endif
