// CSRZombiePlatform.h (private to the runtime layer): what CSRZombie.m asks of the runtime to turn an object into a
// zombie and to free it. Each runtime's answers are a whole file: Apple/CSRZombieApple.m (objc4: what a phone runs)
// and GNUstep/CSRZombieGNUstep.m (GCC's libobjc); each compiles to nothing on the other.
#ifndef CSR_ZOMBIE_PLATFORM_H
#define CSR_ZOMBIE_PLATFORM_H

#include <objc/runtime.h>
#include "CSRTypes.h"

/// The types the selector itself carries, for the zombie method added for it; NULL when it carries none (objc4).
const char *csr_zombie_selector_types(SEL selector);
/// Destroys what the runtime keeps for `object` beyond its instance variables (C++/ARC ivars; on objc4 also
/// associated objects and weak references), then gives it the class `zombie`.
void csr_zombie_destroy_and_set_class(CSRObject object, Class zombie);
/// Gives the zombie `object` the class `corpse` (no destructors) and frees its memory as the root `-dealloc` would.
void csr_zombie_free_as(CSRObject object, Class corpse);

#endif
