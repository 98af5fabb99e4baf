// CSTypes.h: the guards, modes and errors of CrashShield's Objective-C API.
#import <Foundation/Foundation.h>

// GNUstep Base does not define Apple's Swift annotations: there they mean nothing.
#ifndef NS_SWIFT_UNAVAILABLE
#define NS_SWIFT_UNAVAILABLE(message)
#endif
/// Not for callers (NS_UNAVAILABLE is empty on GNUstep).
#define CS_UNAVAILABLE __attribute__((unavailable))
/// Objective-C only: a Swift app uses the Swift API (`import CrashShield`).
#define CS_OBJC_ONLY NS_SWIFT_UNAVAILABLE("use CrashShield's Swift API (import CrashShield)")

NS_ASSUME_NONNULL_BEGIN

/// The kinds of crash CrashShield stops, one bit per guard (the same bits as Swift's `GuardCategory`).
typedef NS_OPTIONS(uint32_t, CSGuard) {
    /// Out-of-range and nil arguments to NSArray, NSDictionary, NSSet, NSOrderedSet and their mutable forms.
    CSGuardContainer = 1u << 0,
    /// Out-of-range and nil arguments to NSString, NSMutableString and attributed strings.
    CSGuardString = 1u << 1,
    /// `unrecognized selector sent to instance/class` for the app's own classes.
    CSGuardUnrecognizedSelector = 1u << 2,
    /// Messages to NSNull (a JSON null used as a value).
    CSGuardNSNull = 1u << 3,
    /// Undefined keys, nil keys and nil scalars in key-value coding.
    CSGuardKVC = 1u << 4,
    /// Unbalanced, duplicate and dangling key-value observation.
    CSGuardKVO = 1u << 5,
    /// Notification observers that die or lack their selector.
    CSGuardNotification = 1u << 6,
    /// Timers whose target lacks its selector, or is freed (over-released) while the timer holds it.
    CSGuardTimer = 1u << 7,
    /// Messages to deallocated objects (opt-in: keeps freed memory in a bounded pool).
    CSGuardZombie = 1u << 8,
    /// UI methods called off the main thread.
    CSGuardMainThreadUI = 1u << 9,
    /// Opt-in: UIKit and Core Animation calls that raise (a CALayer given NaN geometry, a view controller pushed twice).
    CSGuardUIKit = 1u << 10,
    /// Every guard.
    CSGuardAll = (1u << 11) - 1,
    /// Every guard but zombies and the UIKit guard: the default.
    CSGuardProductionSafe = CSGuardAll & ~CSGuardZombie & ~CSGuardUIKit,
} CS_OBJC_ONLY;

/// What a guard does when it stops a crash.
typedef NS_ENUM(NSInteger, CSMode) {
    /// Recover (the caller gets nil, 0 or NO; an invalid mutation is skipped) and report.
    CSModeRelease = 0,
    /// Report, then fail exactly as Foundation would, for calls from the app's own code (development builds).
    CSModeDebug = 1,
} CS_OBJC_ONLY;

/// The domain of every NSError CrashShield's Objective-C API returns; `localizedDescription` says what to change.
FOUNDATION_EXPORT NSString *const CSErrorDomain CS_OBJC_ONLY;

/// The codes of `CSErrorDomain`.
typedef NS_ENUM(NSInteger, CSErrorCode) {
    /// `+[CSShield startWithConfiguration:error:]` while running: stop first to apply a new configuration.
    CSErrorAlreadyRunning = 1,
    /// A nil or wrongly typed argument (a nil configuration, a header value that is not a string, a nil name or block).
    CSErrorInvalidArgument = 2,
    /// A guard could not install a hook, or the owner of an observation cannot be watched for deallocation.
    CSErrorFailed = 3,
    /// `+[CSShield setGuard:enabled:error:]` while not running: start first.
    CSErrorNotRunning = 4,
    /// A class list names a class the Objective-C runtime does not know.
    CSErrorUnknownClass = 5,
    /// A value out of range (limits, zombie pool, mode overrides, bits that name no guard, an empty prefix, ...).
    CSErrorInvalidConfiguration = 6,
    /// An upload sink or report store that cannot work: not an http(s) endpoint, not a Sentry DSN, a folder or file
    /// that cannot be created or written.
    CSErrorInvalidSink = 7,
} CS_OBJC_ONLY;

NS_ASSUME_NONNULL_END
