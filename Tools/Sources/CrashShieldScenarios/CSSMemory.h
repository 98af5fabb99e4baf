// CSSMemory.h (private): retain, release and pools for scenario code that builds under ARC (Apple) and under manual
// reference counting (GCC's libobjc here), the same ownership under both.
#ifndef CSS_MEMORY_H
#define CSS_MEMORY_H
#if __has_feature(objc_arc)
#define CSS_BRIDGE __bridge
#define CSS_BRIDGE_RETAINED __bridge_retained
#define CSS_SUPER_DEALLOC() ((void)0)
#define CSS_RELEASE(x) ((void)(x))
#define CSS_RETAIN(x) (x)
#define CSS_AUTORELEASE(x) (x)
#define CSS_POOL_BEGIN @autoreleasepool {
#define CSS_POOL_END }
#else
#define CSS_BRIDGE
#define CSS_BRIDGE_RETAINED
#define CSS_SUPER_DEALLOC() [super dealloc]
#define CSS_RELEASE(x) [(x) release]
#define CSS_RETAIN(x) [(x) retain]
#define CSS_AUTORELEASE(x) [(x) autorelease]
#define CSS_POOL_BEGIN { NSAutoreleasePool *css_pool = [[NSAutoreleasePool alloc] init];
#define CSS_POOL_END CSS_RELEASE(css_pool); }
#endif
#endif
