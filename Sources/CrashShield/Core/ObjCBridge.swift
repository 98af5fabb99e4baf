import CrashShieldRuntime.Internal
import Foundation

// The C-callable layer under the Objective-C API (product CrashShieldObjC: CSShield, CSConfiguration; the upload
// sinks' part is CrashShieldUpload's ObjCBridgeUpload.swift, the NSNotificationCenter and NSObject categories'
// CrashShieldNotifications' ObjCBridgeNotifications.swift). Swift on Linux has no Objective-C interop, so the Objective-C classes
// are real Objective-C and call these functions, declared in Sources/CrashShieldObjC/CSBridge.h (keep both in step).
// They are not API (SPI ObjCBridge, hidden from `import CrashShield`): only CrashShieldObjC calls them. Public, as the
// C entry points are, so that their symbols are exported wherever the module is linked.
//
// Every function that can fail returns a `BridgeStatus` and, when `message` is not NULL, a malloc'd text saying what
// to change (the caller frees it). Contexts handed over with a release function are owned by Swift from the call on,
// also when the call fails: the release function runs when Swift no longer needs the context.

/// The codes of CSErrorCode (CSError.h), same values.
package enum BridgeStatus: Int32 {
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
        case is any BridgeSinkError: return (.invalidSink, "\(error)")
        default: return (.failed, "\(error)")
        }
    }
}

/// An error that says a sink cannot work (a bad endpoint, DSN, folder or store file): CSErrorCodeInvalidSink.
package protocol BridgeSinkError: Error {}

extension ReportStoreError: BridgeSinkError {}

/// A sink the Objective-C API makes from CSConfiguration's fields in another module of this package
/// (CrashShieldUpload's CSUploadSink), so that this module names none of its types.
package protocol BridgeSinkMaker: AnyObject {
    func makeSink() throws -> any ReportSink
}

/// A sink the Objective-C API keeps after its start, for `+[CSShield waitForUploadsWithTimeout:]` and
/// `uploadStatistics` (CrashShieldUpload's `UploadSink`).
package protocol BridgeKeptSink: ReportSink {
    @discardableResult func waitUntilIdle(timeout: TimeInterval) -> Bool
    func close()
}

@_spi(ObjCBridge) public typealias BridgeMessage = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
@_spi(ObjCBridge) public typealias BridgeRelease = @convention(c) (UnsafeMutableRawPointer?) -> Void

/// A C context Swift owns: released (by the caller's function) when the last reference goes.
package final class BridgeContext: @unchecked Sendable {
    package let pointer: UnsafeMutableRawPointer?
    private let release: BridgeRelease?
    package init(_ pointer: UnsafeMutableRawPointer?, release: BridgeRelease?) {
        self.pointer = pointer
        self.release = release
    }
    deinit { release?(pointer) }
}

/// Runs `body`; a thrown error becomes its status, with its text in `message`.
package func bridged(_ message: BridgeMessage?, _ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return BridgeStatus.ok.rawValue
    } catch {
        let (status, text) = BridgeStatus.of(error)
        return fail(status, text, message)
    }
}

package func fail(_ status: BridgeStatus, _ text: String, _ message: BridgeMessage?) -> Int32 {
    message?.pointee = strdup(text)
    return status.rawValue
}

/// What CSConfiguration hands over (CSConfiguration.m, `-newBridgeConfiguration:`, through the
/// csbridge_configuration_ functions): every field, always.
package final class BridgeConfiguration {
    struct ModeOverride {
        var guards: UInt32
        var mode: GuardMode
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
    /// The upload sinks (CrashShieldUpload's csbridge_configuration_add_upload), in `uploadSinks` order.
    package var sinkMakers: [any BridgeSinkMaker] = []

    /// The Swift configuration, its sinks made (which throws for a bad endpoint, DSN or upload folder; a report store
    /// whose folder cannot be written is made closed and retries: `CrashShield.sinkFailures`).
    func configuration(reportSink: ReportSink?) throws -> Configuration {
        var configuration = Configuration(
            guards: GuardCategory(rawValue: guards), mode: mode,
            excludedClassNames: Set(excludedClassNames), protectedClassPrefixes: protectedClassPrefixes,
            unrecognizedSelectorFoundationClasses: unrecognizedSelectorFoundationClasses,
            limits: ReportLimits(
                maxDistinctReports: maxDistinctReports, detailedCapturesPerSecond: detailedCapturesPerSecond,
                maxStackDepth: maxStackDepth))
        for override in modeOverrides {
            let category = GuardCategory(rawValue: override.guards)
            guard configuration.modeOverrides[category] == nil else {
                throw CrashShieldError.invalidConfiguration("modeOverrides: \(category.name) is given twice")
            }
            configuration.modeOverrides[category] = override.mode
        }
        configuration.zombies = ZombieOptions(
            maxBytes: zombieMaxBytes, maxCount: zombieMaxCount,
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
        if let reportStorePath {
            sinks.append(try JSONLinesReportStore(fileURL: URL(fileURLWithPath: reportStorePath)))
        }
        for maker in sinkMakers { sinks.append(try maker.makeSink()) }
        configuration.sinks = sinks
        return configuration
    }
}

/// The upload sinks the Objective-C API made for its last successful start, in `uploadSinks` order: what
/// `+[CSShield waitForUploadsWithTimeout:]` waits for and `uploadStatistics` reads. They keep sending what they hold
/// after `stop`; the next start closes them first (after the sinks took what `stop` handed them), so that its sinks
/// can take over their folders.
package enum BridgeUploads {
    private static let current = Locked([any BridgeKeptSink]())

    package static var sinks: [any BridgeKeptSink] { current.current }

    /// Closes the previous start's sinks (their unsent reports stay in their folders for the sinks that follow).
    static func handOver() {
        let previous = current.withLock { sinks -> [any BridgeKeptSink] in
            defer { sinks.removeAll() }
            return sinks
        }
        guard !previous.isEmpty else { return }
        CrashShield.waitForSinks(timeout: 1)
        for sink in previous { sink.close() }
    }

    static func keep(_ sinks: [any BridgeKeptSink]) { current.withLock { $0 = sinks } }

    /// Hands changed counts to the sinks, then waits until every upload sink sent, rejected or dropped every report
    /// so far, at most `timeout` seconds in all.
    static func wait(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        guard CrashShield.flush(timeout: timeout) else { return false }
        for sink in sinks where !sink.waitUntilIdle(timeout: max(0, deadline.timeIntervalSinceNow)) { return false }
        return true
    }
}

/// Starts CrashShield with `bridgeConfiguration` (a BridgeConfiguration from csbridge_configuration_create, borrowed). `report`, when not NULL, is called with
/// `context` and each report (a `BridgeReport`, borrowed for the call) on CrashShield's delivery queue;
/// `release(context)` runs once no report can reach it any more (the session and every pending delivery are gone).
@_cdecl("csbridge_start")
@_spi(ObjCBridge) public func csbridge_start(
    _ bridgeConfiguration: UnsafeRawPointer?, _ report: BridgeReportFunction?,
    _ context: UnsafeMutableRawPointer?, _ release: BridgeRelease?,
    _ message: BridgeMessage?
) -> Int32 {
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
        BridgeUploads.keep(configuration.sinks.compactMap { $0 as? any BridgeKeptSink })
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
@_spi(ObjCBridge) public func csbridge_set_guard(_ guards: UInt32, _ enabled: Bool, _ message: BridgeMessage?) -> Int32
{
    bridged(message) { try CrashShield.setGuard(GuardCategory(rawValue: guards), enabled: enabled) }
}

/// Calls `function(context, text, NULL)` for each sink of the running configuration that cannot work now
/// (`CrashShield.sinkFailures`), `text` saying which sink and why (lent for the call).
@_cdecl("csbridge_sink_failures")
@_spi(ObjCBridge) public func csbridge_sink_failures(
    _ function: BridgeNameFunction?, _ context: UnsafeMutableRawPointer?
) {
    guard let function else { return }
    for failure in CrashShield.sinkFailures { failure.description.withCString { function(context, $0, nil) } }
}

@_cdecl("csbridge_flush")
@_spi(ObjCBridge) public func csbridge_flush(_ timeoutSeconds: Double) -> Bool {
    CrashShield.flush(timeout: timeoutSeconds)
}
