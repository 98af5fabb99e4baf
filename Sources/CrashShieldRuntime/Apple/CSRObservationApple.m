// CSRObservationApple.m: the KVO guard's platform answers on Apple (CSRObservationPlatform.h): the code a phone runs.
// GNUstep's are GNUstep/CSRObservationGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#import <objc/runtime.h>
#include "../CSRMemory.h"
#include "../CSRObservationPlatform.h"

void csr_kvo_remove_registration(CSRObject observed, CSRObject observer, CSRObject keyPath, void *context) {
    [(CSR_BRIDGE id)observed removeObserver: (CSR_BRIDGE id)observer forKeyPath: (CSR_BRIDGE NSString *)keyPath
                                    context: context];
}

/// Held by an observed object as an associated object: its -dealloc is the object's end.
@interface CSRKVOEndMark : NSObject {
@public
    uintptr_t _address, _token;
}
@end

@implementation CSRKVOEndMark
- (void)dealloc {
    csr_kvo_ended(_address, _token);
#if !__has_feature(objc_arc)
    [super dealloc];
#endif
}
@end

static char csr_kvo_end_key;

bool csr_kvo_foundation_forgets_dead_observed_objects(void) {
    // Foundation release notes (macOS 10.13, iOS 11), "Relaxed Key-Value Observing Unregistration Requirements":
    // observers still registered when an automatically notifying object's -dealloc returns are removed by KVO
    // instead of raising. objc4 releases associated objects in objc_destructInstance (objc-runtime-new.mm).
    if (@available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, *)) return true;
    return false;
}

void csr_kvo_mark_end(CSRObject object, uintptr_t token) {
    CSRKVOEndMark *mark = [[CSRKVOEndMark alloc] init];
    mark->_address = (uintptr_t)object;
    mark->_token = token;
    // Replacing an earlier mark (an entry handed back while the object lived) ends that mark: its token is stale.
    objc_setAssociatedObject((CSR_BRIDGE id)object, &csr_kvo_end_key, mark, OBJC_ASSOCIATION_RETAIN_NONATOMIC);
    CSR_RELEASE(mark);
}

bool csr_kvo_foundation_raises_for_dead_observed_objects(void) { return true; }

void csr_test_emulateAppleKVO(bool emulate) { (void)emulate; }
void csr_test_kvo_destroyed(uintptr_t address) { (void)address; }
#endif
