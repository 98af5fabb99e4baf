import CrashShieldRuntime.Internal
import Foundation

/// How CrashShield runs: which guards, in which mode, for which classes, and where reports go.
public struct Configuration: Sendable {
    /// The guards to install. Disabled guards install nothing and cost nothing.
    public var guards: GuardCategory
    /// The mode of every guard without an override.
    public var mode: GuardMode
    /// Per-guard modes, e.g. `[.mainThreadUI: .debug]`.
    public var modeOverrides: [GuardCategory: GuardMode]
    /// Deny list: receivers of these classes (or their subclasses) are never protected; their calls behave exactly
    /// as without CrashShield. A name the runtime does not know (a class since removed) is logged once and skipped;
    /// a root class (NSObject, NSProxy), which would exclude every object, is refused.
    public var excludedClassNames: Set<String>
    /// Class-name prefixes for the guards that protect the app's own classes. The unrecognized-selector guard
    /// protects classes defined in the app's own binaries and plain NSObject instances and, in addition, classes
    /// whose names start with one of these prefixes. The zombie guard protects only the classes these prefixes (and
    /// `ZombieOptions.classNames`) select when either is set; when both are empty, classes defined in the app's own
    /// binaries. A prefix that would cover the system's own classes is refused: an empty one, one that begins a
    /// system namespace (`NS`, `_`, `__NS`, `CF`, `GS`, `UI`, `OS_`, ...), or one that is not a class name and begins
    /// the name of a class of Foundation's own binaries (libobjc, CoreFoundation, Foundation; GNUstep Base). A
    /// complete class name ("NSLock") protects that class, and classes whose names extend it; with the zombie guard,
    /// whose prefixes match ancestors too, a root class's name is refused. Foundation types belong in
    /// `unrecognizedSelectorFoundationClasses`.
    public var protectedClassPrefixes: [String]
    /// Foundation classes the unrecognized-selector guard protects on top of the app's own classes: the types app
    /// code commonly confuses (a number used as a string, an array used as a dictionary). A receiver of one of
    /// these classes or of a subclass (class-cluster members included) is protected. NSNull is not listed: the
    /// `nsNull` guard owns every message to NSNull.
    public var unrecognizedSelectorFoundationClasses: [String]
    /// Where reports go.
    public var sinks: [any ReportSink]
    /// Bounds on report memory and time.
    public var limits: ReportLimits
    /// Whether a binary image (by path) is the app's own code rather than a system library. Debug mode fails loudly
    /// only for calls from the app's own code.
    public var isAppImage: @Sendable (String) -> Bool
    /// Applied to every detailed report before it is kept or any sink sees it: remove app data from reasons and
    /// details (see `Redaction` for what a report can quote; `Redaction.withoutAppData` drops it all). nil: none.
    public var redact: (@Sendable (CrashReport) -> CrashReport)?
    /// The zombie guard's pool and the classes whose objects become zombies (see `ZombieOptions`).
    public var zombies = ZombieOptions()
    /// The KVO guard leaves the key-value observing of system classes alone: a registration whose
    /// observed object or observer is of a class defined outside the app's own binaries (`isAppImage`), such as a
    /// framework observing its own objects or the app observing a `UIScrollView`, and its removal, go to Foundation
    /// untouched. false: those are guarded too.
    public var kvoLeavesSystemClassesAlone = true
    /// Main-thread-only methods, by class name (the class and its subclasses): the selectors the main-thread guard
    /// watches. A class that does not exist in this process is logged once and skipped (UIView of the default
    /// silently: UIKit is not in every process). Default: UIView's layout, constraint and display invalidation
    /// (calls that only mark the view for the next pass; none changes the view hierarchy).
    public var mainThreadOnlyMethods: [String: [String]] = Configuration.defaultMainThreadOnlyMethods

    /// The default `mainThreadOnlyMethods`.
    public static let defaultMainThreadOnlyMethods: [String: [String]] = [
        "UIView": [
            "setNeedsLayout", "setNeedsDisplay", "setNeedsDisplayInRect:", "layoutIfNeeded",
            "setNeedsUpdateConstraints",
            "invalidateIntrinsicContentSize",
        ]
    ]

    public init(
        guards: GuardCategory = .productionSafe, mode: GuardMode = .release,
        modeOverrides: [GuardCategory: GuardMode] = [:], excludedClassNames: Set<String> = [],
        protectedClassPrefixes: [String] = [],
        unrecognizedSelectorFoundationClasses: [String] = Configuration.defaultUnrecognizedSelectorFoundationClasses,
        sinks: [any ReportSink] = [],
        limits: ReportLimits = ReportLimits(), isAppImage: @escaping @Sendable (String) -> Bool = AppImages.isAppImage
    ) {
        self.guards = guards
        self.mode = mode
        self.modeOverrides = modeOverrides
        self.excludedClassNames = excludedClassNames
        self.protectedClassPrefixes = protectedClassPrefixes
        self.unrecognizedSelectorFoundationClasses = unrecognizedSelectorFoundationClasses
        self.sinks = sinks
        self.limits = limits
        self.isAppImage = isAppImage
    }

    /// The default `unrecognizedSelectorFoundationClasses`.
    public static let defaultUnrecognizedSelectorFoundationClasses = [
        "NSString", "NSNumber", "NSArray", "NSDictionary",
    ]

    /// Release builds: production-safe guards, recover and report.
    public static var production: Configuration { Configuration() }
    /// Development builds: the same guards, failing loudly so the bug gets fixed; each report is logged
    /// (`LogReportSink`) before the failure, so the developer sees what CrashShield saw.
    public static var debug: Configuration { Configuration(mode: .debug, sinks: [LogReportSink()]) }

    /// The mode of one guard.
    public func mode(for category: GuardCategory) -> GuardMode { modeOverrides[category] ?? mode }

    /// Throws a clear error for anything CrashShield cannot honour or that would switch protection off where the
    /// app expects it (a root class excluded, a prefix that covers Foundation's own classes). What is legal but
    /// almost always a mistake is not thrown: see `warnings`.
    public func validate() throws {
        for name in excludedClassNames.sorted() {
            // A root class would exclude every object: every guard would be on and protect nothing.
            if let cls = ObjCClass(named: name), cls.superclass == nil {
                throw CrashShieldError.invalidConfiguration(
                    "excludedClassNames: '\(name)' is a root class; every object descends from it, so every guard would protect nothing. Name the classes to leave alone (or switch guards off with `guards`)"
                )
            }
        }
        for name in unrecognizedSelectorFoundationClasses where ObjCClass(named: name) == nil {
            throw CrashShieldError.unknownClass(name)
        }
        for (category, _) in modeOverrides where category.members.count != 1 {
            throw CrashShieldError.invalidConfiguration("mode overrides take single guards, got \(category.name)")
        }
        if protectedClassPrefixes.contains(where: \.isEmpty) {
            throw CrashShieldError.invalidConfiguration("an empty class prefix would protect every class")
        }
        for prefix in protectedClassPrefixes {
            if let problem = Self.systemClassesCovered(by: prefix) {
                throw CrashShieldError.invalidConfiguration(
                    "protectedClassPrefixes: '\(prefix)' \(problem), whose objects would then be protected (and kept as zombies); use your own classes' prefix, and unrecognizedSelectorFoundationClasses for Foundation types"
                )
            }
        }
        if guards.contains(.zombie) { try validateZombiePrefixes() }
        try limits.validate()
        try zombies.validate()
        try validateGuards(guards, in: "guards")
        for (category, _) in modeOverrides { try validateGuards(category, in: "modeOverrides") }
        for (className, selectors) in mainThreadOnlyMethods.sorted(by: { $0.key < $1.key }) {
            if className.isEmpty || selectors.contains(where: \.isEmpty) {
                throw CrashShieldError.invalidConfiguration(
                    "mainThreadOnlyMethods: empty class name or selector for '\(className)'")
            }
            // Hooking a root class would put the check on every object's messages; a forwarding or memory-management
            // selector would break the runtime itself. Both would be worse than no guard.
            if let cls = ObjCClass(named: className), cls.superclass == nil {
                throw CrashShieldError.invalidConfiguration(
                    "mainThreadOnlyMethods: '\(className)' is a root class; name the UI class whose methods are main-thread-only"
                )
            }
            if let selector = selectors.first(where: Self.runtimeSelectors.contains) {
                throw CrashShieldError.invalidConfiguration(
                    "mainThreadOnlyMethods: '\(selector)' of '\(className)' is a runtime, forwarding or memory-management method and cannot be main-thread-only"
                )
            }
        }
    }

    /// Mistakes that are legal, so `start` logs each once (per process) and goes on: names in `excludedClassNames`
    /// or classes of `mainThreadOnlyMethods` that do not exist in this process (skipped), and an empty `guards`
    /// (starting with no guard is allowed, for a kill switch that starts everything off, but is rarely meant).
    public var warnings: [String] {
        var warnings: [String] = []
        if guards.isEmpty {
            warnings.append(
                "guards is empty: CrashShield runs but protects nothing; use the default .productionSafe, or switch guards on later with setGuard(_:enabled:)"
            )
        }
        for name in excludedClassNames.sorted() where ObjCClass(named: name) == nil {
            warnings.append("excludedClassNames: no class '\(name)' in this process (renamed or removed?); skipped")
        }
        for className in mainThreadOnlyMethods.keys.sorted() where ObjCClass(named: className) == nil {
            if Self.defaultMainThreadOnlyMethods[className] != nil { continue }  // UIKit is not in every process
            warnings.append(
                "mainThreadOnlyMethods: no class '\(className)' in this process (renamed, or its framework not loaded?); its methods are not watched"
            )
        }
        return warnings
    }

    /// The zombie guard matches a prefix against a class and its ancestors: a prefix that matches a root class's name
    /// would keep every freed object. Checked by `validate` when `guards` has the zombie guard, and by
    /// `CrashShield.setGuard` when it switches the zombie guard on.
    func validateZombiePrefixes() throws {
        for prefix in protectedClassPrefixes {
            if let root = Self.rootClassNames.first(where: { $0.hasPrefix(prefix) }) {
                throw CrashShieldError.invalidConfiguration(
                    "protectedClassPrefixes: '\(prefix)' matches the root class '\(root)'; the zombie guard matches ancestors too, so every freed object would be kept. Use your own classes' prefix"
                )
            }
        }
    }

    /// Namespaces of the system's own classes, on every platform: a prefix that begins one of these is refused.
    static let systemClassNamespaces = ["NS", "_NS", "__NS", "CF", "_CF", "__CF", "GS", "UI", "_UI", "OS_", "_Tt"]

    /// Why `prefix` would cover the system's own classes, or nil when it does not.
    static func systemClassesCovered(by prefix: String) -> String? {
        if let namespace = systemClassNamespaces.first(where: { $0.hasPrefix(prefix) }) {
            return "begins the system's '\(namespace)' class names"
        }
        // A complete class name is meant: it protects that class (and classes whose names extend it).
        if ObjCClass(named: prefix) == nil, let name = foundationClassNames.first(where: { $0.hasPrefix(prefix) }) {
            return "begins the name of Foundation's own class '\(name)'"
        }
        return nil
    }

    /// The root classes of Foundation's binaries (NSObject, NSProxy, ...).
    static let rootClassNames: [String] = foundationClassNames.filter { ObjCClass(named: $0)?.superclass == nil }

    /// The classes of the binaries that define NSObject, NSString, NSArray and NSProxy (libobjc, Foundation,
    /// CoreFoundation on Apple platforms; GNUstep Base), sorted. Read once.
    static let foundationClassNames: [String] = {
        var images = Set<String>()
        var names = Set<String>()
        for anchor in ["NSObject", "NSString", "NSArray", "NSProxy"] {
            guard let cls = ObjCClass(named: anchor), let image = cls.imagePath, images.insert(image).inserted else {
                continue
            }
            var count: UInt32 = 0
            guard let list = csr_copy_class_names_in_image_of(cls.pointer, &count) else { continue }
            for index in 0..<Int(count) { if let name = list[index] { names.insert(String(cString: name)) } }
            free(UnsafeMutableRawPointer(mutating: list))
        }
        return names.sorted()
    }()

    /// Selectors the runtime itself sends (memory management, forwarding, introspection): never hooked by the
    /// main-thread guard.
    static let runtimeSelectors: Set<String> = [
        "alloc", "allocWithZone:", "init", "new", "copy", "mutableCopy", "copyWithZone:", "mutableCopyWithZone:",
        "retain", "release", "autorelease", "retainCount", "dealloc", ".cxx_destruct", "finalize",
        "class", "superclass", "self", "isKindOfClass:", "isMemberOfClass:", "respondsToSelector:",
        "conformsToProtocol:", "methodSignatureForSelector:", "forwardInvocation:", "forwardingTargetForSelector:",
        "doesNotRecognizeSelector:", "resolveInstanceMethod:", "resolveClassMethod:", "methodForSelector:",
        "instanceMethodForSelector:", "performSelector:", "hash", "isEqual:", "description", "debugDescription",
        "zone", "_tryRetain", "_isDeallocating", "allowsWeakReference", "retainWeakReference", "initialize", "load",
    ]

    /// Every bit of `categories` must name a guard.
    private func validateGuards(_ categories: GuardCategory, in field: String) throws {
        let unknown = categories.subtracting(.all)
        guard unknown.isEmpty else {
            throw CrashShieldError.invalidConfiguration(
                "\(field): bits 0x\(String(unknown.rawValue, radix: 16)) name no guard (known: \(GuardCategory.all.name))"
            )
        }
    }
}

/// What the zombie guard keeps, and for which classes.
///
/// Objects of the protected classes are not freed when deallocated: they become zombies that report any message
/// sent to them and answer nil/0. Zombies live in a pool bounded in bytes and in count; when either bound would be
/// exceeded, the oldest zombies are freed for real (and a message to one of those crashes as without CrashShield).
public struct ZombieOptions: Sendable, Equatable {
    /// Bytes of instance memory the pool may keep (by `class_getInstanceSize`).
    public var maxBytes: Int
    /// Zombies the pool may keep.
    public var maxCount: Int
    /// Objects larger than this are freed at once, never kept as zombies.
    public var maxObjectSize: Int
    /// Classes (and their subclasses) to protect, by name, in addition to `Configuration.protectedClassPrefixes`.
    /// When both are empty, the classes defined in the app's own binaries are protected (`Configuration.isAppImage`).
    public var classNames: Set<String>
    /// Records a short call stack where each zombie was deallocated, for its reports ("deallocatedAt",
    /// "deallocationStack"). Off by default: a stack capture costs microseconds per protected deallocation (on Linux
    /// about 6-9 µs: the walk validates every read, so that a broken frame can never crash the app).
    public var recordsDeallocationStack: Bool

    /// Largest `maxBytes` accepted (256 MiB): a pool must stay a small part of an app's memory.
    public static let maxPoolBytes = 256 << 20
    /// Largest `maxCount` accepted.
    public static let maxPoolCount = 1_000_000

    public init(
        maxBytes: Int = 10 << 20, maxCount: Int = 10_000, maxObjectSize: Int = 64 << 10,
        classNames: Set<String> = [], recordsDeallocationStack: Bool = false
    ) {
        self.maxBytes = maxBytes
        self.maxCount = maxCount
        self.maxObjectSize = maxObjectSize
        self.classNames = classNames
        self.recordsDeallocationStack = recordsDeallocationStack
    }

    func validate() throws {
        guard maxBytes >= 0, maxCount >= 0, maxObjectSize >= 0 else {
            throw CrashShieldError.invalidConfiguration("zombie pool bounds must not be negative")
        }
        guard maxBytes <= Self.maxPoolBytes, maxCount <= Self.maxPoolCount else {
            throw CrashShieldError.invalidConfiguration(
                "zombie pool bounds: maxBytes <= \(Self.maxPoolBytes) and maxCount <= \(Self.maxPoolCount), got \(maxBytes) and \(maxCount)"
            )
        }
        for name in classNames.sorted() {
            guard let cls = ObjCClass(named: name) else { throw CrashShieldError.unknownClass(name) }
            // A root class (NSObject, NSProxy) would make every object of the process a zombie.
            if cls.superclass == nil {
                throw CrashShieldError.invalidConfiguration(
                    "zombies.classNames: '\(name)' is a root class, which would keep every freed object of the app; name the app's own classes"
                )
            }
        }
    }
}

/// Bounds on what the report pipeline keeps and how much work a crash storm may cause.
public struct ReportLimits: Sendable, Equatable {
    /// Distinct reports kept (by signature); later new ones are counted in `droppedReports` only.
    public var maxDistinctReports: Int
    /// Per (guard, class, selector), how many occurrences a second get a full call stack; the rest are only counted.
    public var detailedCapturesPerSecond: Int
    /// Frames kept per call stack.
    public var maxStackDepth: Int

    public init(maxDistinctReports: Int = 256, detailedCapturesPerSecond: Int = 20, maxStackDepth: Int = 32) {
        self.maxDistinctReports = maxDistinctReports
        self.detailedCapturesPerSecond = detailedCapturesPerSecond
        self.maxStackDepth = maxStackDepth
    }

    func validate() throws {
        guard maxDistinctReports >= 1 else {
            throw CrashShieldError.invalidConfiguration(
                "maxDistinctReports must be at least 1, got \(maxDistinctReports)")
        }
        guard detailedCapturesPerSecond >= 1 else {
            throw CrashShieldError.invalidConfiguration(
                "detailedCapturesPerSecond must be at least 1, got \(detailedCapturesPerSecond)")
        }
        guard (4...256).contains(maxStackDepth) else {
            throw CrashShieldError.invalidConfiguration("maxStackDepth must be 4...256, got \(maxStackDepth)")
        }
    }
}

/// Which binaries are the app's own (the default of `Configuration.isAppImage`).
@usableFromInline package enum AppImages {
    /// Folders of system libraries: Apple's (device and simulator runtime roots) and Linux's.
    static let systemPrefixes = ["/System/", "/usr/lib/", "/lib/", "/lib64/", "/usr/lib64/", "/Library/Apple/"]

    /// Default: every image outside the system folders is the app's.
    @usableFromInline @Sendable package static func isAppImage(_ path: String) -> Bool {
        if path.contains("/RuntimeRoot/") { return false }
        return !systemPrefixes.contains { path.hasPrefix($0) }
    }
}
