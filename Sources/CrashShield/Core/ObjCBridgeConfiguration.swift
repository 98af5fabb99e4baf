import Foundation

// How CSConfiguration hands itself to Swift (CSConfiguration.m, `-newBridgeConfiguration:`): a BridgeConfiguration
// made by csbridge_configuration_create, filled field by field, passed to csbridge_start and released. Declared in
// Sources/CrashShieldObjC/CSBridge.h (keep both in step). SPI ObjCBridge, as ObjCBridge.swift says.

extension BridgeConfiguration {
    package static func borrow(_ pointer: UnsafeRawPointer?) -> BridgeConfiguration? {
        pointer.map { Unmanaged<BridgeConfiguration>.fromOpaque($0).takeUnretainedValue() }
    }
}

private func with(_ pointer: UnsafeMutableRawPointer?, _ body: (BridgeConfiguration) -> Void) {
    BridgeConfiguration.borrow(UnsafeRawPointer(pointer)).map(body)
}

private func string(_ text: UnsafePointer<CChar>?) -> String? { text.map { String(cString: $0) } }

/// A new, empty configuration (+1: csbridge_configuration_release releases it).
@_cdecl("csbridge_configuration_create")
@_spi(ObjCBridge) public func csbridge_configuration_create() -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(BridgeConfiguration()).toOpaque()
}

@_cdecl("csbridge_configuration_release")
@_spi(ObjCBridge) public func csbridge_configuration_release(_ configuration: UnsafeMutableRawPointer?) {
    configuration.map { Unmanaged<BridgeConfiguration>.fromOpaque($0).release() }
}

@_cdecl("csbridge_configuration_set_guards")
@_spi(ObjCBridge) public func csbridge_configuration_set_guards(
    _ configuration: UnsafeMutableRawPointer?, _ guards: UInt32,
    _ debugMode: Bool
) {
    with(configuration) {
        $0.guards = guards
        $0.mode = debugMode ? .debug : .release
    }
}

@_cdecl("csbridge_configuration_add_mode_override")
@_spi(ObjCBridge) public func csbridge_configuration_add_mode_override(
    _ configuration: UnsafeMutableRawPointer?,
    _ guards: UInt32, _ debugMode: Bool
) {
    with(configuration) { $0.modeOverrides.append(.init(guards: guards, mode: debugMode ? .debug : .release)) }
}

@_cdecl("csbridge_configuration_add_excluded_class")
@_spi(ObjCBridge) public func csbridge_configuration_add_excluded_class(
    _ configuration: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?
) {
    guard let name = string(name) else { return }
    with(configuration) { $0.excludedClassNames.append(name) }
}

@_cdecl("csbridge_configuration_add_protected_prefix")
@_spi(ObjCBridge) public func csbridge_configuration_add_protected_prefix(
    _ configuration: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?
) {
    guard let name = string(name) else { return }
    with(configuration) { $0.protectedClassPrefixes.append(name) }
}

@_cdecl("csbridge_configuration_add_foundation_class")
@_spi(ObjCBridge) public func csbridge_configuration_add_foundation_class(
    _ configuration: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?
) {
    guard let name = string(name) else { return }
    with(configuration) { $0.unrecognizedSelectorFoundationClasses.append(name) }
}

@_cdecl("csbridge_configuration_add_zombie_class")
@_spi(ObjCBridge) public func csbridge_configuration_add_zombie_class(
    _ configuration: UnsafeMutableRawPointer?, _ name: UnsafePointer<CChar>?
) {
    guard let name = string(name) else { return }
    with(configuration) { $0.zombieClassNames.append(name) }
}

@_cdecl("csbridge_configuration_set_limits")
@_spi(ObjCBridge) public func csbridge_configuration_set_limits(
    _ configuration: UnsafeMutableRawPointer?, _ maxDistinctReports: Int,
    _ detailedCapturesPerSecond: Int, _ maxStackDepth: Int
) {
    with(configuration) {
        $0.maxDistinctReports = maxDistinctReports
        $0.detailedCapturesPerSecond = detailedCapturesPerSecond
        $0.maxStackDepth = maxStackDepth
    }
}

@_cdecl("csbridge_configuration_set_zombies")
@_spi(ObjCBridge) public func csbridge_configuration_set_zombies(
    _ configuration: UnsafeMutableRawPointer?, _ maxBytes: Int,
    _ maxCount: Int, _ maxObjectSize: Int, _ recordsDeallocationStack: Bool
) {
    with(configuration) {
        $0.zombieMaxBytes = maxBytes
        $0.zombieMaxCount = maxCount
        $0.zombieMaxObjectSize = maxObjectSize
        $0.recordsZombieDeallocationStack = recordsDeallocationStack
    }
}

/// The three switches: kvoLeavesSystemClassesAlone, redactsAppData, logsReports.
@_cdecl("csbridge_configuration_set_switches")
@_spi(ObjCBridge) public func csbridge_configuration_set_switches(
    _ configuration: UnsafeMutableRawPointer?,
    _ kvoLeavesSystemClassesAlone: Bool, _ redactsAppData: Bool,
    _ logsReports: Bool
) {
    with(configuration) {
        $0.kvoLeavesSystemClassesAlone = kvoLeavesSystemClassesAlone
        $0.redactsAppData = redactsAppData
        $0.logsReports = logsReports
    }
}

/// Adds `selector` to `className`'s main-thread-only methods; a NULL selector only adds the class (with no methods).
@_cdecl("csbridge_configuration_add_main_thread_method")
@_spi(ObjCBridge) public func csbridge_configuration_add_main_thread_method(
    _ configuration: UnsafeMutableRawPointer?,
    _ className: UnsafePointer<CChar>?,
    _ selector: UnsafePointer<CChar>?
) {
    guard let className = string(className) else { return }
    with(configuration) { $0.mainThreadOnlyMethods[className, default: []] += string(selector).map { [$0] } ?? [] }
}

@_cdecl("csbridge_configuration_set_report_store")
@_spi(ObjCBridge) public func csbridge_configuration_set_report_store(
    _ configuration: UnsafeMutableRawPointer?,
    _ path: UnsafePointer<CChar>?
) {
    with(configuration) { $0.reportStorePath = string(path) }
}
