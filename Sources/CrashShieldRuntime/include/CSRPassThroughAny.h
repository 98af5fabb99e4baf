// CSRPassThroughAny.h: pass-throughs for stopped overrides of any argument shape (CSRPassThroughAny.c), where the
// word-only pass-throughs of CSRPassThrough.h cannot pass the arguments on.
#ifndef CSR_PASS_THROUGH_ANY_H
#define CSR_PASS_THROUGH_ANY_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A pass-through for a method of any shape: floating-point, vector and struct arguments, a struct returned in memory,
/// variadic calls. Written in assembly for x86_64 and arm64 (every argument register is saved around the lookup and
/// restored before the jump); NULL on other architectures or when its pool is full.
CSRIMP csr_pass_through_any(CSRClass cls, CSRSelector selector);
/// Whether `implementation` is one of these pass-throughs.
bool csr_is_pass_through_any(CSRIMP implementation);

#ifdef __cplusplus
}
#endif
#endif
