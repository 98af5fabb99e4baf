// CSRForwardingPlatform.h (private to the runtime layer): what CSRForwarding.m asks of the runtime. Each runtime's
// answers are a whole file: Apple/CSRForwardingApple.m (objc4 and CoreFoundation: what a phone runs) and
// GNUstep/CSRForwardingGNUstep.m (GCC's libobjc and GNUstep's forwarding); each compiles to nothing on the other.
// They also define CSRForwarding.h's `csr_sel_getTypes`, `csr_unrecognized_reason`, `csr_forwarding_watchEntry` and
// `csr_test_emulateAppleForwarding`.
#ifndef CSR_FORWARDING_PLATFORM_H
#define CSR_FORWARDING_PLATFORM_H

#import <Foundation/Foundation.h>
#include <objc/runtime.h>
#include "CSRForwarding.h"

/// A SEL as the opaque pointer Swift sees (a plain cast of SEL is deprecated).
CSRSelector csr_sel_opaque(SEL selector);

/// A typed selector of the same name the runtime would pick for an untyped one, or NULL (Apple: selectors carry no
/// types).
SEL csr_forwarding_typed_twin(SEL selector);

/// Calls `visit(context, member)` for each class of the image that defines `cls` (not the image's metaclasses), until
/// it answers false. Apple reads the image's class list without realizing the classes it does not visit.
void csr_forwarding_visit_image_classes(Class cls, bool (*visit)(void *context, Class member), void *context);

#endif
