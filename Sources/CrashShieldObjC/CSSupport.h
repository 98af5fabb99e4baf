// CSSupport.h (private): what the Objective-C API's files share: memory management that compiles under ARC (Apple)
// and manual reference counting (GNUstep on GCC's libobjc, which has no ARC), blocks, contexts handed to Swift, errors.
#import <Foundation/Foundation.h>
#import "CSTypes.h"
// The runtime layer's macros (header-only): CSR_BRIDGE, CSR_RETAIN, CSR_RELEASE, CSR_AUTORELEASE.
#include "../CrashShieldRuntime/include/CSRTypes.h"
#include "../CrashShieldRuntime/CSRMemory.h"

#if __has_feature(objc_arc)
#define CS_SUPER_DEALLOC() ((void)0)
/// An object handed to Swift as a context (+1) and the function Swift calls when done with it.
#define CS_RETAINED_CONTEXT(object) ((__bridge_retained void *)(object))
#define CS_CONTEXT_OBJECT(context) ((__bridge id)(context))
/// A heap copy of a block, owned by the caller.
#define CS_BLOCK_COPY(block) [(block) copy]
#define CS_BLOCK_RELEASE(block) ((void)0)
#else
#import <Block.h>
#define CS_SUPER_DEALLOC() [super dealloc]
#define CS_RETAINED_CONTEXT(object) ((void *)[(object) retain])
#define CS_CONTEXT_OBJECT(context) ((id)(context))
// GNUstep on GCC's libobjc: a block is not an Objective-C object there (libBlocksRuntime's block classes are unknown
// to the runtime): never message it (no -copy, no collections); Block_copy/Block_release only. That runtime also does
// not retain the objects a copied block captures (Apple's does).
#define CS_BLOCK_COPY(block) Block_copy(block)
#define CS_BLOCK_RELEASE(block) Block_release(block)
#endif

NS_ASSUME_NONNULL_BEGIN

/// Releases a context made with CS_RETAINED_CONTEXT: the release function handed to Swift.
void CSReleaseContext(void *_Nullable context);

/// NO, with `*error` (when given) for `status` and Swift's malloc'd `message` (freed here); YES for status 0.
BOOL CSBridgeResult(int32_t status, char *_Nullable message, NSError *_Nullable *_Nullable error);
/// NO, with `*error` (when given): CSErrorInvalidArgument and `text`.
BOOL CSInvalidArgument(NSString *text, NSError *_Nullable *_Nullable error);

/// Holds one copied block (of any type) for as long as it lives: the context the Swift side calls it with.
@interface CSBlockBox : NSObject {
@public
    id _block;
}
- (instancetype)initWithBlock:(id)block;
@end

NS_ASSUME_NONNULL_END
