// CSRLifetime.h: what the lifetime guards need from Objective-C: a zombie class that catches every message, turning
// an object into a zombie and freeing it for real (CSRZombie.m), and running a call on the main thread later
// (CSRMainThread.m).
#ifndef CSR_LIFETIME_H
#define CSR_LIFETIME_H

#include "CSRTypes.h"
#include "CSRHookTable.h"

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Zombies

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

// MARK: Main-thread calls

/// How a method's arguments are kept until it runs on the main thread. Methods return void.
typedef enum CSRCallShape {
    CSRCallShapeNone = 0,    ///< no argument
    CSRCallShapeObject = 1,  ///< one object argument (retained until the call)
    CSRCallShapeWord = 2,    ///< one integer or BOOL argument (copied)
    CSRCallShapeDouble = 3,  ///< one double argument (copied)
    CSRCallShapeRect = 4,    ///< one CGRect / NSRect (four doubles, copied)
} CSRCallShape;

/// Same layout and calling convention as CGRect / NSRect.
typedef struct CSRRect {
    double x, y, width, height;
} CSRRect;

/// The shape of a method with type encoding `types`, or -1 when it cannot be run later (a return value, several
/// arguments, an argument of another kind).
int csr_call_shape(const char *types);

/// The main-thread guard's replacements, one per shape (Swift): the trampolines below continue in them.
void csr_main_set_fallbacks(CSRIMP none, CSRIMP object, CSRIMP word, CSRIMP number, CSRIMP rect);
/// A trampoline for the class whose original implementation sits in `slot` of `table` (a method of `shape`): on the
/// main thread it jumps straight to that original; otherwise, or when the hook only added an override (original
/// 0), it jumps to the shape's fallback, so the fallback's caller is the app's frame. The same trampoline for the
/// same table, slot and shape; NULL when every trampoline of the shape is taken (install the fallback then). The rect
/// shape's trampolines call instead of jumping (CSRMainThread.m says why) and so keep a frame.
CSRIMP csr_main_trampoline(CSRCallShape shape, const CSRHookTable *table, long slot);
/// Whether the function starting at `start` is a main-thread trampoline that keeps a frame: a hand-over, not a call
/// site.
bool csr_main_is_trampoline(uintptr_t start);

/// Runs `implementation` on `receiver` with `argument` (a pointer to the argument's bytes; NULL for none) on the
/// main thread, asynchronously. The receiver and an object argument are retained until then; other arguments are
/// copied now. Apple: the main dispatch queue; GNUstep: the main thread's run loop (which must run).
void csr_call_on_main(CSRObject receiver, CSRSelector selector, CSRIMP implementation, CSRCallShape shape,
                      const void *argument);


#ifdef __cplusplus
}
#endif
#endif
