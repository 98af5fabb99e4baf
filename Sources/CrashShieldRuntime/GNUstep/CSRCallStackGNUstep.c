// CSRCallStackGNUstep.c: CSRCallStack.c's platform answers on Linux (CSRCallStackPlatform.h), GNUstep's proving
// ground. A phone never compiles this file: libSystem's backtrace already walks only the thread's own stack and
// dyld names an image's UUID (Apple/CSRCallStackApple.c).
#if !defined(__APPLE__)
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include "../CSRCallStackPlatform.h"
#include "CSRMessageSend.h"

#if defined(__x86_64__) || defined(__aarch64__)
// The nongnu libunwind (Debian: libunwind8, headers in libunwind-dev), local unwinding only, loaded privately
// (RTLD_LOCAL): linked like any library it would also export its own `_Unwind_*` functions ahead of libgcc_s, and
// every exception in the process (libobjc's `_Unwind_RaiseException`, C++'s `_Unwind_Resume`) would go through
// another unwinder than without CrashShield. Only `unw_*` is used.
#define UNW_LOCAL_ONLY
#include <libunwind.h>

static struct {
    int (*getcontext)(unw_context_t *);
    int (*initLocal)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*getReg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
    int (*setCachingPolicy)(unw_addr_space_t, unw_caching_policy_t);
    unw_addr_space_t *localAddressSpace;
} csr_unw;
static bool csr_unw_complete;

#define CSR_SYMBOL(name) CSR_SYMBOL_TEXT(name)
#define CSR_SYMBOL_TEXT(name) #name

static void csr_unwind_load_once(void) {
    void *library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    *(void **)&csr_unw.getcontext = dlsym(library, CSR_SYMBOL(unw_tdep_getcontext));
    *(void **)&csr_unw.initLocal = dlsym(library, CSR_SYMBOL(unw_init_local));
    *(void **)&csr_unw.step = dlsym(library, CSR_SYMBOL(unw_step));
    *(void **)&csr_unw.getReg = dlsym(library, CSR_SYMBOL(unw_get_reg));
    *(void **)&csr_unw.setCachingPolicy = dlsym(library, CSR_SYMBOL(unw_set_caching_policy));
    csr_unw.localAddressSpace = (unw_addr_space_t *)dlsym(library, CSR_SYMBOL(unw_local_addr_space));
    bool complete = csr_unw.getcontext && csr_unw.initLocal && csr_unw.step && csr_unw.getReg
        && csr_unw.setCachingPolicy && csr_unw.localAddressSpace;
    // One cache per thread: a walk runs on whichever thread asked, without the global cache's lock.
    if (complete) csr_unw.setCachingPolicy(*csr_unw.localAddressSpace, UNW_CACHE_PER_THREAD);
    __atomic_store_n(&csr_unw_complete, complete, __ATOMIC_RELEASE);
}

/// Loads libunwind once (thread-safe); true when every function above is there.
static bool csr_unwind_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csr_unwind_load_once);
    return __atomic_load_n(&csr_unw_complete, __ATOMIC_ACQUIRE);
}

int csr_backtrace(void **frames, int max) {
    if (frames == NULL || max <= 0) return 0;
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
}
#else
int csr_backtrace(void **frames, int max) { return csr_frame_backtrace(frames, max); }
#endif

void csr_platform_stack_bounds(uintptr_t *low, uintptr_t *high) {
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &base, &size) != 0) { base = NULL; size = 0; }
        pthread_attr_destroy(&attr);
    }
    *low = (uintptr_t)base;
    *high = (uintptr_t)base + size;
}

struct csr_mapped_query { uintptr_t start, end; bool found; };

static int csr_find_segment(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct csr_mapped_query *query = data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_R) == 0) continue;
        uintptr_t low = info->dlpi_addr + segment->p_vaddr, high = low + segment->p_memsz;
        if (query->start >= low && query->end <= high) { query->found = true; return 1; }
    }
    return 0;
}

/// An ELF image's range (what dladdr answers for) may hold unmapped or PROT_NONE gaps between its segments.
bool csr_platform_range_is_mapped(uintptr_t start, uintptr_t end) {
    struct csr_mapped_query query = { start, end, false };
    dl_iterate_phdr(csr_find_segment, &query);
    return query.found;
}

/// ELF images carry no UUID that dyld would name; the slide is the load address (set by csr_image_info).
void csr_platform_image_details(const void *header, CSRImageInfo *out) {
    (void)header;
    (void)out;
}

bool csr_platform_direct_message_send(const void *call, const void *callee, const void *function, CSRCallBefore *out) {
    (void)call; (void)callee; (void)function; (void)out;
    return false;   // GCC's libobjc looks the IMP up, then calls it indirectly
}

void csr_platform_indirect_message_send(const uint8_t *returnAddress, const void *function, CSRCallBefore *out) {
    (void)csr_gnu_message_send_before(returnAddress, function, out);
}
#endif
