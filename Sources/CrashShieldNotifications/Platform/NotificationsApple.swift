#if canImport(Darwin)
// Apple's platform unit of the notification API: what a phone compiles. Swift's Objective-C interop hands Foundation's
// objects to the app as themselves (`Notification`, `Thread`, `NotificationCenter`, any `NSObject`). Its twin,
// NotificationsGNUstep.swift, declares the same names with raw pointers for the Linux proving ground; each compiles
// to nothing on the other platform. The engine behind both is NotificationObservation.swift.
import CrashShield
import CrashShieldRuntime.Internal
import Foundation

/// A notification handed to a closure.
public struct ObservedNotification {
    /// The notification's name.
    public let name: String
    let objectPointer: UnsafeMutableRawPointer?
    let notificationPointer: UnsafeMutableRawPointer
    /// The notification's object (`Notification.object`), or nil.
    public var object: AnyObject? { objectPointer.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() } }
    /// The notification's `userInfo`, or nil.
    public var userInfo: [AnyHashable: Any]? { notification.userInfo }
    /// The notification itself.
    public var notification: Notification {
        Unmanaged<NSNotification>.fromOpaque(notificationPointer).takeUnretainedValue() as Notification
    }

    init(
        name: String, object: UnsafeMutableRawPointer?, userInfo: UnsafeMutableRawPointer?,
        notification: UnsafeMutableRawPointer
    ) {
        self.name = name
        objectPointer = object
        notificationPointer = notification
    }
}

/// The object a closure's lifetime is bound to. On Apple platforms an Objective-C object (any `NSObject`); Swift
/// classes that do not inherit from NSObject are refused (their deinit never reaches `-dealloc`, so their death could
/// not be seen).
public typealias NotificationOwner = AnyObject

/// The thread `NotificationThread.thread` names: a `Thread`.
public typealias NotificationThreadObject = Thread

extension NotificationThread {
    static func pointer(of thread: NotificationThreadObject) -> CSRObject {
        Unmanaged.passUnretained(thread).toOpaque()
    }
}

extension NotificationPoster {
    /// Posts `name` with `object` and `userInfo` through `center` (default: the default center).
    /// With `.main` or `.thread`, `waitUntilDone` blocks until every handler returned.
    public static func post(
        name: String, object: AnyObject? = nil, userInfo: [AnyHashable: Any]? = nil,
        on thread: NotificationThread = .current, waitUntilDone: Bool = false,
        center: NotificationCenter? = nil
    ) {
        let info = userInfo.map { $0 as NSDictionary }
        post(
            name: name, objectPointer: object.map { Unmanaged.passUnretained($0).toOpaque() },
            userInfoPointer: info.map { Unmanaged.passUnretained($0).toOpaque() }, on: thread,
            waitUntilDone: waitUntilDone, centerPointer: center.map { Unmanaged.passUnretained($0).toOpaque() })
        withExtendedLifetime((object, info, center)) {}
    }
}

extension CrashShield {
    /// Runs `handler` for every notification named `name` (from `object` only, when given) posted to `center`
    /// (default: the default center), until `owner` is deallocated or the observation is cancelled. Closures
    /// observing the same notification run by `priority`. Nothing to remove in `owner`'s `-dealloc`; works whether
    /// CrashShield is started or not. `owner` is never retained.
    ///
    /// Throws when `owner`'s class cannot be watched for deallocation.
    @discardableResult
    public static func observe(
        _ name: String, object: AnyObject? = nil,
        owner: NotificationOwner, priority: NotificationPriority = .default,
        center: NotificationCenter? = nil,
        _ handler: @escaping (ObservedNotification) -> Void
    ) throws -> NotificationObservation {
        // The observation keeps only the addresses, as NotificationCenter does: `object` only filters.
        try withExtendedLifetime((object, center)) {
            try observe(
                name, objectPointer: object.map { Unmanaged.passUnretained($0).toOpaque() }, owner: owner,
                priority: priority, centerPointer: center.map { Unmanaged.passUnretained($0).toOpaque() },
                handler)
        }
    }

    static func ownerPointer(_ owner: NotificationOwner) throws -> CSRObject {
        // A pure Swift object is an Objective-C object too on Apple platforms, but its deinit never sends -dealloc.
        guard owner is NSObject || owner is NSProxy else {
            throw CrashShieldError.invalidConfiguration(
                "observe(owner:): '\(type(of: owner))' is not an Objective-C object (NSObject subclass); its deallocation cannot be watched"
            )
        }
        return Unmanaged.passUnretained(owner).toOpaque()
    }
}
#endif
