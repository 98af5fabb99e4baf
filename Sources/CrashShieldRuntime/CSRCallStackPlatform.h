// CSRCallStackPlatform.h (private to the runtime layer): what CSRCallStack.c asks of the platform. Each runtime's
// answers are a whole file: Apple/CSRCallStackApple.c (libSystem's frame-pointer backtrace, the Mach-O image's UUID:
// what a phone runs) and GNUstep/CSRCallStackGNUstep.c (libunwind's checked walk, ELF images); each compiles to
// nothing on the other platform. `csr_backtrace` (CSRCallStack.h) is defined there too.
#ifndef CSR_CALL_STACK_PLATFORM_H
#define CSR_CALL_STACK_PLATFORM_H

#include "CSRCallStack.h"

/// The calling thread's stack, [`*low`, `*high`); both 0 when unknown.
void csr_platform_stack_bounds(uintptr_t *low, uintptr_t *high);

/// Fills what the platform knows of the image loaded at `header` beyond `dladdr`: its slide and UUID (Mach-O).
void csr_platform_image_details(const void *header, CSRImageInfo *out);

/// Whether every byte of [`start`, `end`) lies in a readable, mapped segment (the caller has checked that both ends lie
/// in one image). Apple: a Mach-O image's segments are mapped back to back, from its header on.
bool csr_platform_range_is_mapped(uintptr_t start, uintptr_t end);

/// Whether the direct call at `call` (arm64: a `bl`, inside `function`) to `callee` (past its stub) sends an
/// Objective-C message as this runtime sends one; if so it sets `out->isMessageSend` and, when the code shows it,
/// `out->selector`.
/// objc4: a `bl` to `objc_msgSend` or to a selector stub (Apple/CSRCallStackApple.c). GCC's libobjc never sends one
/// through a direct call: false.
bool csr_platform_direct_message_send(const void *call, const void *callee, const void *function, CSRCallBefore *out);

/// The indirect call that `returnAddress` returns from (x86_64, inside `function`): sets `out->isMessageSend` and
/// `out->selector` when it calls the IMP a message lookup just answered, as GCC's libobjc sends a message
/// (GNUstep/CSRMessageSend.c). objc4 sends through `objc_msgSend`, a direct call: nothing.
void csr_platform_indirect_message_send(const uint8_t *returnAddress, const void *function, CSRCallBefore *out);

/// Whether the byte at `address` lies in the function that starts at `function` (CSRCallStack.c).
bool csr_in_function(const uint8_t *address, const void *function);

#endif
