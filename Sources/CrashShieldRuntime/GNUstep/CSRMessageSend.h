// CSRMessageSend.h: GNUstep's message sends in the code before a return address (private to CrashShieldRuntime; the
// Linux proving ground only). Elsewhere the one function answers false.
#ifndef CSR_MESSAGE_SEND_H
#define CSR_MESSAGE_SEND_H

#include "CSRCallStack.h"

#if !defined(__APPLE__) && defined(__x86_64__)
#define CSR_GNU_MESSAGE_SENDS 1
/// GCC's libobjc sends a message in two calls: `objc_msg_lookup(receiver, selector)` answers the IMP, then the IMP is
/// called indirectly (`call *%rax`). When the indirect call that `returnAddress` returns from follows such a lookup
/// (within its function, `function`), marks `out` as a message send and sets its selector when the code shows it: the
/// selector `lea`d (RIP-relative) into `%rsi`, or into a register moved to `%rsi`, before the lookup. true when it
/// is a message send.
bool csr_gnu_message_send_before(const uint8_t *returnAddress, const void *function, CSRCallBefore *out);
#else
static inline bool csr_gnu_message_send_before(const uint8_t *returnAddress, const void *function, CSRCallBefore *out) {
    (void)returnAddress; (void)function; (void)out;
    return false;
}
#endif

#endif
