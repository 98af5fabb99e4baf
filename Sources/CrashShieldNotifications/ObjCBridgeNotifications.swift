@_spi(ObjCBridge) import CrashShield
import CrashShieldRuntime.Internal

// The notification categories under the Objective-C API (product CrashShieldObjC: NSNotificationCenter+CSThread,
// NSObject+CSNotificationObservation). Declared in Sources/CrashShieldObjC/CSBridge.h (keep both in step); SPI
// ObjCBridge, as CrashShield's Core/ObjCBridge.swift says.

/// `NotificationPoster`'s engine: posts `name` (an NSString) with `object` and `userInfo` through `center` (NULL:
/// the default center) on `thread` (NULL: now, on the calling thread).
@_cdecl("csbridge_post_notification")
@_spi(ObjCBridge) public func csbridge_post_notification(
    _ center: CSRObject?, _ name: CSRObject?, _ object: CSRObject?,
    _ userInfo: CSRObject?, _ thread: CSRObject?, _ waitUntilDone: Bool
) {
    NotificationPoster.post(
        nameObject: name, object: object, userInfo: userInfo, thread: thread,
        waitUntilDone: waitUntilDone, center: center)
}

@_spi(ObjCBridge) public typealias BridgeObservationFunction =
    @convention(c) (UnsafeMutableRawPointer?, CSRObject?, CSRObject?) -> Void

/// `CrashShield.observe`'s engine: calls `function(context, notification, owner)` for every `name` (UTF-8) from
/// `object` (NULL: any) posted to `center` (NULL: the default center), by `priority`, until `owner` is deallocated or
/// the observation (its id in `observationID`) is cancelled; then `release(context)` runs.
@_cdecl("csbridge_observe")
@_spi(ObjCBridge) public func csbridge_observe(
    _ center: CSRObject?, _ name: UnsafePointer<CChar>?, _ object: CSRObject?,
    _ owner: CSRObject?, _ priority: Double, _ function: BridgeObservationFunction?,
    _ context: UnsafeMutableRawPointer?, _ release: BridgeRelease?,
    _ observationID: UnsafeMutablePointer<Int>?, _ message: BridgeMessage?
) -> Int32 {
    let owned = BridgeContext(context, release: release)
    guard let name, let owner, let function else {
        return fail(.invalidArgument, "observe needs a name, an owner and a block", message)
    }
    return bridged(message) {
        let observation = try ClosureObservations.shared.add(
            name: String(cString: name), object: object, owner: owner,
            priority: NotificationPriority(rawValue: priority),
            center: center ?? csr_notification_default_center()
        ) { note in function(owned.pointer, note.notificationPointer, owner) }
        observationID?.pointee = observation.id
    }
}

@_cdecl("csbridge_observation_cancel")
@_spi(ObjCBridge) public func csbridge_observation_cancel(_ observationID: Int) {
    NotificationObservation(id: observationID).cancel()
}

@_cdecl("csbridge_observation_is_active")
@_spi(ObjCBridge) public func csbridge_observation_is_active(_ observationID: Int) -> Bool {
    NotificationObservation(id: observationID).isActive
}

/// Removes `owner`'s observations of `name` (NULL: every name) with `priority` (only when `byPriority`).
@_cdecl("csbridge_remove_observations")
@_spi(ObjCBridge) public func csbridge_remove_observations(
    _ owner: CSRObject?, _ name: UnsafePointer<CChar>?, _ byPriority: Bool,
    _ priority: Double
) {
    guard let owner else { return }
    ClosureObservations.shared.remove(
        owner: owner, name: name.map { String(cString: $0) },
        priority: byPriority ? NotificationPriority(rawValue: priority) : nil)
}
