import CrashShield
import CrashShieldRuntime.Internal

// What differs per platform (Swift's Objective-C interop on Apple platforms; raw pointers on Linux, which has none)
// is in Platform/NotificationsApple.swift and Platform/NotificationsGNUstep.swift: `ObservedNotification`,
// `NotificationOwner`, `NotificationThreadObject`, and the public `post` and `observe` that take Objective-C objects.

/// Orders the closures observing one notification: higher runs first; equal priorities run in the order they were
/// added.
public struct NotificationPriority: RawRepresentable, Comparable, Hashable, Sendable {
    public let rawValue: Double
    public init(rawValue: Double) { self.rawValue = rawValue }
    public static let low = NotificationPriority(rawValue: 250)
    public static let `default` = NotificationPriority(rawValue: 1000)
    public static let high = NotificationPriority(rawValue: 750_000)
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One closure observing a notification; `cancel()` stops it (it also stops when its owner is deallocated).
public final class NotificationObservation: @unchecked Sendable {
    let id: Int
    init(id: Int) { self.id = id }
    /// Stops the closure. Idempotent; safe from any thread, also from inside the closure.
    public func cancel() { ClosureObservations.shared.remove(ids: [id]) }
    /// Whether the closure still observes (false once cancelled or its owner was deallocated).
    public var isActive: Bool { ClosureObservations.shared.contains(id: id) }
}

/// Where the handlers of a posted notification run.
public enum NotificationThread {
    /// Now, on the posting thread (what `postNotification:` does).
    case current
    /// On the main thread, from its run loop.
    case main
    /// On this thread (a `Thread` on Apple platforms; on Linux, with no Objective-C interop, an `NSThread` as a raw
    /// pointer), from its run loop; the thread must run it.
    case thread(NotificationThreadObject)
}

/// Posting where the observers' handlers should run: every handler of that post, registered normally
/// (`addObserver:selector:name:object:`) or through `CrashShield.observe`, runs on the thread given. Works whether
/// CrashShield is started or not.
public enum NotificationPoster {
    static func post(
        name: String, objectPointer object: CSRObject?, userInfoPointer userInfo: CSRObject?,
        on thread: NotificationThread, waitUntilDone: Bool, centerPointer center: CSRObject?
    ) {
        withAutoreleasePool {
            let nsThread: CSRObject?
            switch thread {
            case .current: nsThread = nil
            case .main: nsThread = csr_nsthread_main()
            case .thread(let given): nsThread = NotificationThread.pointer(of: given)
            }
            post(
                nameObject: csr_string_create(name), object: object, userInfo: userInfo, thread: nsThread,
                waitUntilDone: waitUntilDone, center: center)
        }
    }

    /// The engine behind both APIs (Swift's `post`, Platform/, and Objective-C's `-[NSNotificationCenter cs_post...]`): `nameObject`
    /// is an NSString; a nil `thread` posts now on the calling thread.
    static func post(
        nameObject: CSRObject?, object: CSRObject?, userInfo: CSRObject?, thread: CSRObject?,
        waitUntilDone: Bool, center: CSRObject?
    ) {
        csr_notification_post(
            center ?? csr_notification_default_center(), nameObject, object, userInfo, thread,
            waitUntilDone)
    }
}

extension CrashShield {
    static func observe(
        _ name: String, objectPointer object: CSRObject?, owner: NotificationOwner,
        priority: NotificationPriority, centerPointer center: CSRObject?,
        _ handler: @escaping (ObservedNotification) -> Void
    ) throws -> NotificationObservation {
        try ClosureObservations.shared.add(
            name: name, object: object, owner: try ownerPointer(owner),
            priority: priority, center: center ?? csr_notification_default_center(),
            handler: handler)
    }

    /// Cancels `owner`'s closures: those observing `name` (every name when nil) with `priority` (every priority when
    /// nil). Removal by level: `removeObservations(owner: self, priority: .low)`.
    public static func removeObservations(
        owner: NotificationOwner, name: String? = nil,
        priority: NotificationPriority? = nil
    ) {
        guard let pointer = try? ownerPointer(owner) else { return }
        ClosureObservations.shared.remove(owner: pointer, name: name, priority: priority)
    }
}

/// The closures behind `CrashShield.observe`: one trampoline observer per (center, name, object) is registered with
/// Foundation and hands each notification to its closures in priority order. Owners are watched through
/// `DeallocWatcher` and never retained. One lock; closures and Foundation are called outside it.
final class ClosureObservations: DeallocObserver, @unchecked Sendable {
    static let shared = ClosureObservations()

    struct Key: Hashable { let center: UInt; let name: String; let object: UInt }

    struct Entry {
        let id: Int
        let owner: UInt
        let priority: NotificationPriority
        let handler: (ObservedNotification) -> Void
    }

    final class Group {
        let trampoline: CSRObject
        var entries: [Entry] = []
        init(trampoline: CSRObject) { self.trampoline = trampoline }
    }

    private let lock = Lock()
    private var groups: [Key: Group] = [:]
    private var keyOfTrampoline: [UInt: Key] = [:]
    private var owners: [UInt: Set<Int>] = [:]
    private var nextID = 0
    private let watcher = DeallocWatcher.shared

    private init() {
        csr_notification_set_handler { trampoline, notification in
            guard let trampoline, let notification else { return }
            ClosureObservations.shared.deliver(trampoline: trampoline, notification: notification)
        }
    }

    func contains(id: Int) -> Bool {
        lock.withLock { groups.values.contains { $0.entries.contains { $0.id == id } } }
    }

    var groupCount: Int { lock.withLock { groups.count } }

    func add(
        name: String, object: CSRObject?, owner: CSRObject, priority: NotificationPriority, center: CSRObject,
        handler: @escaping (ObservedNotification) -> Void
    ) throws -> NotificationObservation {
        try watcher.cover(objectOf: owner)
        let key = Key(center: UInt(bitPattern: center), name: name, object: UInt(bitPattern: object))
        var spare: CSRObject? = lock.withLock { groups[key] == nil } ? csr_notification_trampoline_new() : nil
        defer { if let spare { csr_object_release_owned(spare) } }
        let ownerAddress = UInt(bitPattern: owner)
        let (id, register): (Int, CSRObject?) = lock.withLock {
            nextID += 1
            var register: CSRObject?
            let group: Group
            if let existing = groups[key] {
                group = existing
            } else {
                let trampoline = spare ?? csr_notification_trampoline_new()!
                spare = nil
                group = Group(trampoline: trampoline)
                groups[key] = group
                keyOfTrampoline[UInt(bitPattern: trampoline)] = key
                register = trampoline
            }
            group.entries.append(Entry(id: nextID, owner: ownerAddress, priority: priority, handler: handler))
            if owners[ownerAddress] == nil { watcher.watch(ownerAddress, by: self) }
            owners[ownerAddress, default: []].insert(nextID)
            return (nextID, register)
        }
        if let register {
            withAutoreleasePool {
                csr_notification_add(
                    center, register, csr_notification_trampoline_selector(), csr_string_create(name),
                    object)
            }
        }
        return NotificationObservation(id: id)
    }

    func remove(ids: Set<Int>) {
        let emptied: [(center: UInt, trampoline: CSRObject)] = lock.withLock {
            var emptied: [(UInt, CSRObject)] = []
            for (key, group) in groups where group.entries.contains(where: { ids.contains($0.id) }) {
                for entry in group.entries where ids.contains(entry.id) {
                    owners[entry.owner]?.remove(entry.id)
                    if owners[entry.owner]?.isEmpty == true {
                        owners[entry.owner] = nil
                        watcher.unwatch(entry.owner, by: self)
                    }
                }
                group.entries.removeAll { ids.contains($0.id) }
                if group.entries.isEmpty {
                    groups[key] = nil
                    keyOfTrampoline[UInt(bitPattern: group.trampoline)] = nil
                    emptied.append((key.center, group.trampoline))
                }
            }
            return emptied
        }
        for (center, trampoline) in emptied {
            csr_notification_remove(UnsafeMutableRawPointer(bitPattern: center), trampoline, nil, nil)
            csr_object_release_owned(trampoline)
        }
    }

    /// Removes `owner`'s closures observing `name` (any when nil) with `priority` (any when nil).
    func remove(owner: CSRObject, name: String?, priority: NotificationPriority?) {
        let ownerAddress = UInt(bitPattern: owner)
        let ids: Set<Int> = lock.withLock {
            guard let owned = owners[ownerAddress] else { return [] }
            var ids = Set<Int>()
            for (key, group) in groups where name == nil || key.name == name {
                for entry in group.entries
                where owned.contains(entry.id) && (priority == nil || entry.priority == priority) {
                    ids.insert(entry.id)
                }
            }
            return ids
        }
        if !ids.isEmpty { remove(ids: ids) }
    }

    func deliver(trampoline: CSRObject, notification: CSRObject) {
        let entries: [Entry] = lock.withLock {
            guard let key = keyOfTrampoline[UInt(bitPattern: trampoline)], let group = groups[key] else { return [] }
            // Stable: equal priorities keep the order they were added in.
            return group.entries.enumerated().sorted {
                $0.element.priority != $1.element.priority
                    ? $0.element.priority > $1.element.priority : $0.offset < $1.offset
            }.map(\.element)
        }
        guard !entries.isEmpty else { return }
        let observed = ObservedNotification(
            name: string(csr_notification_name(notification)) ?? "",
            object: csr_notification_object(notification),
            userInfo: csr_notification_userInfo(notification),
            notification: notification)
        for entry in entries {
            // Skip a closure cancelled (or whose owner died) while earlier ones ran.
            let live = lock.withLock { owners[entry.owner]?.contains(entry.id) ?? false }
            if live { entry.handler(observed) }
        }
    }

    func objectWillDeallocate(_ object: CSRObject) {
        let ids = lock.withLock { owners[UInt(bitPattern: object)] ?? [] }
        if !ids.isEmpty { remove(ids: ids) }
    }
}

/// An NSString's text (nil for nil or a string that does not fit 1024 bytes).
private func string(_ object: CSRObject?) -> String? {
    guard let object else { return nil }
    var buffer = [CChar](repeating: 0, count: 1024)
    guard csr_string_copyUTF8(object, &buffer, buffer.count) else { return nil }
    return String(cString: buffer)
}
