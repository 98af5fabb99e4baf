import CrashShieldRuntime.Internal
import Foundation

// The C-callable layer under the Objective-C API (product CrashShieldObjC: CSShield, CSConfiguration, the
// NSNotificationCenter and NSObject categories). Swift on Linux has no Objective-C interop, so the Objective-C classes
// are real Objective-C and call these functions, declared in Sources/CrashShieldObjC/CSBridge.h (keep both in step).
// They are not API (SPI ObjCBridge, hidden from `import CrashShield`): only CrashShieldObjC calls them. Public, as the
// C entry points are, so that their symbols are exported wherever the module is linked.
//
// Every function that can fail returns a `BridgeStatus` and, when `message` is not NULL, a malloc'd text saying what
// to change (the caller frees it). Contexts handed over with a release function are owned by Swift from the call on,
// also when the call fails: the release function runs when Swift no longer needs the context.

/// The codes of CSErrorCode (CSError.h), same values.
enum BridgeStatus: Int32 {
    case ok = 0
    case alreadyRunning = 1
    case invalidArgument = 2
    case failed = 3
    case notRunning = 4
    case unknownClass = 5
    case invalidConfiguration = 6
    case invalidSink = 7

    /// The status and text for an error thrown by CrashShield's Swift API.
    static func of(_ error: Error) -> (BridgeStatus, String) {
        switch error {
        case CrashShieldError.alreadyRunning: return (.alreadyRunning, "\(error)")
        case CrashShieldError.notRunning: return (.notRunning, "\(error)")
        case CrashShieldError.unknownClass: return (.unknownClass, "\(error)")
        case CrashShieldError.invalidConfiguration: return (.invalidConfiguration, "\(error)")
        case CrashShieldError.hookFailed: return (.failed, "\(error)")
        case is UploadError, is ReportStoreError: return (.invalidSink, "\(error)")
        default: return (.failed, "\(error)")
        }
    }
}

@_spi(ObjCBridge) public typealias BridgeMessage = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
@_spi(ObjCBridge) public typealias BridgeRelease = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// A C context Swift owns: released (by the caller's function) when the last reference goes.
final class BridgeContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer?
    private let release: BridgeRelease?
    init(_ pointer: UnsafeMutableRawPointer?, release: BridgeRelease?) {
        self.pointer = pointer
        self.release = release
    }
    deinit { release?(pointer) }
}

/// Runs `body`; a thrown error becomes its status, with its text in `message`.
private func bridged(_ message: BridgeMessage?, _ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return BridgeStatus.ok.rawValue
    } catch {
        let (status, text) = BridgeStatus.of(error)
        return fail(status, text, message)
    }
}

private func fail(_ status: BridgeStatus, _ text: String, _ message: BridgeMessage?) -> Int32 {
    message?.pointee = strdup(text)
    return status.rawValue
}

/// What CSConfiguration hands over (CSConfiguration.m, `-newBridgeConfiguration:`, through the
/// csbridge_configuration_ functions): every field, always.
final class BridgeConfiguration {
    struct ModeOverride {
        var guards: UInt32
        var mode: GuardMode
    }

    struct Upload {
        /// "http" (`endpoint`) or "sentry" (`dsn`, `release`, `environment`).
        var kind: String
        var endpoint: String?
        var dsn: String?
        var folder: String
        var headers: [String: String] = [:]
        var uploadedGuards: UInt32
        var release: String?
        var environment: String?
        var dist: String?
    }

    var guards: UInt32 = 0
    var mode = GuardMode.release
    var modeOverrides: [ModeOverride] = []
    var excludedClassNames: [String] = []
    var protectedClassPrefixes: [String] = []
    var unrecognizedSelectorFoundationClasses: [String] = []
    var maxDistinctReports = 0
    var detailedCapturesPerSecond = 0
    var maxStackDepth = 0
    var zombieMaxBytes = 0
    var zombieMaxCount = 0
    var zombieMaxObjectSize = 0
    var zombieClassNames: [String] = []
    var recordsZombieDeallocationStack = false
    var kvoLeavesSystemClassesAlone = false
    var mainThreadOnlyMethods: [String: [String]] = [:]
    var redactsAppData = false
    var logsReports = false
    var reportStorePath: String?
    var uploads: [Upload] = []

    /// The Swift configuration, its sinks made (which throws for a bad endpoint, DSN, folder or store file).
    func configuration(reportSink: ReportSink?) throws -> Configuration {
        var configuration = Configuration(
            guards: GuardCategory(rawValue: guards), mode: mode,
            excludedClassNames: Set(excludedClassNames), protectedClassPrefixes: protectedClassPrefixes,
            unrecognizedSelectorFoundationClasses: unrecognizedSelectorFoundationClasses,
            limits: ReportLimits(maxDistinctReports: maxDistinctReports, detailedCapturesPerSecond: detailedCapturesPerSecond,
                                 maxStackDepth: maxStackDepth))
        for override in modeOverrides {
            let category = GuardCategory(rawValue: override.guards)
            guard configuration.modeOverrides[category] == nil else {
                throw CrashShieldError.invalidConfiguration("modeOverrides: \(category.name) is given twice")
            }
            configuration.modeOverrides[category] = override.mode
        }
        configuration.zombies = ZombieOptions(maxBytes: zombieMaxBytes, maxCount: zombieMaxCount,
                                              maxObjectSize: zombieMaxObjectSize, classNames: Set(zombieClassNames),
                                              recordsDeallocationStack: recordsZombieDeallocationStack)
        configuration.kvoLeavesSystemClassesAlone = kvoLeavesSystemClassesAlone
        configuration.mainThreadOnlyMethods = mainThreadOnlyMethods
        if redactsAppData { configuration.redact = Redaction.withoutAppData }
        // Validate before making sinks: an upload sink starts its own queue and reads its folder.
        try configuration.validate()
        var sinks: [any ReportSink] = []
        if let reportSink { sinks.append(reportSink) }
        if logsReports { sinks.append(LogReportSink()) }
        if let reportStorePath { sinks.append(try JSONLinesReportStore(fileURL: URL(fileURLWithPath: reportStorePath))) }
        for upload in uploads { sinks.append(try upload.sink()) }
        configuration.sinks = sinks
        return configuration
    }
}

/// The upload sinks the Objective-C API made for its last successful start, in `uploadSinks` order: what
/// `+[CSShield waitForUploadsWithTimeout:]` waits for and `uploadStatistics` reads. They keep sending what they hold
/// after `stop`; the next start closes them first (after the sinks took what `stop` handed them), so that its sinks
/// can take over their folders.
enum BridgeUploads {
    private static let current = Locked([UploadSink]())

    static var sinks: [UploadSink] { current.current }

    /// Closes the previous start's sinks (their unsent reports stay in their folders for the sinks that follow).
    static func handOver() {
        let previous = current.withLock { sinks -> [UploadSink] in
            defer { sinks.removeAll() }
            return sinks
        }
        guard !previous.isEmpty else { return }
        CrashShield.waitForSinks(timeout: 1)
        for sink in previous { sink.close() }
    }

    static func keep(_ sinks: [UploadSink]) { current.withLock { $0 = sinks } }

    /// Hands changed counts to the sinks, then waits until every upload sink sent, rejected or dropped every report
    /// so far, at most `timeout` seconds in all.
    static func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        guard CrashShield.flush(timeout: timeout) else { return false }
        for sink in sinks where !sink.waitUntilIdle(timeout: max(0, deadline.timeIntervalSinceNow)) { return false }
        return true
    }
}

extension BridgeConfiguration.Upload {
    func sink() throws -> ReportSink {
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        let options = UploadOptions(headers: headers, uploadedGuards: GuardCategory(rawValue: uploadedGuards))
        switch kind {
        case "http":
            let text = endpoint ?? ""
            guard let url = URL(string: text) else { throw UploadError.invalidEndpoint(text) }
            return try HTTPUploadSink(endpoint: url, folder: folderURL, options: options)
        case "sentry":
            return try SentrySink(dsn: dsn ?? "", folder: folderURL, options: options, environment: environment,
                                  release: release, dist: dist)
        default:
            throw CrashShieldError.invalidConfiguration("upload sink kind '\(kind)' (known: http, sentry)")
        }
    }
}

/// Starts CrashShield with `bridgeConfiguration` (a BridgeConfiguration from csbridge_configuration_create, borrowed). `report`, when not NULL, is called with
/// `context` and each report (a `BridgeReport`, borrowed for the call) on CrashShield's delivery queue;
/// `release(context)` runs once no report can reach it any more (the session and every pending delivery are gone).
@_cdecl("csbridge_start")
@_spi(ObjCBridge) public func csbridge_start(_ bridgeConfiguration: UnsafeRawPointer?, _ report: BridgeReportFunction?,
                           _ context: UnsafeMutableRawPointer?, _ release: BridgeRelease?,
                           _ message: BridgeMessage?) -> Int32 {
    let owned = BridgeContext(context, release: release)
    guard let decoded = BridgeConfiguration.borrow(bridgeConfiguration) else {
        return fail(.invalidArgument, "no configuration", message)
    }
    return bridged(message) {
        // Before any sink is made: a running session's upload sinks hold their folders.
        guard !CrashShield.isRunning else { throw CrashShieldError.alreadyRunning }
        BridgeUploads.handOver()
        let sink = report.map { function in
            ReportHandlerSink { report in BridgeReport.lend(report) { function(owned.pointer, $0) } }
        }
        let configuration = try decoded.configuration(reportSink: sink)
        try CrashShield.start(configuration)
        BridgeUploads.keep(configuration.sinks.compactMap { $0 as? UploadSink })
    }
}

/// Hands changed counts to the sinks and waits until every upload sink of the last start sent, rejected or dropped
/// every report so far, at most `timeoutSeconds` in all.
@_cdecl("csbridge_wait_for_uploads")
@_spi(ObjCBridge) public func csbridge_wait_for_uploads(_ timeoutSeconds: Double) -> Bool {
    BridgeUploads.wait(timeout: timeoutSeconds)
}

@_cdecl("csbridge_stop")
@_spi(ObjCBridge) public func csbridge_stop() { CrashShield.stop() }

@_cdecl("csbridge_is_running")
@_spi(ObjCBridge) public func csbridge_is_running() -> Bool { CrashShield.isRunning }

@_cdecl("csbridge_active_guards")
@_spi(ObjCBridge) public func csbridge_active_guards() -> UInt32 { CrashShield.activeGuards.rawValue }

@_cdecl("csbridge_set_guard")
@_spi(ObjCBridge) public func csbridge_set_guard(_ guards: UInt32, _ enabled: Bool, _ message: BridgeMessage?) -> Int32 {
    bridged(message) { try CrashShield.setGuard(GuardCategory(rawValue: guards), enabled: enabled) }
}

@_cdecl("csbridge_flush")
@_spi(ObjCBridge) public func csbridge_flush(_ timeoutSeconds: Double) -> Bool { CrashShield.flush(timeout: timeoutSeconds) }

// MARK: Notifications (seeds 003 and 004)

/// `NotificationPoster`'s engine: posts `name` (an NSString) with `object` and `userInfo` through `center` (NULL:
/// the default center) on `thread` (NULL: now, on the calling thread).
@_cdecl("csbridge_post_notification")
@_spi(ObjCBridge) public func csbridge_post_notification(_ center: CSRObject?, _ name: CSRObject?, _ object: CSRObject?,
                                       _ userInfo: CSRObject?, _ thread: CSRObject?, _ waitUntilDone: Bool) {
    NotificationPoster.post(nameObject: name, object: object, userInfo: userInfo, thread: thread,
                            waitUntilDone: waitUntilDone, center: center)
}

@_spi(ObjCBridge) public typealias BridgeObservationFunction = @convention(c) (UnsafeMutableRawPointer?, CSRObject?, CSRObject?) -> Void

/// `CrashShield.observe`'s engine: calls `function(context, notification, owner)` for every `name` (UTF-8) from
/// `object` (NULL: any) posted to `center` (NULL: the default center), by `priority`, until `owner` is deallocated or
/// the observation (its id in `observationID`) is cancelled; then `release(context)` runs.
@_cdecl("csbridge_observe")
@_spi(ObjCBridge) public func csbridge_observe(_ center: CSRObject?, _ name: UnsafePointer<CChar>?, _ object: CSRObject?,
                             _ owner: CSRObject?, _ priority: Double, _ function: BridgeObservationFunction?,
                             _ context: UnsafeMutableRawPointer?, _ release: BridgeRelease?,
                             _ observationID: UnsafeMutablePointer<Int>?, _ message: BridgeMessage?) -> Int32 {
    let owned = BridgeContext(context, release: release)
    guard let name, let owner, let function else {
        return fail(.invalidArgument, "observe needs a name, an owner and a block", message)
    }
    return bridged(message) {
        let observation = try ClosureObservations.shared.add(
            name: String(cString: name), object: object, owner: owner, priority: NotificationPriority(rawValue: priority),
            center: center ?? csr_notification_default_center()
        ) { note in function(owned.pointer, note.notificationPointer, owner) }
        observationID?.pointee = observation.id
    }
}

@_cdecl("csbridge_observation_cancel")
@_spi(ObjCBridge) public func csbridge_observation_cancel(_ observationID: Int) { NotificationObservation(id: observationID).cancel() }

@_cdecl("csbridge_observation_is_active")
@_spi(ObjCBridge) public func csbridge_observation_is_active(_ observationID: Int) -> Bool {
    NotificationObservation(id: observationID).isActive
}

/// Removes `owner`'s observations of `name` (NULL: every name) with `priority` (only when `byPriority`).
@_cdecl("csbridge_remove_observations")
@_spi(ObjCBridge) public func csbridge_remove_observations(_ owner: CSRObject?, _ name: UnsafePointer<CChar>?, _ byPriority: Bool,
                                         _ priority: Double) {
    guard let owner else { return }
    ClosureObservations.shared.remove(owner: owner, name: name.map { String(cString: $0) },
                                      priority: byPriority ? NotificationPriority(rawValue: priority) : nil)
}
