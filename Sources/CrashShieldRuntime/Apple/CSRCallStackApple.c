// CSRCallStackApple.c: CSRCallStack.c's platform answers on Apple platforms (CSRCallStackPlatform.h): the code a
// phone runs. GNUstep's are GNUstep/CSRCallStackGNUstep.c.
#if defined(__APPLE__)
#include <execinfo.h>
#include <mach-o/dyld.h>
#include <mach-o/loader.h>
#include <pthread.h>
#include <string.h>
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
