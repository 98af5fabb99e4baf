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
#include "GNUstep/CSRUnwind.h"   // GNUstep only (its own CSR_UNWIND_AVAILABLE)
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#endif
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

int csr_backtrace(void **frames, int max) {
    if (frames == NULL || max <= 0) return 0;
#if defined(__APPLE__)
    // libSystem's backtrace walks the frame-pointer chain (every frame on Apple's arm64 keeps one) and stops at a
    // frame outside the thread's stack: it never reads where a broken frame points. Its addresses are compared with
    // the unwind tables' and dladdr's: raw, whatever libSystem leaves of a signature.
    int count = backtrace(frames, max);
    for (int index = 0; index < count; index++) frames[index] = (void *)csr_strip_code_pointer(frames[index]);
    return count;
#elif CSR_UNWIND_AVAILABLE
    // Not glibc's backtrace: libgcc's unwinder trusts each return address it computes, and for one that lies in no
    // unwind table it reads the code there (its signal-frame check), so one broken frame (a return address
    // overwritten with a double, code without unwind information) is a SIGSEGV in the app. libunwind, built with
    // its conservative checks (Debian's is), validates every address before it reads it, and a step it cannot
    // make ends the walk.
    if (!csr_unwind_load()) return csr_frame_backtrace(frames, max);
    unw_context_t context;
    unw_cursor_t cursor;
    if (csr_unw.getcontext(&context) != 0 || csr_unw.initLocal(&cursor, &context) != 0) return 0;
    int count = 0;
    do {
        unw_word_t ip = 0;
        if (csr_unw.getReg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
        frames[count++] = (void *)ip;
    } while (count < max && csr_unw.step(&cursor) > 0);
    return count;
#else
    return csr_frame_backtrace(frames, max);
#endif
}

// MARK: Frame-pointer walk

/// The current thread's stack bounds, found once per thread.
static __thread uintptr_t csr_stack_low, csr_stack_high;

static void csr_find_stack_bounds(void) {
#if defined(__APPLE__)
    pthread_t self = pthread_self();
    csr_stack_high = (uintptr_t)pthread_get_stackaddr_np(self);
    csr_stack_low = csr_stack_high - pthread_get_stacksize_np(self);
#else
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &base, &size) != 0) { base = NULL; size = 0; }
        pthread_attr_destroy(&attr);
    }
    csr_stack_low = (uintptr_t)base;
    csr_stack_high = (uintptr_t)base + size;
#endif
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

#if defined(__APPLE__)
/// Reads LC_UUID from a loaded Mach-O header and finds its slide.
static void csr_apple_image_details(const void *header, CSRImageInfo *out) {
    uint32_t count = _dyld_image_count();
    for (uint32_t i = 0; i < count; i++) {
        if ((const void *)_dyld_get_image_header(i) == header) {
            out->slide = _dyld_get_image_vmaddr_slide(i);
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
#endif

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
#if defined(__APPLE__)
    csr_apple_image_details(info.dli_fbase, out);
#endif
    return true;
}
