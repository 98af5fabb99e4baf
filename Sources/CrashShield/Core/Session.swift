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
    /// Installed guards and their hooks (mutated only under `CrashShield`'s lock).
    var installed: [UInt32: (guardObject: any CrashGuard, hooks: [Hook])] = [:]

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
              let cls = ObjCClass(of: receiver) else { return false }
        return !session.isExcluded(cls)
    }

    /// Current session, if CrashShield runs.
    static let current = ManagedAtomic<Session?>(nil)
}
