/// The kinds of crash CrashShield can stop, as an option set. Each category is one guard.
public struct GuardCategory: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Out-of-range and nil arguments to NSArray, NSDictionary, NSSet, NSOrderedSet and their mutable forms.
    public static let container = GuardCategory(rawValue: 1 << 0)
    /// Out-of-range and nil arguments to NSString, NSMutableString and attributed strings.
    public static let string = GuardCategory(rawValue: 1 << 1)
    /// `unrecognized selector sent to instance/class`.
    public static let unrecognizedSelector = GuardCategory(rawValue: 1 << 2)
    /// Messages to NSNull (a JSON null used as a value).
    public static let nsNull = GuardCategory(rawValue: 1 << 3)
    /// Undefined keys, nil keys and nil scalars in key-value coding.
    public static let kvc = GuardCategory(rawValue: 1 << 4)
    /// Unbalanced and dangling key-value observation.
    public static let kvo = GuardCategory(rawValue: 1 << 5)
    /// Notification observers that die or lack their selector.
    public static let notification = GuardCategory(rawValue: 1 << 6)
    /// Timers whose target lacks its selector, or is freed (over-released) while the timer holds it.
    public static let timer = GuardCategory(rawValue: 1 << 7)
    /// Messages to deallocated objects (opt-in: costs memory).
    public static let zombie = GuardCategory(rawValue: 1 << 8)
    /// UI methods called off the main thread.
    public static let mainThreadUI = GuardCategory(rawValue: 1 << 9)
    /// Opt-in: UIKit and Core Animation calls that raise (a CALayer given NaN geometry, a view controller pushed twice).
    /// In no preset but `.all`: it hooks UIKit's own classes, which the tests here can only imitate.
    public static let uikit = GuardCategory(rawValue: 1 << 10)

    /// Every single category, in a stable order.
    public static let allCategories: [GuardCategory] = [
        .container, .string, .unrecognizedSelector, .nsNull, .kvc, .kvo, .notification, .timer, .zombie, .mainThreadUI,
        .uikit,
    ]
    /// Every category.
    public static let all = GuardCategory(allCategories)
    /// Everything but zombies, which keep freed memory and must be switched on deliberately, and the opt-in UIKit guard.
    public static let productionSafe = all.subtracting([.zombie, .uikit])

    private static let names: [UInt32: String] = [
        1 << 0: "container", 1 << 1: "string", 1 << 2: "unrecognizedSelector", 1 << 3: "nsNull", 1 << 4: "kvc",
        1 << 5: "kvo", 1 << 6: "notification", 1 << 7: "timer", 1 << 8: "zombie", 1 << 9: "mainThreadUI",
        1 << 10: "uikit",
    ]

    /// The single categories in this set.
    public var members: [GuardCategory] { Self.allCategories.filter { contains($0) } }

    /// The name of a single category ("container"); a list for a set.
    public var name: String {
        Self.names[rawValue] ?? members.map(\.name).joined(separator: ",")
    }

    /// The single category with this name.
    public init?(name: String) {
        guard let entry = Self.names.first(where: { $0.value == name }) else { return nil }
        self.init(rawValue: entry.key)
    }

    public var description: String { "[\(name)]" }
}

/// What a guard does when it stops a crash.
public enum GuardMode: String, Sendable, Codable {
    /// Report, then fail exactly as the original would (for development builds), when the call comes from the app's
    /// own code. Calls from system libraries are recovered, since those may catch their own exceptions.
    case debug
    /// Recover (the caller gets nil, 0 or NO; an invalid mutation is skipped) and report.
    case release
}
