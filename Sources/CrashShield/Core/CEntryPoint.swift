import CrashShieldRuntime.Internal
import Foundation

/// The C entry points declared in CrashShield.h, for Objective-C and C apps.
enum CEntryPoint {
    typealias Handler = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void

    /// The registered C handler and its context.
    static let handler = Locked<(function: Handler, context: UnsafeMutableRawPointer?)?>(nil)

    /// Forwards each report, as JSON, to the registered C handler.
    final class HandlerSink: ReportSink, @unchecked Sendable {
        private let encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = .sortedKeys
            return encoder
        }()

        func receive(_ report: CrashReport) {
            guard let (function, context) = CEntryPoint.handler.current,
                  let json = try? encoder.encode(report) else { return }
            String(decoding: json, as: UTF8.self).withCString { function($0, context) }
        }
    }
}

@_cdecl("crashshield_start")
public func crashshield_start(_ debugMode: Bool) -> CrashShieldStatus {
    var configuration = debugMode ? Configuration.debug : Configuration.production
    configuration.sinks = [CEntryPoint.HandlerSink(), LogReportSink()]
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

@_cdecl("crashshield_stop")
public func crashshield_stop() {
    CrashShield.stop()
}

@_cdecl("crashshield_set_report_handler")
public func crashshield_set_report_handler(
    _ handler: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?,
    _ context: UnsafeMutableRawPointer?
) -> CrashShieldStatus {
    guard let handler else { return CrashShieldStatusInvalidArgument }
    CEntryPoint.handler.withLock { $0 = (handler, context) }
    return CrashShieldStatusOK
}

@_cdecl("crashshield_clear_report_handler")
public func crashshield_clear_report_handler() {
    CEntryPoint.handler.withLock { $0 = nil }
}

@_cdecl("crashshield_flush")
public func crashshield_flush(_ timeoutSeconds: Double) -> Bool {
    CrashShield.flush(timeout: timeoutSeconds)
}
