// CSConfiguration.h: how CrashShield runs, for Objective-C apps (Swift apps: `Configuration`).
#import "CSTypes.h"

@class CSReport;

NS_ASSUME_NONNULL_BEGIN

/// Called with each report on CrashShield's delivery queue (one serial queue, never the thread that made the bad
/// call): at its first occurrence, at 10, 100, 1000, ... occurrences and on `+[CSShield flush...]`.
typedef void (^CSReportHandler)(CSReport *report) CS_OBJC_ONLY;

/// Sends reports to a server: plain HTTP(S) JSON batches or Sentry events. Unsent reports wait in `folder` for the next
/// launch; retries back off; the main-thread UI guard's reports are not uploaded by default (`uploadedGuards`).
CS_OBJC_ONLY
@interface CSUploadSink : NSObject <NSCopying> {
    // Declared here: GCC's libobjc (GNUstep on Linux) has the fragile ABI, which synthesizes no instance variables
    // and has none in class extensions or @implementation.
@private
    BOOL _isSentry;
    NSURL *_endpoint;
    NSString *_DSN;
    NSURL *_folder;
    NSDictionary<NSString *, NSString *> *_headers;
    NSString *_releaseName;
    NSString *_environment;
    NSString *_dist;
    CSGuard _uploadedGuards;
}

/// POSTs gzipped `{"reports": [...]}` batches to `endpoint` (http or https) with `headers` (authentication).
+ (instancetype)HTTPSinkWithEndpoint:(NSURL *)endpoint folder:(NSURL *)folder
                             headers:(nullable NSDictionary<NSString *, NSString *> *)headers;
/// Sends each report as a handled error event to the Sentry project of `DSN` (`https://<key>@<host>/<project>`).
+ (instancetype)sentrySinkWithDSN:(NSString *)DSN folder:(NSURL *)folder release:(nullable NSString *)release
                      environment:(nullable NSString *)environment;
- (instancetype)init CS_UNAVAILABLE;

/// YES for Sentry, NO for plain HTTP.
@property (nonatomic, readonly) BOOL isSentry;
/// The endpoint (HTTP) or nil.
@property (nonatomic, readonly, copy, nullable) NSURL *endpoint;
/// The DSN (Sentry) or nil.
@property (nonatomic, readonly, copy, nullable) NSString *DSN;
/// A folder the sink owns (created if missing), for unsent reports: one sink per folder (a folder another upload sink
/// of the process uses, or one inside it, is refused with CSErrorInvalidSink).
@property (nonatomic, readonly, copy) NSURL *folder;
/// Extra request headers.
@property (nonatomic, copy) NSDictionary<NSString *, NSString *> *headers;
/// Sentry's `release` and `environment` of every event.
@property (nonatomic, readonly, copy, nullable) NSString *releaseName;
@property (nonatomic, readonly, copy, nullable) NSString *environment;
/// Sentry's `dist` of every event (the build). Default nil: the app's build (CFBundleVersion).
@property (nonatomic, copy, nullable) NSString *dist;
/// The guards whose reports are uploaded. Default: all but CSGuardMainThreadUI (its volume would flood a server;
/// its reports still reach the handler, the log and the store).
@property (nonatomic) CSGuard uploadedGuards;

@end

/// Which guards, in which mode, for which classes, and where reports go. A value: `+[CSShield start...]` copies it.
CS_OBJC_ONLY
@interface CSConfiguration : NSObject <NSCopying> {
    // Declared here: GCC's libobjc (GNUstep on Linux) has the fragile ABI, which synthesizes no instance variables
    // and has none in class extensions or @implementation.
@private
    CSGuard _guards;
    CSMode _mode;
    NSDictionary<NSNumber *, NSNumber *> *_modeOverrides;
    NSSet<NSString *> *_excludedClassNames;
    NSArray<NSString *> *_protectedClassPrefixes;
    NSArray<NSString *> *_unrecognizedSelectorFoundationClasses;
    NSInteger _maxDistinctReports;
    NSInteger _detailedCapturesPerSecond;
    NSInteger _maxStackDepth;
    NSInteger _zombieMaxBytes;
    NSInteger _zombieMaxCount;
    NSInteger _zombieMaxObjectSize;
    NSSet<NSString *> *_zombieClassNames;
    BOOL _recordsZombieDeallocationStack;
    BOOL _kvoLeavesSystemClassesAlone;
    NSDictionary<NSString *, NSArray<NSString *> *> *_mainThreadOnlyMethods;
    BOOL _redactsAppData;
    CSReportHandler _reportHandler;
    BOOL _logsReports;
    NSURL *_reportStoreURL;
    NSArray<CSUploadSink *> *_uploadSinks;
}

/// Release builds: the production-safe guards, recover and report (what `[CSConfiguration new]` gives).
+ (instancetype)productionConfiguration;
/// Development builds: the same guards, reporting and then failing loudly at the bad call.
+ (instancetype)debugConfiguration;

/// The guards to install. Default: CSGuardProductionSafe. 0 starts with no guard (logged as a warning).
@property (nonatomic) CSGuard guards;
/// The mode of every guard without an override. Default: CSModeRelease.
@property (nonatomic) CSMode mode;
/// Per-guard modes: single guard (NSNumber of CSGuard) -> NSNumber of CSMode.
@property (nonatomic, copy) NSDictionary<NSNumber *, NSNumber *> *modeOverrides;
/// Sets the mode of one guard (a single CSGuard bit).
- (void)setMode:(CSMode)mode forGuard:(CSGuard)guard;
/// The mode `guard` runs in.
- (CSMode)modeForGuard:(CSGuard)guard;

/// Deny list: receivers of these classes (and subclasses) behave exactly as without CrashShield. A name the runtime
/// does not know is logged once and skipped; a root class (NSObject, NSProxy) is refused (CSErrorInvalidConfiguration).
@property (nonatomic, copy) NSSet<NSString *> *excludedClassNames;
/// Allow list for the guards that protect the app's own classes (unrecognized selectors, zombies): class-name
/// prefixes protected on top of the classes defined in the app's own binaries (default: none). A prefix that would
/// cover the system's own classes ("NS", "_", "__NS", "CF", "GS", "UI", or a non-class-name start of a Foundation
/// class's name) is refused (CSErrorInvalidConfiguration); a complete class name protects that class (with the zombie
/// guard, not a root class's name).
@property (nonatomic, copy) NSArray<NSString *> *protectedClassPrefixes;
/// Foundation classes the unrecognized-selector guard protects too. Default: NSString, NSNumber, NSArray, NSDictionary.
@property (nonatomic, copy) NSArray<NSString *> *unrecognizedSelectorFoundationClasses;

/// Distinct reports kept (default 256).
@property (nonatomic) NSInteger maxDistinctReports;
/// Full call stacks per call site and second (default 20); more occurrences are only counted.
@property (nonatomic) NSInteger detailedCapturesPerSecond;
/// Frames kept per stack, 4...256 (default 32).
@property (nonatomic) NSInteger maxStackDepth;

/// The zombie pool (CSGuardZombie): bytes (at most 256 MiB, default 10 MiB), objects (default 10,000), the largest
/// object kept (default 64 KiB), extra classes to protect (never a root class), and whether to record where each
/// zombie was deallocated.
@property (nonatomic) NSInteger zombieMaxBytes;
@property (nonatomic) NSInteger zombieMaxCount;
@property (nonatomic) NSInteger zombieMaxObjectSize;
@property (nonatomic, copy) NSSet<NSString *> *zombieClassNames;
@property (nonatomic) BOOL recordsZombieDeallocationStack;

/// Default YES: key-value observing between system classes' objects is never proxied.
@property (nonatomic) BOOL kvoLeavesSystemClassesAlone;
/// UI methods that must run on the main thread: class name -> selector names. Default: UIView's layout and display
/// invalidation. A class that does not exist in the process is logged once and skipped.
@property (nonatomic, copy) NSDictionary<NSString *, NSArray<NSString *> *> *mainThreadOnlyMethods;

/// YES: reasons and detail values (which can quote keys and descriptions) are dropped before anything sees a report.
@property (nonatomic) BOOL redactsAppData;
/// Called with each report (see CSReportHandler). Default: none.
@property (nonatomic, copy, nullable) CSReportHandler reportHandler;
/// Default YES: each report is logged.
@property (nonatomic) BOOL logsReports;
/// A JSON Lines file that keeps reports across launches (one object per line, bounded at 1 MiB), or nil. A folder that
/// cannot be written at start does not stop `+[CSShield startWithConfiguration:error:]`: see `CSShield.sinkFailures`.
@property (nonatomic, copy, nullable) NSURL *reportStoreURL;
/// HTTP and Sentry uploads.
@property (nonatomic, copy) NSArray<CSUploadSink *> *uploadSinks;

@end

NS_ASSUME_NONNULL_END
