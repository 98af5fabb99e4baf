// CSRNotificationApple.m: what Apple's NSNotificationCenter does with deallocated observers (CSRNotification.h): the
// code a phone runs. GNUstep's answer is GNUstep/CSRNotificationGNUstep.m.
#if defined(__APPLE__)
#import <Foundation/Foundation.h>
#include "CSRNotification.h"

bool csr_notification_center_forgets_deallocated_observers(void) {
    // Foundation release notes (OS X 10.11, iOS 9): NSNotificationCenter no longer sends notifications to registered
    // selector-based observers that may be deallocated (it holds them as zeroing references). Block-based observers
    // (addObserverForName:object:queue:usingBlock:) still need removal: their token keeps the block alive.
    if (@available(macOS 10.11, iOS 9.0, tvOS 9.0, watchOS 2.0, *)) return true;
    return false;
}

// Nothing to emulate: this is Apple's center.
void csr_test_emulateAppleNotificationCenter(bool emulate) { (void)emulate; }
#endif
