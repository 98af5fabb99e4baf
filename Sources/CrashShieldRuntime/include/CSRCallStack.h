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

/// The binary image an address belongs to.
typedef struct CSRImageInfo {
    const char *imagePath;      ///< never NULL when the call succeeds
    uintptr_t imageBase;        ///< load address of the image
    intptr_t slide;             ///< ASLR slide (Apple: from dyld; elsewhere: the load address)
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
