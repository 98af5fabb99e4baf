// CSRMessageSend.c: GNUstep's message sends in the code before a return address (see CSRMessageSend.h).
#define _GNU_SOURCE 1
#include "CSRMessageSend.h"

#if CSR_GNU_MESSAGE_SENDS
#include <dlfcn.h>
#include <string.h>
#include <unwind.h>
#include "CSRRuntime.h"

/// objc_msg_lookup and objc_msg_lookup_sender, as the unwind tables start them.
static const void *csr_lookups[2];

static void csr_find_lookups(void) {
    if (csr_lookups[0] != NULL) return;
    csr_lookups[1] = dlsym(RTLD_DEFAULT, "objc_msg_lookup_sender");
    csr_lookups[0] = dlsym(RTLD_DEFAULT, "objc_msg_lookup");
}

/// The function a `call rel32` at `code` reaches through its PLT entry (`[endbr64] [bnd] jmp *slot(%rip)`).
static const void *csr_call_target(const uint8_t *code) {
    int32_t offset;
    memcpy(&offset, code + 1, sizeof offset);
    const uint8_t *at = code + 5 + offset;
    // Bytes that only look like a call: their target is read only when the unwind tables cover it (mapped code).
    if (csr_enclosing_function(at + 1) == NULL) return NULL;
    if (at[0] == 0xF3 && at[1] == 0x0F && at[2] == 0x1E && at[3] == 0xFA) at += 4;
    if (at[0] == 0xF2) at += 1;
    if (at[0] != 0xFF || at[1] != 0x25) return at;
    memcpy(&offset, at + 2, sizeof offset);
    const void *const *slot = (const void *const *)(at + 6 + offset);
    if (!csr_address_is_mapped(slot, sizeof *slot, code)) return NULL;
    return *slot;
}

bool csr_gnu_message_send_before(const uint8_t *returnAddress, const void *function, CSRCallBefore *out) {
    csr_find_lookups();
    const uint8_t *floor = (const uint8_t *)function;
    // The lookup's call: E8 and a displacement, within 48 bytes before the indirect call (the arguments' moves).
    const uint8_t *lookup = NULL;
    for (const uint8_t *at = returnAddress - 7; at >= floor && at >= returnAddress - 48; at--) {
        if (at[0] != 0xE8) continue;
        const void *target = csr_call_target(at);
        if (target != NULL && (target == csr_lookups[0] || target == csr_lookups[1])) {
            lookup = at;
            break;
        }
    }
    if (lookup == NULL) return false;
    out->isMessageSend = true;
    // The selector in %rsi (register 6) at the lookup, traced back over the shapes clang and gcc emit: `lea
    // sel(%rip), %rsi`; `lea table(%rip), %rsi; add $offset, %rsi` (clang -O0); a register moved to %rsi (`mov %rN,
    // %rsi`) that a `lea` set, with `add $offset, %rN` in between (clang -O2 keeps a selector in a callee-saved
    // register; gcc steps one through its selector table). Anything else leaves the selector unknown.
    int wanted = 6;
    intptr_t added = 0;
    for (const uint8_t *at = lookup - 3; at >= floor && at >= lookup - 128; at--) {
        uint8_t rex = at[0];
        if ((rex & 0xF8) != 0x48) continue;   // REX.W
        int reg = ((at[2] >> 3) & 7) | ((rex & 4) ? 8 : 0), rm = (at[2] & 7) | ((rex & 1) ? 8 : 0);
        if (at[1] == 0x89 && (at[2] & 0xC0) == 0xC0 && rm == 6 && wanted == 6 && added == 0) {
            wanted = reg;   // mov %rN, %rsi
        } else if ((at[1] == 0x83 || at[1] == 0x81) && (at[2] & 0xF8) == 0xC0 && rm == wanted) {
            int32_t immediate = (int8_t)at[3];   // add $imm8 / $imm32, %rN
            if (at[1] == 0x81) memcpy(&immediate, at + 3, sizeof immediate);
            added += immediate;
        } else if (at[1] == 0x8D && (at[2] & 0xC7) == 0x05 && reg == wanted && at + 7 <= lookup) {
            int32_t offset;   // lea disp(%rip), %rN
            memcpy(&offset, at + 3, sizeof offset);
            const uint8_t *selector = at + 7 + offset + added;
            if (!csr_address_is_mapped(selector, 2 * sizeof(void *), at)) break;
            // A selector of the module's table: registered, GCC's libobjc names it (sel_getName checks its index).
            const char *name = csr_sel_getName(selector);
            if (name != NULL && name[0] != '\0') out->selector = selector;
            break;
        }
    }
    return true;
}
#endif
