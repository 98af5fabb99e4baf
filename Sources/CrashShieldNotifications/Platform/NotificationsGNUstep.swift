#if !canImport(Darwin)
// GNUstep's platform unit of the notification API, compiled only on the Linux proving ground (a phone compiles its
// twin, NotificationsApple.swift): Swift has no Objective-C interop there, so Objective-C objects reach Swift as raw
// pointers. The engine behind both is NotificationObservation.swift.
import CrashShield
import CrashShieldRuntime.Internal

/// A notification handed to a closure. The pointers are valid during the call only (retain them to keep them).
/// (GNUstep on Linux: Swift has no Objective-C interop there, so Objective-C objects are raw pointers.)
public struct ObservedNotification {
    /// The notification's name.
    public let name: String
    /// The notification's object (`NSNotification.object`), or nil.
    public let object: UnsafeMutableRawPointer?
    /// The notification's `userInfo` dictionary, or nil.
    public let userInfo: UnsafeMutableRawPointer?
    /// The `NSNotification` itself.
    public let notification: UnsafeMutableRawPointer
    var notificationPointer: UnsafeMutableRawPointer { notification }
}

/// The object a closure's lifetime is bound to. Elsewhere (GNUstep on Linux) Swift has no Objective-C interop:
/// Objective-C objects reach Swift only as raw pointers, so the owner is one (an `id`, not retained).
public typealias NotificationOwner = UnsafeMutableRawPointer

/// The thread `NotificationThread.thread` names: an `NSThread`, as a raw pointer.
public typealias NotificationThreadObject = UnsafeMutableRawPointer

extension NotificationThread {
    static func pointer(of thread: NotificationThreadObject) -> CSRObject { thread }
}

extension NotificationPoster {
    /// Posts `name` with `object` and `userInfo` (an NSDictionary) through `center` (default: the default center).
    /// With `.main` or `.thread`, `waitUntilDone` blocks until every handler returned. (Objective-C objects are raw
    /// pointers on Linux: Swift has no Objective-C interop there.)
    public static func post(
        name: String, object: UnsafeMutableRawPointer? = nil,
        userInfo: UnsafeMutableRawPointer? = nil, on thread: NotificationThread = .current,
        waitUntilDone: Bool = false, center: UnsafeMutableRawPointer? = nil
    ) {
        post(
            name: name, objectPointer: object, userInfoPointer: userInfo, on: thread, waitUntilDone: waitUntilDone,
            centerPointer: center)
    }
}

extension CrashShield {
    /// Runs `handler` for every notification named `name` (from `object` only, when given) posted to `center`
    /// (default: the default center), until `owner` is deallocated or the observation is cancelled. Closures
    /// observing the same notification run by `priority`. Nothing to remove in `owner`'s `-dealloc`; works whether
    /// CrashShield is started or not. `owner` is never retained.
    ///
    /// Throws when `owner`'s class cannot be watched for deallocation.
    /// (Objective-C objects are raw pointers on Linux: Swift has no Objective-C interop there.)
    @discardableResult
    public static func observe(
        _ name: String, object: UnsafeMutableRawPointer? = nil,
        owner: NotificationOwner, priority: NotificationPriority = .default,
        center: UnsafeMutableRawPointer? = nil,
        _ handler: @escaping (ObservedNotification) -> Void
    ) throws -> NotificationObservation {
        try observe(name, objectPointer: object, owner: owner, priority: priority, centerPointer: center, handler)
    }

    static func ownerPointer(_ owner: NotificationOwner) throws -> CSRObject { owner }
}
#endif
