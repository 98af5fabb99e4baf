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
#include "CSRUnwind.h"
#if defined(__APPLE__)
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#endif

int csr_backtrace(void **frames, int max) {
    if (frames == NULL || max <= 0) return 0;
#if defined(__APPLE__)
    // libSystem's backtrace walks the frame-pointer chain (every frame on Apple's arm64 keeps one) and stops at a
    // frame outside the thread's stack: it never reads where a broken frame points.
    return backtrace(frames, max);
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
        frames[count++] = (void *)ret;
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
    return _Unwind_FindEnclosingFunction((void *)address);
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
