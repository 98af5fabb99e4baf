// CSRCallStack.h: call stacks and binary images, with what symbolication needs.
#ifndef CSR_CALL_STACK_H
#define CSR_CALL_STACK_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The code address `pointer` points at, as a number to compare with other code addresses. On arm64e (pointer
/// authentication, `__has_feature(ptrauth_calls)`) a C function pointer or an IMP carries a signature in its high
/// bits, and so does a return address saved in a frame record, while the unwind tables, `dladdr` and code read as
/// data give raw addresses: a signed pointer never equals its raw address, and reading code through it faults.
/// This strips the signature (`ptrauth_strip`; the instruction keys' signatures, function pointers' and return
/// addresses' alike, are stripped by the same instruction). Elsewhere it is the pointer itself. Every comparison of
/// an IMP or function pointer with an address from a stack walk or the unwind tables goes through it.
uintptr_t csr_strip_code_pointer(const void *pointer);

/// Fills `frames` with up to `max` return addresses of the current thread, innermost first. Returns the count.
int csr_backtrace(void **frames, int max);

/// Return addresses from the frame-pointer chain, innermost first (the caller of this function first), up to `max`.
/// Cheap (no unwind tables) and exact through code built with frame pointers (all of CrashShield's; everything on
/// Apple's arm64); it stops at the first frame outside this thread's stack or out of order, so a frame built without
/// a frame pointer ends the walk early but never makes it read outside the stack. 0 on other architectures.
int csr_frame_backtrace(void **frames, int max);

/// Start address of the function that contains `address` (an instruction address: pass a return address minus one),
/// from the unwind tables, which stripped and statically linked binaries keep; NULL when no table covers it.
const void *csr_enclosing_function(const void *address);

/// The functions `entry` reaches by a direct tail jump, and those reach in turn (a few levels: an optimized
/// `@convention(c)` closure's thunk jumps to a merged thunk that jumps to the body): where the frame of a replacement
/// written in Swift really is when its entry left none. Writes up to `max` function starts; returns how many. Only
/// jumps inside each function (by its unwind table) that land on a function start count.
int csr_tail_call_targets(const void *entry, const void **targets, int max);

/// How the call that a return address returns from was made (`csr_call_before`).
typedef enum CSRCallKind {
    CSRCallUnknown = 0,    ///< no call instruction recognized before the return address
    CSRCallDirect = 1,     ///< x86_64 `call rel32`, `call *GOT(%rip)`; arm64 `bl`: `target` is the function called
    CSRCallIndirect = 2,   ///< x86_64 `call *reg`/`call *mem`; arm64 `blr` (and arm64e's `blraa`...): no target
} CSRCallKind;

/// The call instruction just before a return address, decoded.
typedef struct CSRCallBefore {
    CSRCallKind kind;
    /// A direct call's function, past a PLT entry or a Mach-O stub (`jmp *GOT(%rip)`; `adrp x16; ldr x16; br x16`):
    /// the function the slot holds. NULL for other calls.
    const void *target;
    /// The call is an Objective-C message send: Apple, a `bl` to `objc_msgSend` or to one of clang's selector stubs
    /// (`objc_msgSend$sel`, Xcode 14); GNUstep, the indirect call of the IMP that `objc_msg_lookup` just answered.
    bool isMessageSend;
    /// The selector the send passes, when the code shows it (the stub's or the preceding `adrp`/`ldr x1` of a selector
    /// reference; GNUstep: the selector `lea`d into `%rsi`); NULL when it does not.
    CSRSelector selector;
} CSRCallBefore;

/// Decodes the call that `returnAddress` (a return address from a stack walk) returns from: whether the caller's
/// frame called the function whose frame is missing (a tail call) or a message send, and which. Reads only code inside
/// the function that contains the return address (and, for a direct call, the callee's first instructions and the
/// GOT slot they name, in the same image). false, and `out->kind == CSRCallUnknown`, when nothing is recognized.
bool csr_call_before(const void *returnAddress, CSRCallBefore *out);

/// Whether [`address`, `address + size`) lies in the image of `sameImageAs` and in memory it maps readable (ELF: one
/// of its PT_LOAD segments; Mach-O: the image), so that reading it cannot fault.
bool csr_address_is_mapped(const void *address, size_t size, const void *sameImageAs);

/// The end of the function that starts at `function` (one past its last byte, by the unwind tables), at most
/// `function + limit`; `function` itself when no table covers it.
const void *csr_function_end(const void *function, size_t limit);

/// A hash of the code of the function [`start`, `end`) that stays the same when the function is built again with
/// other code or data around it: the displacements a linker or another layout changes are masked (x86_64: `call`/`jmp
/// rel32` and RIP-relative operands; arm64: `b`/`bl`, `adrp`/`adr`, literal loads and the page offsets `add`/`ldr`/
/// `str` take from an `adrp` register). Reads at most 1 KB. 0 when there is no code.
uint64_t csr_code_hash(const void *start, const void *end);

/// The binary image an address belongs to.
typedef struct CSRImageInfo {
    const char *imagePath;      ///< never NULL when the call succeeds
    uintptr_t imageBase;        ///< load address of the image
    intptr_t slide;             ///< ASLR slide (Apple: from dyld; elsewhere: the load address)
    bool hasSlide;              ///< whether `slide` is dyld's (Apple); an ELF image reports no slide of its own
    const char *symbolName;     ///< nearest exported symbol, or NULL
    uintptr_t symbolAddress;
    bool hasUUID;               ///< Apple platforms: LC_UUID of the image
    uint8_t uuid[16];
} CSRImageInfo;

/// Describes the image that contains `address`. false when no image does.
bool csr_image_info(const void *address, CSRImageInfo *out);

#ifdef __cplusplus
}
#endif
#endif
