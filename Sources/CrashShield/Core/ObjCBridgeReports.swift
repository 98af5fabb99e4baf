import CrashShieldRuntime.Internal
import Foundation

// The reports and defaults under the Objective-C API (CSReport, CSConfiguration; CSUploadStatistics and CSUploadSink
// are CrashShieldUpload's ObjCBridgeUpload.swift): the Objective-C objects read their fields from Swift's values
// through these functions, and CSConfiguration's defaults are Swift's. Declared in Sources/CrashShieldObjC/CSBridge.h
// (keep both in step). SPI ObjCBridge, as ObjCBridge.swift says.

/// A report lent to Objective-C for one call (`BridgeReportFunction`): a `const void *` the csbridge_report_ functions
/// read. Strings come back malloc'd (the caller frees them); dates as seconds since 1970.
final class BridgeReport {
    let report: CrashReport
    /// `details`' keys, sorted: the order `csbridge_report_copy_detail_key` counts in.
    let detailKeys: [String]

    init(_ report: CrashReport) {
        self.report = report
        detailKeys = report.details.keys.sorted()
    }

    /// Calls `body` with `report` as a pointer that is valid during the call only.
    static func lend(_ report: CrashReport, _ body: (UnsafeRawPointer) -> Void) {
        let lent = BridgeReport(report)
        withExtendedLifetime(lent) { body(UnsafeRawPointer(Unmanaged.passUnretained(lent).toOpaque())) }
    }

    static func borrow(_ pointer: UnsafeRawPointer?) -> BridgeReport? {
        pointer.map { Unmanaged<BridgeReport>.fromOpaque($0).takeUnretainedValue() }
    }
}

@_spi(ObjCBridge) public typealias BridgeReportFunction =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void
@_spi(ObjCBridge) public typealias BridgeNameFunction =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void

private func copy(_ text: String) -> UnsafeMutablePointer<CChar>? { strdup(text) }

private func text(_ pointer: UnsafeRawPointer?, _ field: (CrashReport) -> String) -> UnsafeMutablePointer<CChar>? {
    BridgeReport.borrow(pointer).map { copy(field($0.report)) } ?? nil
}

/// Calls `function(context, report)` for every distinct report of this run (`CrashShield.reports`), in order.
@_cdecl("csbridge_reports")
@_spi(ObjCBridge) public func csbridge_reports(_ function: BridgeReportFunction?, _ context: UnsafeMutableRawPointer?) {
    guard let function else { return }
    for report in CrashShield.reports { BridgeReport.lend(report) { function(context, $0) } }
}

/// Decodes one report from `length` bytes of JSON (`ReportCodec`) and calls `function(context, report)` with it;
/// false (and no call) when the bytes are not a report.
@_cdecl("csbridge_decode_report")
@_spi(ObjCBridge) public func csbridge_decode_report(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ function: BridgeReportFunction?,
    _ context: UnsafeMutableRawPointer?
) -> Bool {
    guard let bytes, length >= 0, let function,
        let report = try? ReportCodec.decoder().decode(CrashReport.self, from: Data(bytes: bytes, count: length))
    else { return false }
    BridgeReport.lend(report) { function(context, $0) }
    return true
}

@_cdecl("csbridge_report_copy_signature")
@_spi(ObjCBridge) public func csbridge_report_copy_signature(
    _ report: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.signature }
}

@_cdecl("csbridge_report_guard")
@_spi(ObjCBridge) public func csbridge_report_guard(_ report: UnsafeRawPointer?) -> UInt32 {
    BridgeReport.borrow(report)?.report.category.rawValue ?? 0
}

@_cdecl("csbridge_report_copy_guard_name")
@_spi(ObjCBridge) public func csbridge_report_copy_guard_name(
    _ report: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.category.name }
}

@_cdecl("csbridge_report_copy_exception_name")
@_spi(ObjCBridge) public func csbridge_report_copy_exception_name(
    _ report: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.exceptionName }
}

@_cdecl("csbridge_report_copy_reason")
@_spi(ObjCBridge) public func csbridge_report_copy_reason(_ report: UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.reason }
}

@_cdecl("csbridge_report_copy_class_name")
@_spi(ObjCBridge) public func csbridge_report_copy_class_name(
    _ report: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.className }
}

@_cdecl("csbridge_report_copy_selector")
@_spi(ObjCBridge) public func csbridge_report_copy_selector(_ report: UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>?
{
    text(report) { $0.selector }
}

/// `CrashReport.method`: `-[Class selector]`.
@_cdecl("csbridge_report_copy_method")
@_spi(ObjCBridge) public func csbridge_report_copy_method(_ report: UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.method }
}

@_cdecl("csbridge_report_copy_hint")
@_spi(ObjCBridge) public func csbridge_report_copy_hint(_ report: UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.hint }
}

@_cdecl("csbridge_report_recovered")
@_spi(ObjCBridge) public func csbridge_report_recovered(_ report: UnsafeRawPointer?) -> Bool {
    BridgeReport.borrow(report)?.report.action == .recovered
}

@_cdecl("csbridge_report_occurrences")
@_spi(ObjCBridge) public func csbridge_report_occurrences(_ report: UnsafeRawPointer?) -> UInt64 {
    UInt64(max(0, BridgeReport.borrow(report)?.report.occurrences ?? 0))
}

/// Seconds since 1970.
@_cdecl("csbridge_report_first_seen")
@_spi(ObjCBridge) public func csbridge_report_first_seen(_ report: UnsafeRawPointer?) -> Double {
    BridgeReport.borrow(report)?.report.firstSeen.timeIntervalSince1970 ?? 0
}

/// Seconds since 1970.
@_cdecl("csbridge_report_last_seen")
@_spi(ObjCBridge) public func csbridge_report_last_seen(_ report: UnsafeRawPointer?) -> Double {
    BridgeReport.borrow(report)?.report.lastSeen.timeIntervalSince1970 ?? 0
}

@_cdecl("csbridge_report_copy_thread_name")
@_spi(ObjCBridge) public func csbridge_report_copy_thread_name(
    _ report: UnsafeRawPointer?
) -> UnsafeMutablePointer<CChar>? {
    text(report) { $0.thread.name }
}

@_cdecl("csbridge_report_on_main_thread")
@_spi(ObjCBridge) public func csbridge_report_on_main_thread(_ report: UnsafeRawPointer?) -> Bool {
    BridgeReport.borrow(report)?.report.thread.isMain ?? false
}

/// Calls `function(context, key, value)` for each of `details`, keys sorted.
@_cdecl("csbridge_report_details")
@_spi(ObjCBridge) public func csbridge_report_details(
    _ report: UnsafeRawPointer?, _ function: BridgeNameFunction?,
    _ context: UnsafeMutableRawPointer?
) {
    guard let lent = BridgeReport.borrow(report), let function else { return }
    for key in lent.detailKeys { function(context, key, lent.report.details[key] ?? "") }
}

/// The whole report in the one JSON form (`ReportCodec`): what the store keeps and the HTTP sink sends.
@_cdecl("csbridge_report_copy_json")
@_spi(ObjCBridge) public func csbridge_report_copy_json(_ report: UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>? {
    guard let lent = BridgeReport.borrow(report), let json = try? ReportCodec.encoder().encode(lent.report) else {
        return nil
    }
    return copy(String(decoding: json, as: UTF8.self))
}

// MARK: Defaults (CSConfiguration)

/// `Configuration.production`, whose values `-[CSConfiguration init]` takes.
private var production: Configuration { Configuration.production }

@_cdecl("csbridge_default_guards")
@_spi(ObjCBridge) public func csbridge_default_guards() -> UInt32 { production.guards.rawValue }

/// Whether the production configuration runs in debug mode (it does not: `.release`).
@_cdecl("csbridge_default_debug_mode")
@_spi(ObjCBridge) public func csbridge_default_debug_mode() -> Bool { production.mode == .debug }

@_cdecl("csbridge_default_max_distinct_reports")
@_spi(ObjCBridge) public func csbridge_default_max_distinct_reports() -> Int { production.limits.maxDistinctReports }

@_cdecl("csbridge_default_detailed_captures_per_second")
@_spi(ObjCBridge) public func csbridge_default_detailed_captures_per_second() -> Int {
    production.limits.detailedCapturesPerSecond
}

@_cdecl("csbridge_default_max_stack_depth")
@_spi(ObjCBridge) public func csbridge_default_max_stack_depth() -> Int { production.limits.maxStackDepth }

@_cdecl("csbridge_default_zombie_max_bytes")
@_spi(ObjCBridge) public func csbridge_default_zombie_max_bytes() -> Int { production.zombies.maxBytes }

@_cdecl("csbridge_default_zombie_max_count")
@_spi(ObjCBridge) public func csbridge_default_zombie_max_count() -> Int { production.zombies.maxCount }

@_cdecl("csbridge_default_zombie_max_object_size")
@_spi(ObjCBridge) public func csbridge_default_zombie_max_object_size() -> Int { production.zombies.maxObjectSize }

@_cdecl("csbridge_default_records_zombie_deallocation_stack")
@_spi(ObjCBridge) public func csbridge_default_records_zombie_deallocation_stack() -> Bool {
    production.zombies.recordsDeallocationStack
}

@_cdecl("csbridge_default_kvo_leaves_system_classes_alone")
@_spi(ObjCBridge) public func csbridge_default_kvo_leaves_system_classes_alone() -> Bool {
    production.kvoLeavesSystemClassesAlone
}

/// Calls `function(context, name, NULL)` for each default `unrecognizedSelectorFoundationClasses` entry, in order.
@_cdecl("csbridge_default_foundation_classes")
@_spi(ObjCBridge) public func csbridge_default_foundation_classes(
    _ function: BridgeNameFunction?, _ context: UnsafeMutableRawPointer?
) {
    guard let function else { return }
    for name in production.unrecognizedSelectorFoundationClasses { function(context, name, nil) }
}

/// Calls `function(context, className, selector)` for each default `mainThreadOnlyMethods` entry (classes sorted,
/// selectors in order).
@_cdecl("csbridge_default_main_thread_only_methods")
@_spi(ObjCBridge) public func csbridge_default_main_thread_only_methods(
    _ function: BridgeNameFunction?,
    _ context: UnsafeMutableRawPointer?
) {
    guard let function else { return }
    let methods = production.mainThreadOnlyMethods
    for className in methods.keys.sorted() {
        for selector in methods[className] ?? [] { function(context, className, selector) }
    }
}
