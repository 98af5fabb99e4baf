@_spi(ObjCBridge) import CrashShield
import Foundation

// The upload sinks under the Objective-C API (product CrashShieldObjC: CSUploadSink, CSConfiguration.uploadSinks,
// CSUploadStatistics, +[CSShield waitForUploadsWithTimeout:]). Declared in Sources/CrashShieldObjC/CSBridge.h (keep
// both in step); SPI ObjCBridge, as CrashShield's Core/ObjCBridge.swift says. CrashShield's bridge names no upload
// type: it makes the sinks through `BridgeSinkMaker` and keeps them as `BridgeKeptSink`s.

extension UploadSink: BridgeKeptSink {}
extension UploadError: BridgeSinkError {}

/// One CSUploadSink's fields, as CSConfiguration hands them over: HTTP (`endpoint`) when `dsn` is nil, else Sentry.
final class BridgeUpload: BridgeSinkMaker {
    let endpoint: String?
    let dsn: String?
    let folder: String
    var headers: [String: String] = [:]
    let uploadedGuards: UInt32
    let release: String?
    let environment: String?
    let dist: String?

    init(
        endpoint: String?, dsn: String?, folder: String, uploadedGuards: UInt32, release: String?,
        environment: String?, dist: String?
    ) {
        self.endpoint = endpoint
        self.dsn = dsn
        self.folder = folder
        self.uploadedGuards = uploadedGuards
        self.release = release
        self.environment = environment
        self.dist = dist
    }

    func makeSink() throws -> any ReportSink {
        let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
        let options = UploadOptions(headers: headers, uploadedGuards: GuardCategory(rawValue: uploadedGuards))
        guard let dsn else {
            let text = endpoint ?? ""
            guard let url = URL(string: text) else { throw UploadError.invalidEndpoint(text) }
            return try HTTPUploadSink(endpoint: url, folder: folderURL, options: options)
        }
        return try SentrySink(
            dsn: dsn, folder: folderURL, options: options, environment: environment,
            release: release, dist: dist)
    }
}

private func string(_ text: UnsafePointer<CChar>?) -> String? { text.map { String(cString: $0) } }

/// Adds an upload sink: HTTP when `dsn` is NULL (to `endpoint`), else Sentry (`release`, `environment`, `dist` may
/// be NULL). Later csbridge_configuration_add_upload_header calls add to this sink.
@_cdecl("csbridge_configuration_add_upload")
@_spi(ObjCBridge) public func csbridge_configuration_add_upload(
    _ configuration: UnsafeMutableRawPointer?,
    _ endpoint: UnsafePointer<CChar>?, _ dsn: UnsafePointer<CChar>?,
    _ folder: UnsafePointer<CChar>?, _ uploadedGuards: UInt32,
    _ release: UnsafePointer<CChar>?, _ environment: UnsafePointer<CChar>?,
    _ dist: UnsafePointer<CChar>?
) {
    BridgeConfiguration.borrow(configuration)?.sinkMakers.append(
        BridgeUpload(
            endpoint: string(endpoint), dsn: string(dsn), folder: string(folder) ?? "",
            uploadedGuards: uploadedGuards, release: string(release), environment: string(environment),
            dist: string(dist)))
}

@_cdecl("csbridge_configuration_add_upload_header")
@_spi(ObjCBridge) public func csbridge_configuration_add_upload_header(
    _ configuration: UnsafeMutableRawPointer?,
    _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) {
    guard let name = string(name), let value = string(value) else { return }
    (BridgeConfiguration.borrow(configuration)?.sinkMakers.last as? BridgeUpload)?.headers[name] = value
}

// MARK: Upload statistics (CSUploadStatistics)

/// One upload sink's statistics, lent to Objective-C for one call (`BridgeStatisticsFunction`).
final class BridgeUploadStatistics {
    let folder: String
    let isSentry: Bool
    let statistics: UploadStatistics

    init(_ sink: UploadSink) {
        folder = sink.queue.folder.path
        isSentry = sink is SentrySink
        statistics = sink.statistics
    }

    /// The object Objective-C was lent (nil for nil), as `BridgeConfiguration.borrow` and `BridgeReport.borrow`.
    static func borrow(_ pointer: UnsafeRawPointer?) -> BridgeUploadStatistics? {
        pointer.map { Unmanaged<BridgeUploadStatistics>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Its counts (all zero for nil).
    static func statistics(_ pointer: UnsafeRawPointer?) -> UploadStatistics {
        borrow(pointer)?.statistics ?? UploadStatistics()
    }
}

@_spi(ObjCBridge) public typealias BridgeStatisticsFunction =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void

/// Calls `function(context, statistics)` for each upload sink of the last start, in `uploadSinks` order.
@_cdecl("csbridge_upload_statistics")
@_spi(ObjCBridge) public func csbridge_upload_statistics(
    _ function: BridgeStatisticsFunction?, _ context: UnsafeMutableRawPointer?
) {
    guard let function else { return }
    for case let sink as UploadSink in BridgeUploads.sinks {
        let lent = BridgeUploadStatistics(sink)
        withExtendedLifetime(lent) { function(context, UnsafeRawPointer(Unmanaged.passUnretained(lent).toOpaque())) }
    }
}

@_cdecl("csbridge_upload_statistics_copy_folder")
@_spi(ObjCBridge) public func csbridge_upload_statistics_copy_folder(
    _ lent: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    BridgeUploadStatistics.borrow(lent).map { strdup($0.folder) } ?? nil
}

@_cdecl("csbridge_upload_statistics_is_sentry")
@_spi(ObjCBridge) public func csbridge_upload_statistics_is_sentry(_ lent: UnsafeRawPointer?) -> Bool {
    BridgeUploadStatistics.borrow(lent)?.isSentry ?? false
}

@_cdecl("csbridge_upload_statistics_delivered_reports")
@_spi(ObjCBridge) public func csbridge_upload_statistics_delivered_reports(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).deliveredReports
}

@_cdecl("csbridge_upload_statistics_rejected_batches")
@_spi(ObjCBridge) public func csbridge_upload_statistics_rejected_batches(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).rejectedBatches
}

@_cdecl("csbridge_upload_statistics_dropped_reports")
@_spi(ObjCBridge) public func csbridge_upload_statistics_dropped_reports(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).droppedReports
}

@_cdecl("csbridge_upload_statistics_requests")
@_spi(ObjCBridge) public func csbridge_upload_statistics_requests(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).requests
}

@_cdecl("csbridge_upload_statistics_queued_reports")
@_spi(ObjCBridge) public func csbridge_upload_statistics_queued_reports(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).queuedReports
}

@_cdecl("csbridge_upload_statistics_credential_refusals")
@_spi(ObjCBridge) public func csbridge_upload_statistics_credential_refusals(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).credentialRefusals
}

@_cdecl("csbridge_upload_statistics_rate_limited_reports")
@_spi(ObjCBridge) public func csbridge_upload_statistics_rate_limited_reports(_ lent: UnsafeRawPointer?) -> Int {
    BridgeUploadStatistics.statistics(lent).rateLimitedReports
}

/// `UploadOptions().uploadedGuards`: the guards an upload sink sends by default.
@_cdecl("csbridge_default_uploaded_guards")
@_spi(ObjCBridge) public func csbridge_default_uploaded_guards() -> UInt32 { UploadOptions().uploadedGuards.rawValue }
