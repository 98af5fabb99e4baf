// CSRMemory.h (private): retain/release that compile under ARC (Apple, SwiftPM's default) and under manual
// reference counting (GCC's libobjc has no ARC).
#ifndef CSR_MEMORY_H
#define CSR_MEMORY_H
#if __has_feature(objc_arc)
#define CSR_RETAIN(x) (x)
#define CSR_RELEASE(x) ((void)0)
#define CSR_AUTORELEASE(x) (x)
#else
#define CSR_RETAIN(x) [(x) retain]
#define CSR_RELEASE(x) [(x) release]
#define CSR_AUTORELEASE(x) [(x) autorelease]
#endif
#endif
