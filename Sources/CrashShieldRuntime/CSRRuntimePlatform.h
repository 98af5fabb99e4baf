// CSRRuntimePlatform.h (private to the runtime layer): what CSRRuntime.m shares with the runtime's platform unit.
// Of the functions CSRRuntime.h declares, those whose forms differ between the runtimes (installing a hook, a
// metaclass's superclass, a class's image, the main thread) are each defined once per runtime, in a whole file:
// Apple/CSRRuntimeApple.m (objc4: what a phone runs) and GNUstep/CSRRuntimeGNUstep.m (GCC's libobjc: the Linux
// proving ground). Each file compiles to nothing on the other runtime.
#ifndef CSR_RUNTIME_PLATFORM_H
#define CSR_RUNTIME_PLATFORM_H

#include <objc/runtime.h>

/// The method `cls` itself defines for `selector` (not one it inherits), or NULL.
Method csr_runtime_own_method(Class cls, SEL selector);

#endif
