import Atomics
import CrashShieldRuntime.Internal

/// Everything that exists while CrashShield runs. Published atomically so that failure paths never take a lock that
/// `start`/`stop` might hold.
final class Session: AtomicReference, @unchecked Sendable {
    let configuration: Configuration
    let pipeline: ReportPipeline
    /// Guards currently switched on (the kill switch clears bits here before reverting hooks).
    let enabled: ManagedAtomic<UInt32>
    let excludedClasses: [ObjCClass]
    /// Installed guards by category bit (mutated only under `CrashShield`'s lock).
    var installed: [UInt32: InstalledGuard] = [:]

    /// A guard switched on: the declaration that installed it (its `uninstall` runs when it is switched off) and the
    /// hooks its `install` made, reverted newest first before that.
    struct InstalledGuard {
        let declaration: GuardDeclaration
        let hooks: [Hook]
    }

    init(configuration: Configuration) {
        self.configuration = configuration
        self.pipeline = ReportPipeline(limits: configuration.limits, sinks: configuration.sinks)
        self.enabled = ManagedAtomic(0)
        self.excludedClasses = configuration.excludedClassNames.compactMap { ObjCClass(named: $0) }
    }

    /// `configuration.isAppImage`, remembered per image path (a crash storm asks it for the same few images).
    func isAppImage(_ path: String) -> Bool {
        if let known = appImages.withLock({ $0[path] }) { return known }
        let isApp = configuration.isAppImage(path)
        appImages.withLock { $0[path] = isApp }
        return isApp
    }
    private let appImages = Locked([String: Bool]())

    /// "Is this class the app's?", the one answer every guard asks: whether the nearest class in `cls`'s superclass
    /// chain that has an image (a class made at run time, e.g. by KVO, has none) lives in one of the app's own images
    /// (`isAppImage`); nil when no class in the chain has an image. Cached per class for the session's life (a new
    /// configuration is a new session).
    func isAppClass(_ cls: ObjCClass) -> Bool? {
        let key = UInt(bitPattern: cls.pointer)
        if let known = appClasses.withLock({ $0[key] }) { return known }
        let isApp = cls.nearestImagePath.map(isAppImage)  // outside the lock: it asks the runtime and the app's closure
        appClasses.withLock { if $0.count < Self.maxAppClasses { $0[key] = isApp } }
        return isApp
    }
    private let appClasses = Locked([UInt: Bool?]())
    private static let maxAppClasses = 65_536

    func isEnabled(_ category: GuardCategory) -> Bool {
        enabled.load(ordering: .acquiring) & category.rawValue != 0
    }

    func isExcluded(_ cls: ObjCClass) -> Bool {
        !excludedClasses.isEmpty && excludedClasses.contains { cls.isKind(of: $0) }
    }

    /// Whether a hook of `category` guards a call on `receiver`: CrashShield runs, the guard is switched on, and the
    /// receiver's class is not excluded. Lock-free (two atomic loads and the deny list, which never changes): hooks
    /// ask it on every call, from any thread.
    static func isGuarding(_ category: GuardCategory, _ receiver: CSRObject) -> Bool {
        guard let session = current.load(ordering: .acquiring), session.isEnabled(category),
            let cls = ObjCClass(of: receiver)
        else { return false }
        return !session.isExcluded(cls)
    }

    /// Current session, if CrashShield runs.
    static let current = ManagedAtomic<Session?>(nil)
}
