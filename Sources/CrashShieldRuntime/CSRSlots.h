// CSRSlots.h (private to the runtime layer): what the pools of per-slot trampolines share (CSRHotReads.m,
// CSRCheckFirst.c). A pool holds one trampoline per slot of a hook table; each reads `originals[slot]` directly.
#ifndef CSR_SLOTS_H
#define CSR_SLOTS_H

#include "CSRHookTable.h"

/// Slots with a trampoline of their own, per pool (past them, the hook point's generic replacement).
#define CSR_SLOT_POOL_SIZE 32

/// `X(arguments..., slot)` for each slot of a pool.
#define CSR_SLOTS(X, ...)                                                                                       \
    X(__VA_ARGS__, 0) X(__VA_ARGS__, 1) X(__VA_ARGS__, 2) X(__VA_ARGS__, 3) X(__VA_ARGS__, 4) X(__VA_ARGS__, 5) \
    X(__VA_ARGS__, 6) X(__VA_ARGS__, 7) X(__VA_ARGS__, 8) X(__VA_ARGS__, 9) X(__VA_ARGS__, 10)                  \
    X(__VA_ARGS__, 11) X(__VA_ARGS__, 12) X(__VA_ARGS__, 13) X(__VA_ARGS__, 14) X(__VA_ARGS__, 15)              \
    X(__VA_ARGS__, 16) X(__VA_ARGS__, 17) X(__VA_ARGS__, 18) X(__VA_ARGS__, 19) X(__VA_ARGS__, 20)              \
    X(__VA_ARGS__, 21) X(__VA_ARGS__, 22) X(__VA_ARGS__, 23) X(__VA_ARGS__, 24) X(__VA_ARGS__, 25)              \
    X(__VA_ARGS__, 26) X(__VA_ARGS__, 27) X(__VA_ARGS__, 28) X(__VA_ARGS__, 29) X(__VA_ARGS__, 30)              \
    X(__VA_ARGS__, 31)

/// The pool's table of addresses: `static const CSRIMP name_pool[] = { CSR_SLOTS(CSR_POOL_ENTRY, name) };`.
#define CSR_POOL_ENTRY(NAME, SLOT) (CSRIMP)NAME##_##SLOT,

#endif
