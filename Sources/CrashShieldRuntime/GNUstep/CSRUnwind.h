// CSRUnwind.h: the nongnu libunwind, loaded privately, for the walks that must never read memory they cannot trust
// (private to CrashShieldRuntime; Linux only).
#ifndef CSR_UNWIND_H
#define CSR_UNWIND_H

#if !defined(__APPLE__) && (defined(__x86_64__) || defined(__aarch64__))
/// GNUstep on GCC's libobjc, with the nongnu libunwind (Debian: libunwind8, headers in libunwind-dev), local
/// unwinding only.
#define CSR_UNWIND_AVAILABLE 1
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdbool.h>

/// libunwind's functions, loaded privately (RTLD_LOCAL). Linked like any library it would also export its own
/// `_Unwind_*` functions ahead of libgcc_s, and every exception in the process (libobjc's `_Unwind_RaiseException`,
/// C++'s `_Unwind_Resume`) would go through another unwinder than without CrashShield. Only `unw_*` is used.
typedef struct CSRUnwindFunctions {
    int (*getcontext)(unw_context_t *);
    int (*initLocal)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*procInfo)(unw_cursor_t *, unw_proc_info_t *);
    int (*procInfoByIP)(unw_addr_space_t, unw_word_t, unw_proc_info_t *, void *);
    int (*getReg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
    int (*setReg)(unw_cursor_t *, unw_regnum_t, unw_word_t);
    int (*resume)(unw_cursor_t *);
    int (*setCachingPolicy)(unw_addr_space_t, unw_caching_policy_t);
    unw_addr_space_t *localAddressSpace;
} CSRUnwindFunctions;

/// Filled by `csr_unwind_load`.
extern CSRUnwindFunctions csr_unw;

/// Loads libunwind once (thread-safe); true when every function above is there.
bool csr_unwind_load(void);
#endif

#endif
