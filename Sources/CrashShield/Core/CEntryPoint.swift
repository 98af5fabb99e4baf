import CrashShieldRuntime.Internal
import Foundation

/// The C entry points declared in CrashShield.h, for Objective-C and C apps. Public for the linker only: they are
/// `@_spi(CAPI)`, outside the Swift API (a Swift app calls `CrashShield.start`), as the Objective-C API's bridge is
/// `@_spi(ObjCBridge)`.
enum CEntryPoint {
    typealias Handler = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

    /// The registered C handler and its context.
    static let handler = Locked<(function: Handler, context: UnsafeMutableRawPointer?)?>(nil)

    /// Forwards each report to the registered C handler.
    static func forwardToHandler(_ json: UnsafePointer<CChar>) {
        guard let (function, context) = handler.current else { return }
        function(json, context)
    }
}

/// Hands each report to C code as one JSON object: the JSON Lines store's encoding (sorted keys, ISO-8601 dates with
/// milliseconds), so what a C or Objective-C handler forwards is what the store keeps and the HTTP sink uploads.
final class JSONReportSink: ReportSink, @unchecked Sendable {
    /// Used on CrashShield's delivery queue only (one serial queue).
    private let encoder = CrashReport.makeJSONEncoder()
    private let deliver: (UnsafePointer<CChar>) -> Void

    init(_ deliver: @escaping (UnsafePointer<CChar>) -> Void) { self.deliver = deliver }

    func receive(_ report: CrashReport) throws {
        let json = try encoder.encode(report)
        String(decoding: json, as: UTF8.self).withCString(deliver)
    }
}

@_spi(CAPI) @_cdecl("crashshield_start")
public func crashshield_start(_ debugMode: Bool) -> CrashShieldStatus {
    var configuration = debugMode ? Configuration.debug : Configuration.production
    configuration.sinks = [JSONReportSink(CEntryPoint.forwardToHandler), LogReportSink()]
    do {
        try CrashShield.start(configuration)
        return CrashShieldStatusOK
    } catch CrashShieldError.alreadyRunning {
        return CrashShieldStatusAlreadyRunning
    } catch {
        CrashShield.logger.error("crashshield_start failed: \(error)")
        return CrashShieldStatusFailed
    }
}

@_spi(CAPI) @_cdecl("crashshield_stop")
public func crashshield_stop() {
    CrashShield.stop()
}

@_spi(CAPI) @_cdecl("crashshield_set_report_handler")
public func crashshield_set_report_handler(
    _ handler: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?,
    _ context: UnsafeMutableRawPointer?
) -> CrashShieldStatus {
    guard let handler else { return CrashShieldStatusInvalidArgument }
    CEntryPoint.handler.withLock { $0 = (handler, context) }
    return CrashShieldStatusOK
}

@_spi(CAPI) @_cdecl("crashshield_clear_report_handler")
public func crashshield_clear_report_handler() {
    CEntryPoint.handler.withLock { $0 = nil }
}

@_spi(CAPI) @_cdecl("crashshield_flush")
public func crashshield_flush(_ timeoutSeconds: Double) -> Bool {
    CrashShield.flush(timeout: timeoutSeconds)
}
