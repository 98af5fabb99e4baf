// CSRFrameNames.h: names a call site's function from the Objective-C runtime (CSRFrameNames.m).
#ifndef CSR_FRAME_NAMES_H
#define CSR_FRAME_NAMES_H

#include "CSRTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Names the function that starts at `start` (a function start from the unwind tables, e.g. the call site's) when it
/// is an Objective-C method of a class of the image at `imagePath`: writes "-[Class selector]" (or "+[...]") to
/// `out`. The runtime knows these names on a device whose app binary has no symbols; a C or Swift function has none
/// there (false).
bool csr_method_name_for_function(uintptr_t start, const char *imagePath, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
