// CSRCallStack.c: call stacks and image lookup (see CSRCallStack.h).
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <execinfo.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <unwind.h>
#include <pthread.h>
#include "CSRCallStack.h"
#include "CSRCallStackPlatform.h"
#if defined(__has_feature)
#if __has_feature(ptrauth_calls)
#include <ptrauth.h>
#define CSR_PTRAUTH 1
#endif
#endif

uintptr_t csr_strip_code_pointer(const void *pointer) {
#if CSR_PTRAUTH
    return (uintptr_t)ptrauth_strip(pointer, ptrauth_key_function_pointer);
#else
    return (uintptr_t)pointer;
#endif
}

// MARK: Frame-pointer walk

/// The current thread's stack bounds, found once per thread (`csr_platform_stack_bounds`).
static __thread uintptr_t csr_stack_low, csr_stack_high;

static void csr_find_stack_bounds(void) {
    csr_platform_stack_bounds(&csr_stack_low, &csr_stack_high);
    if (csr_stack_high <= csr_stack_low) csr_stack_low = csr_stack_high = 1;   // unknown: walk nothing
}

int csr_frame_backtrace(void **frames, int max) {
#if defined(__x86_64__) || defined(__aarch64__) || defined(__arm64__)
    if (frames == NULL || max <= 0) return 0;
    if (csr_stack_high == 0) csr_find_stack_bounds();
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    int count = 0;
    // A frame record is {previous frame pointer, return address}. Only records inside this thread's stack, each
    // above the last, are read: a frame without a frame pointer ends the walk, it cannot send it astray.
    while (count < max && fp >= csr_stack_low && fp + 2 * sizeof(uintptr_t) <= csr_stack_high
           && (fp & (sizeof(uintptr_t) - 1)) == 0) {
        const uintptr_t *record = (const uintptr_t *)fp;
        uintptr_t next = record[0], ret = record[1];
        if (ret == 0) break;
        frames[count++] = (void *)csr_strip_code_pointer((const void *)ret);   // arm64e: the saved LR is signed
        if (next <= fp) break;
        fp = next;
    }
    return count;
#else
    return 0;
#endif
}

const void *csr_enclosing_function(const void *address) {
    if (address == NULL) return NULL;
    // The unwinder's own tables (.eh_frame on ELF, __unwind_info on Mach-O) say where each function starts; they are
    // kept in stripped and statically linked binaries alike.
    return (const void *)csr_strip_code_pointer(_Unwind_FindEnclosingFunction((void *)csr_strip_code_pointer(address)));
}

/// Whether the byte at `address` lies in the function that starts at `function`. libgcc looks up the byte before
/// the address it is given (it expects a return address), Apple's libunwind the address itself: one past the byte
/// asked about lands inside its function with both.
static bool csr_in_function(const uint8_t *address, const void *function) {
    return csr_strip_code_pointer(_Unwind_FindEnclosingFunction((void *)(address + 1))) == csr_strip_code_pointer(function);
}

/// The function a direct jump at `code` goes to, when it is one (x86_64: `jmp rel32`, `jmp rel8`; arm64: `b`) and
/// lands on the start of a function; NULL otherwise.
static const void *csr_jump_target(const uint8_t *code) {
    const uint8_t *target = NULL;
#if defined(__x86_64__)
    if (code[0] == 0xE9) {
        int32_t offset;
        memcpy(&offset, code + 1, sizeof offset);
        target = code + 5 + offset;
    } else if (code[0] == 0xEB) {
        target = code + 2 + (int8_t)code[1];
    }
#elif defined(__aarch64__) || defined(__arm64__)
    uint32_t instruction;
    memcpy(&instruction, code, sizeof instruction);
    if ((instruction & 0xFC000000u) == 0x14000000u) {
        int32_t words = (int32_t)(instruction << 6) >> 6;   // imm26, sign-extended
        target = code + (intptr_t)words * 4;
    }
#endif
    if (target == NULL || !csr_in_function(target, target)) return NULL;
    return target;
}

int csr_tail_call_targets(const void *entry, const void **targets, int max) {
    if (entry == NULL || targets == NULL || max <= 0) return 0;
    entry = (const void *)csr_strip_code_pointer(entry);   // arm64e: an IMP is signed; its code is read below
    int count = 0;
    const void *pending[8] = { entry };
    int head = 0, tail = 1;
    while (head < tail && count < max) {
        const void *function = pending[head++];
        if (!csr_in_function((const uint8_t *)function, function)) continue;
        const uint8_t *code = (const uint8_t *)function;
#if defined(__x86_64__)
        const int step = 1, width = 5;
#else
        const int step = 4, width = 4;
#endif
        // A thunk is short: the scan ends at the function's end or after 512 bytes.
        for (int offset = 0; offset + width <= 512 && count < max; offset += step) {
            if (!csr_in_function(code + offset, function)) break;
            const void *target = csr_jump_target(code + offset);
            if (target == NULL || target == entry) continue;
            bool known = false;
            for (int index = 0; index < count; index++) known = known || targets[index] == target;
            if (known) continue;
            targets[count++] = target;
            if (tail < (int)(sizeof pending / sizeof *pending)) pending[tail++] = target;
        }
    }
    return count;
}

bool csr_image_info(const void *address, CSRImageInfo *out) {
    if (out == NULL) return false;
    memset(out, 0, sizeof *out);
    Dl_info info;
    if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) return false;
    out->imagePath = info.dli_fname;
    out->imageBase = (uintptr_t)info.dli_fbase;
    out->slide = (intptr_t)info.dli_fbase;
    out->symbolName = info.dli_sname;
    out->symbolAddress = (uintptr_t)info.dli_saddr;
    csr_platform_image_details(info.dli_fbase, out);
    return true;
}
