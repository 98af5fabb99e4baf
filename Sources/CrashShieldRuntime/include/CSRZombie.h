// CSRZombie.h: the zombie guard's Objective-C half (CSRZombie.m): a zombie class that catches every message, turning
// an object into a zombie and freeing it for real, and the zombie pool.
#ifndef CSR_ZOMBIE_H
#define CSR_ZOMBIE_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Every message a zombie receives is a `CSRIncidentZombie` (CSRIncident.h): answered with nil/0 when the incident
/// path recovers it, which otherwise raises (failing loudly); with no handler registered, an
/// NSInternalInconsistencyException is raised here.
///
/// Gives the zombie class its own dispatch table; call before the first zombie is made.
void csr_zombie_prepare(void);
/// The root class every zombie gets: it has no methods, so every message (retain, release, description, ...)
/// resolves to one implementation that reports the incident.
CSRClass csr_zombie_class(void);
/// Start of that implementation (to find the caller's frame in a call stack).
const void *csr_zombie_message_address(void);
/// Destroys what the runtime keeps for `object` beyond its instance variables (C++/ARC ivars, associated objects,
/// weak references: `objc_destructInstance` on Apple) and sets its class to the zombie class. The memory stays
/// allocated. Call after every `-dealloc` body of its class chain ran, instead of the root `-dealloc`.
void csr_zombie_make(CSRObject object);
/// Frees a zombie's memory for real, as the root `-dealloc` would have. Sends no message to it.
void csr_zombie_free(CSRObject object);

/// The zombie pool: zombies oldest first, bounded in bytes and in count; the oldest is freed for real
/// (`csr_zombie_free`) when a bound would be exceeded. Thread-safe (one mutex). Plain C so that a protected
/// deallocation pays no hashing and no reference counting: admission appends to a ring, eviction pops its head.
typedef struct CSRZombieRecord {
    uintptr_t address;
    CSRClass cls;
    size_t size;
    /// Return addresses where the object was deallocated (innermost first), owned by the pool; NULL when none.
    uintptr_t *stack;
    int stackCount;
} CSRZombieRecord;

/// Frees every zombie, then sets the bounds (0 bytes or 0 count: nothing is kept).
void csr_zombie_pool_configure(size_t maxBytes, size_t maxCount);
/// Keeps the zombie `object` (already made by `csr_zombie_make`), copying `stackCount` frames of `stack`; evicts the
/// oldest while a bound is exceeded.
void csr_zombie_pool_add(CSRObject object, CSRClass cls, size_t size, const uintptr_t *stack, int stackCount);
/// Copies the record of the zombie at `address` into `record` (its stack into `stack`, at most `maxFrames`; the
/// record's `stack` then points there). false when the pool keeps none there. Cold path: scans newest first.
bool csr_zombie_pool_record(uintptr_t address, CSRZombieRecord *record, uintptr_t *stack, int maxFrames);
/// Frees every zombie.
void csr_zombie_pool_drain(void);
/// How many zombies the pool keeps, their instance bytes, and how many were evicted since `configure`.
void csr_zombie_pool_usage(size_t *count, size_t *bytes, size_t *evicted);

#ifdef __cplusplus
}
#endif
#endif
