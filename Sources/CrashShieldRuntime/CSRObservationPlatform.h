// CSRObservationPlatform.h (private to the runtime layer): what CSRObservation.m shares with its platform units,
// Apple/CSRObservationApple.m (objc4's associated objects end-mark an observed object; Foundation removes a
// registration by its context) and GNUstep/CSRObservationGNUstep.m (no associated objects: the guard watches
// -dealloc, or a test emulates Apple's marks). They define CSRObservation.h's `csr_kvo_remove_registration`,
// `csr_kvo_mark_end`, `csr_kvo_foundation_forgets_dead_observed_objects`,
// `csr_kvo_foundation_raises_for_dead_observed_objects`, `csr_test_emulateAppleKVO` and `csr_test_kvo_destroyed`.
#ifndef CSR_OBSERVATION_PLATFORM_H
#define CSR_OBSERVATION_PLATFORM_H

#include <stdint.h>
#include "CSRObservation.h"

/// Tells the guard (its end handler) that the object at `address`, end-marked with `token`, is gone.
void csr_kvo_ended(uintptr_t address, uintptr_t token);

#endif
