// CSRCallStackApple.c: CSRCallStack.c's platform answers on Apple platforms (CSRCallStackPlatform.h): the code a
// phone runs. GNUstep's are GNUstep/CSRCallStackGNUstep.c.
#if defined(__APPLE__)
#include <execinfo.h>
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#include <pthread.h>
#include <string.h>
#include <objc/message.h>
#include "../CSRCallStackPlatform.h"

int csr_backtrace(void **frames, int max) {
    if (frames == NULL || max <= 0) return 0;
    // libSystem's backtrace walks the frame-pointer chain (every frame on Apple's arm64 keeps one) and stops at a
    // frame outside the thread's stack: it never reads where a broken frame points. Its addresses are compared with
    // the unwind tables' and dladdr's: raw, whatever libSystem leaves of a signature.
    int count = backtrace(frames, max);
    for (int index = 0; index < count; index++) frames[index] = (void *)csr_strip_code_pointer(frames[index]);
    return count;
}

void csr_platform_stack_bounds(uintptr_t *low, uintptr_t *high) {
    pthread_t self = pthread_self();
    *high = (uintptr_t)pthread_get_stackaddr_np(self);
    *low = *high - pthread_get_stacksize_np(self);
}

bool csr_platform_range_is_mapped(uintptr_t start, uintptr_t end) {
    (void)start;
    (void)end;
    return true;   // a Mach-O image's segments are mapped back to back, from its header on
}

/// Reads LC_UUID from a loaded Mach-O header and finds its slide.
void csr_platform_image_details(const void *header, CSRImageInfo *out) {
    uint32_t count = _dyld_image_count();
    for (uint32_t i = 0; i < count; i++) {
        if ((const void *)_dyld_get_image_header(i) == header) {
            out->slide = _dyld_get_image_vmaddr_slide(i);
            out->hasSlide = true;
            break;
        }
    }
    const struct mach_header_64 *mh = (const struct mach_header_64 *)header;
    if (mh->magic != MH_MAGIC_64) return;
    const uint8_t *cursor = (const uint8_t *)(mh + 1);
    for (uint32_t i = 0; i < mh->ncmds; i++) {
        const struct load_command *command = (const struct load_command *)cursor;
        if (command->cmd == LC_UUID) {
            memcpy(out->uuid, ((const struct uuid_command *)command)->uuid, 16);
            out->hasUUID = true;
            return;
        }
        cursor += command->cmdsize;
    }
}

// MARK: Message sends

#if defined(__aarch64__) || defined(__arm64__)
/// The selector reference an `adrp xN, ref@PAGE; ldr x1, [xN, ref@PAGEOFF]` pair at `load` (the `ldr`) reads, when
/// the `adrp` is one of the `window` instructions before it; NULL otherwise.
static CSRSelector csr_arm64_selector_load(const uint32_t *load, const uint32_t *floor) {
    uint32_t ldr = *load;
    unsigned base = (ldr >> 5) & 31;
    for (const uint32_t *at = load - 1; at >= floor && at > load - 8; at--) {
        if ((*at & 0x9F00001Fu) != (0x90000000u | base)) continue;
        uint64_t immlo = (*at >> 29) & 3, immhi = (*at >> 5) & 0x7FFFF;
        int64_t pages = (int64_t)((immhi << 2 | immlo) << 43) >> 31;
        uintptr_t page = ((uintptr_t)at & ~(uintptr_t)0xFFF) + (uintptr_t)pages;
        const CSRSelector *ref = (const CSRSelector *)(page + ((ldr >> 10) & 0xFFF) * 8);
        // A selector reference of the calling image (__objc_selrefs), fixed up by dyld to the unique selector.
        if (!csr_address_is_mapped(ref, sizeof *ref, load)) return NULL;
        return *ref;
    }
    return NULL;
}

/// arm64: a `bl` to `objc_msgSend` (or a selector stub, `adrp x1; ldr x1; ...`, which ends in `objc_msgSend`). The
/// selector: the stub's, or the `ldr x1` of a selector reference among the few instructions before the `bl`, when
/// nothing else writes x1 in between.
static bool csr_arm64_message_send(const uint32_t *call, const void *callee, const void *function,
                                   CSRCallBefore *out) {
    uint32_t stub[2];
    memcpy(stub, callee, sizeof stub);
    if ((stub[0] & 0x9F00001Fu) == 0x90000001u && (stub[1] & 0xFFC003FFu) == 0xF9400021u) {
        out->isMessageSend = true;   // clang's objc_msgSend$<selector> stub (__objc_stubs)
        out->selector = csr_arm64_selector_load((const uint32_t *)callee + 1, (const uint32_t *)callee);
        return true;
    }
    if (callee != (const void *)csr_strip_code_pointer((const void *)objc_msgSend)) return false;
    out->isMessageSend = true;
    for (const uint32_t *at = call - 1; at > call - 12 && csr_in_function((const uint8_t *)at, function); at--) {
        uint32_t instruction = *at;
        if ((instruction & 0xFFC0001Fu) == 0xF9400001u) {   // ldr x1, [xN, #imm]
            out->selector = csr_arm64_selector_load(at, (const uint32_t *)function);
            return true;
        }
        // Anything else that names x1 as its destination (or a branch): the selector is not shown.
        if ((instruction & 0x1Fu) == 1 || (instruction & 0x7C000000u) == 0x14000000u) return true;
    }
    return true;
}
#endif

bool csr_platform_direct_message_send(const void *call, const void *callee, const void *function, CSRCallBefore *out) {
#if defined(__aarch64__) || defined(__arm64__)
    return csr_arm64_message_send((const uint32_t *)call, callee, function, out);
#else
    (void)call; (void)callee; (void)function; (void)out;
    return false;   // asked only by the arm64 decoding
#endif
}

void csr_platform_indirect_message_send(const uint8_t *returnAddress, const void *function, CSRCallBefore *out) {
    (void)returnAddress; (void)function; (void)out;   // objc4 sends through objc_msgSend, a direct call
}
#endif
