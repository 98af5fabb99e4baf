// CrashShieldObjC: CrashShield's Objective-C API (product CrashShieldObjC). `@import CrashShieldObjC;` or
// `#import <CrashShieldObjC.h>`. Swift apps use the Swift API (`import CrashShield`) instead.
#import "CSTypes.h"
#import "CSReport.h"
#import "CSConfiguration.h"
#import "CSShield.h"
#import "NSNotificationCenter+CSThread.h"
#import "NSObject+CSNotificationObservation.h"
