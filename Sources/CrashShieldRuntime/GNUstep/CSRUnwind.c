// CSRUnwind.c: loads the nongnu libunwind privately (see CSRUnwind.h).
#include "CSRUnwind.h"

#if CSR_UNWIND_AVAILABLE
#include <dlfcn.h>
#include <pthread.h>

CSRUnwindFunctions csr_unw;
static bool csr_unw_complete;

#define CSR_SYMBOL(name) CSR_SYMBOL_TEXT(name)
#define CSR_SYMBOL_TEXT(name) #name

static void csr_unwind_load_once(void) {
    void *library = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    *(void **)&csr_unw.getcontext = dlsym(library, CSR_SYMBOL(unw_tdep_getcontext));
    *(void **)&csr_unw.initLocal = dlsym(library, CSR_SYMBOL(unw_init_local));
    *(void **)&csr_unw.step = dlsym(library, CSR_SYMBOL(unw_step));
    *(void **)&csr_unw.procInfo = dlsym(library, CSR_SYMBOL(unw_get_proc_info));
    *(void **)&csr_unw.procInfoByIP = dlsym(library, CSR_SYMBOL(unw_get_proc_info_by_ip));
    *(void **)&csr_unw.getReg = dlsym(library, CSR_SYMBOL(unw_get_reg));
    *(void **)&csr_unw.setReg = dlsym(library, CSR_SYMBOL(unw_set_reg));
    *(void **)&csr_unw.resume = dlsym(library, CSR_SYMBOL(unw_resume));
    *(void **)&csr_unw.setCachingPolicy = dlsym(library, CSR_SYMBOL(unw_set_caching_policy));
    csr_unw.localAddressSpace = (unw_addr_space_t *)dlsym(library, CSR_SYMBOL(unw_local_addr_space));
    bool complete = csr_unw.getcontext && csr_unw.initLocal && csr_unw.step && csr_unw.procInfo
        && csr_unw.procInfoByIP && csr_unw.getReg && csr_unw.setReg && csr_unw.resume && csr_unw.setCachingPolicy
        && csr_unw.localAddressSpace;
    // One cache per thread: a walk runs on whichever thread asked, without the global cache's lock.
    if (complete) csr_unw.setCachingPolicy(*csr_unw.localAddressSpace, UNW_CACHE_PER_THREAD);
    __atomic_store_n(&csr_unw_complete, complete, __ATOMIC_RELEASE);
}

bool csr_unwind_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, csr_unwind_load_once);
    return __atomic_load_n(&csr_unw_complete, __ATOMIC_ACQUIRE);
}
#endif
