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
    /// The configuration warnings logged so far (each is logged once per process).
    static let loggedWarnings = Locked(Set<String>())

    /// Installs the configured guards. Throws `CrashShieldError.alreadyRunning` when running (stop first), or a
    /// configuration error; on any error nothing stays installed. `configuration.warnings` (a class that does not
    /// exist, no guard at all) are logged, each once per process, and do not stop it. A guard that cannot install on
    /// this system (a method it hooks is missing, or the runtime refused a hook: `HookError`) stays off, named in an
    /// error log line, and the others run: `activeGuards` says which did. A sink that cannot work now (a report
    /// store whose folder cannot be written: `ReportSink.sinkFailure`) does not stop it either: the guards start
    /// with every sink, the failure is logged once and listed in `sinkFailures`, and the store tries again later.
    public static func start(_ configuration: Configuration = .production) throws {
        // In a pool of its own: starting asks Foundation things (class samples, the runtime's wording of an
        // unrecognized selector) whose answers are autoreleased, and the caller may have no pool (a command-line
        // tool's main on GNUstep logged "autorelease called without pool" and leaked them).
        var failure: Error?
        withAutoreleasePool {
            do { try startLocked(configuration) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private static func startLocked(_ configuration: Configuration) throws {
        try lock.withLock {
            guard Session.current.load(ordering: .acquiring) == nil else { throw CrashShieldError.alreadyRunning }
            try configuration.validate()
            for warning in configuration.warnings where loggedWarnings.withLock({ $0.insert(warning).inserted }) {
                logger.warning("\(warning)")
            }
            // Protection never depends on a sink: one that cannot work now is logged, and the guards start.
            for failure in Self.sinkFailures(of: configuration.sinks) {
                let text = "report sink \(failure); the guards run, and it tries again later (CrashShield.sinkFailures)"
                if loggedWarnings.withLock({ $0.insert(text).inserted }) { logger.error("\(text)") }
            }
            // The process's context (app, OS, device: Bundle.main, sysctl) is read once, before any hook exists, so
            // that Foundation code it runs can never reach a guard from inside the first report.
            _ = ProcessContext.shared
            let session = Session(configuration: configuration)
            Session.current.store(session, ordering: .releasing)
            do {
                try HookEngine.shared.batch {
                    try install(configuration.guards, in: session, skippingHookFailures: true)
                }
            } catch {
                HookEngine.shared.batch { uninstallAll(session) }
                Session.current.store(nil, ordering: .releasing)
                throw error
            }
        }
    }

    /// Reverts every hook and hands pending report counts to the sinks. Safe to call when not running (does nothing),
    /// from any thread, and from inside a sink: it never waits for a sink.
    public static func stop() {
        // In a pool of its own, as start(): reverting asks the runtime for method signatures (autoreleased).
        withAutoreleasePool { stopLocked() }
    }

    private static func stopLocked() {
        let stopped: Session? = lock.withLock {
            guard let session = Session.current.load(ordering: .acquiring) else { return nil }
            HookEngine.shared.batch { uninstallAll(session) }
            Session.current.store(nil, ordering: .releasing)
            return session
        }
        stopped?.pipeline.flush()
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
    /// at run time. Never waits for a sink. Throws `CrashShieldError.notRunning` when CrashShield is not running,
    /// `.invalidConfiguration` for bits that name no guard, or the error of a guard that could not install (then that
    /// guard stays off; the others named are as asked).
    public static func setGuard(_ categories: GuardCategory, enabled: Bool) throws {
        var failure: Error?
        withAutoreleasePool {  // as start() and stop()
            do { try setGuardLocked(categories, enabled: enabled) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private static func setGuardLocked(_ categories: GuardCategory, enabled: Bool) throws {
        let unknown = categories.subtracting(.all)
        guard unknown.isEmpty else {
            throw CrashShieldError.invalidConfiguration(
                "setGuard: bits 0x\(String(unknown.rawValue, radix: 16)) name no guard (known: \(GuardCategory.all.name))"
            )
        }
        try lock.withLock {
            guard let session = Session.current.load(ordering: .acquiring) else { throw CrashShieldError.notRunning }
            if enabled && categories.contains(.zombie) { try session.configuration.validateZombiePrefixes() }
            try HookEngine.shared.batch {
                if enabled {
                    try install(categories, in: session, skippingHookFailures: false)
                } else {
                    uninstall(categories, in: session)
                }
            }
        }
    }

    /// The sinks of the running configuration that cannot do their work now (a report store whose folder cannot
    /// be written or created, a disk problem at launch), with why; empty when every sink works or CrashShield does not
    /// run. A sink leaves the list when it recovers (a store opens its file on a later report once it can).
    public static var sinkFailures: [SinkFailure] {
        sinkFailures(of: Session.current.load(ordering: .acquiring)?.configuration.sinks ?? [])
    }

    static func sinkFailures(of sinks: [any ReportSink]) -> [SinkFailure] {
        sinks.compactMap { sink in sink.sinkFailure.map { SinkFailure(sink: sink, error: $0) } }
    }

    /// Every distinct report of this run, with current counts.
    public static var reports: [CrashReport] { Session.current.load(ordering: .acquiring)?.pipeline.reports ?? [] }

    /// Hands report counts that changed since they were last delivered to the sinks, then waits until the sinks
    /// have taken everything reported so far, at most `timeout` seconds (0: do not wait). Returns whether they did.
    /// Called from inside a sink it does not wait (it would wait for itself).
    @discardableResult
    public static func flush(timeout: TimeInterval = 5) -> Bool {
        Session.current.load(ordering: .acquiring)?.pipeline.flush()
        return waitForSinks(timeout: timeout)
    }

    /// Waits until the sinks have taken every report handed to them so far, at most `timeout` seconds; returns whether
    /// they did (true at once inside a sink). For test sinks, which read what was delivered.
    @_spi(Testing)
    @discardableResult
    public static func waitForSinks(timeout: TimeInterval = 5) -> Bool {
        timeout <= 0 ? !ReportDelivery.shared.hasPending : ReportDelivery.shared.waitUntilDelivered(timeout: timeout)
    }

    // MARK: Installation (under `lock`)

    /// Installs the guards of `categories` that are not installed yet, in `GuardRegistry` order. A guard whose hooks
    /// this system refuses stays off: logged, and the others install, when `skippingHookFailures` (start); otherwise
    /// the first error is thrown once the others were installed (`setGuard`). Any other error stops `start` at once.
    private static func install(_ categories: GuardCategory, in session: Session, skippingHookFailures: Bool) throws {
        let declarations = GuardRegistry.declarations(for: categories)
        let missing = categories.subtracting(GuardCategory(declarations.map(\.category)))
        if !missing.isEmpty {
            logger.debug("guard not available in this build, skipped", metadata: ["guard": "\(missing.name)"])
        }
        var failure: Error?
        for declaration in declarations {
            do {
                try install(declaration, in: session)
            } catch CrashShieldError.hookFailed(let name, let error) where skippingHookFailures {
                // One guard's missing method must not leave the app with no guard at all.
                logger.error(
                    "guard \(name) could not install on this system and stays off: \(error); the other guards run")
            } catch {
                if skippingHookFailures { throw error }
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    private static func install(_ declaration: GuardDeclaration, in session: Session) throws {
        let category = declaration.category
        guard session.installed[category.rawValue] == nil else { return }
        let context = GuardContext(engine: .shared, configuration: session.configuration, category: category)
        do {
            try declaration.install(context)
        } catch {
            for hook in context.hooks.reversed() { hook.revert() }
            declaration.uninstall()
            if let error = error as? HookError {
                throw CrashShieldError.hookFailed(category: category.name, reason: error.description)
            }
            throw error
        }
        session.installed[category.rawValue] = Session.InstalledGuard(declaration: declaration, hooks: context.hooks)
        _ = session.enabled.loadThenBitwiseOr(with: category.rawValue, ordering: .releasing)
    }

    /// Switches the guards of `categories` off, in reverse `GuardRegistry` order.
    private static func uninstall(_ categories: GuardCategory, in session: Session) {
        for declaration in GuardRegistry.guards.reversed() where categories.contains(declaration.category) {
            let category = declaration.category
            _ = session.enabled.loadThenBitwiseAnd(with: ~category.rawValue, ordering: .releasing)
            // The declaration that installed it (a test's substitute, perhaps), not necessarily the shipped one.
            guard let installed = session.installed.removeValue(forKey: category.rawValue) else { continue }
            for hook in installed.hooks.reversed() { hook.revert() }
            installed.declaration.uninstall()
        }
    }

    private static func uninstallAll(_ session: Session) { uninstall(.all, in: session) }
}
