import Foundation
import Logging

/// CrashShield's public entry point.
///
/// ```swift
/// try CrashShield.start(.production)          // release builds: recover and report
/// try CrashShield.start(.debug)               // development builds: fail loudly at the bad call
/// CrashShield.setGuard(.kvo, enabled: false)  // kill switch, e.g. from a remote flag
/// CrashShield.stop()                          // every original implementation back
/// ```
public enum CrashShield {
    private static let lock = Lock()
    static let logger = Logger(label: "CrashShield")

    /// Installs the configured guards. Throws `CrashShieldError.alreadyRunning` when running (stop first), or a
    /// configuration error; on any error nothing stays installed.
    public static func start(_ configuration: Configuration = .production) throws {
        try lock.withLock {
            guard Session.current.load(ordering: .acquiring) == nil else { throw CrashShieldError.alreadyRunning }
            try configuration.validate()
            let session = Session(configuration: configuration)
            Session.current.store(session, ordering: .releasing)
            do {
                for category in configuration.guards.members { try install(category, in: session) }
            } catch {
                uninstallAll(session)
                Session.current.store(nil, ordering: .releasing)
                throw error
            }
        }
    }

    /// Reverts every hook and flushes pending report counts. Safe to call when not running (does nothing).
    public static func stop() {
        lock.withLock {
            guard let session = Session.current.load(ordering: .acquiring) else { return }
            uninstallAll(session)
            Session.current.store(nil, ordering: .releasing)
            session.pipeline.flush()
        }
    }

    /// Whether CrashShield runs.
    public static var isRunning: Bool { Session.current.load(ordering: .acquiring) != nil }

    /// The guards installed right now.
    public static var activeGuards: GuardCategory {
        GuardCategory(rawValue: Session.current.load(ordering: .acquiring)?.enabled.load(ordering: .acquiring) ?? 0)
    }

    /// Guards this build ships. Categories outside it are skipped by `start`.
    public static var availableGuards: GuardCategory { GuardRegistry.available }

    /// Kill switch: switches guards off (their hooks are reverted, calls behave as without CrashShield) or back on,
    /// at run time. Returns false when CrashShield is not running.
    @discardableResult
    public static func setGuard(_ categories: GuardCategory, enabled: Bool) throws -> Bool {
        try lock.withLock {
            guard let session = Session.current.load(ordering: .acquiring) else { return false }
            for category in categories.members {
                if enabled {
                    try install(category, in: session)
                } else {
                    uninstall(category, in: session)
                }
            }
            return true
        }
    }

    /// Every distinct report of this run, with current counts.
    public static var reports: [CrashReport] { Session.current.load(ordering: .acquiring)?.pipeline.reports ?? [] }

    /// Delivers report counts that changed since they were last delivered.
    public static func flush() { Session.current.load(ordering: .acquiring)?.pipeline.flush() }

    // MARK: Installation (under `lock`)

    private static func install(_ category: GuardCategory, in session: Session) throws {
        guard session.installed[category.rawValue] == nil else { return }
        guard let type = GuardRegistry.guardType(for: category) else {
            logger.debug("guard not available in this build, skipped", metadata: ["guard": "\(category.name)"])
            return
        }
        let guardObject = type.init()
        let context = GuardContext(engine: .shared, configuration: session.configuration)
        do {
            try guardObject.install(in: context)
        } catch {
            for hook in context.hooks.reversed() { hook.revert() }
            guardObject.uninstall()
            if let error = error as? HookError { throw CrashShieldError.hookFailed(category: category.name, error) }
            throw error
        }
        session.installed[category.rawValue] = (guardObject, context.hooks)
        _ = session.enabled.loadThenBitwiseOr(with: category.rawValue, ordering: .releasing)
    }

    private static func uninstall(_ category: GuardCategory, in session: Session) {
        _ = session.enabled.loadThenBitwiseAnd(with: ~category.rawValue, ordering: .releasing)
        guard let (guardObject, hooks) = session.installed.removeValue(forKey: category.rawValue) else { return }
        for hook in hooks.reversed() { hook.revert() }
        guardObject.uninstall()
    }

    private static func uninstallAll(_ session: Session) {
        for category in GuardCategory.allCategories.reversed() { uninstall(category, in: session) }
    }
}
