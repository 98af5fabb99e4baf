// CSRNotificationGNUstep.m: what GNUstep's NSNotificationCenter does with deallocated observers (CSRNotification.h).
// A phone never compiles this file: Apple's center forgets them itself (Apple/CSRNotificationApple.m).
#if !defined(__APPLE__)
#include "CSRNotification.h"

static bool csr_emulateAppleCenter;

bool csr_notification_center_forgets_deallocated_observers(void) {
    // GNUstep Base 1.28 keeps a raw pointer and messages a deallocated observer (a post to one crashes: SIGSEGV).
    return csr_emulateAppleCenter;
}

void csr_test_emulateAppleNotificationCenter(bool emulate) { csr_emulateAppleCenter = emulate; }
#endif
