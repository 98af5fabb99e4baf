/// One guard: one crash category, one file, its own hooks.
///
/// `install` makes its hooks through the context, which records them so the shield can revert them (also when
/// `install` throws halfway); a guard keeps no other global state except what `uninstall` clears.
protocol CrashGuard: AnyObject {
    static var category: GuardCategory { get }
    init()
    func install(in context: GuardContext) throws
    /// Called when the guard is switched off (its category is no longer enabled), before its hooks are reverted.
    func willUninstall()
    /// Called after the guard's hooks were reverted.
    func uninstall()
}

extension CrashGuard {
    func willUninstall() {}
    func uninstall() {}
}

/// What a guard gets to install itself; records every hook made through it.
final class GuardContext {
    let engine: HookEngine
    let configuration: Configuration
    private(set) var hooks: [Hook] = []

    init(engine: HookEngine, configuration: Configuration) {
        self.engine = engine
        self.configuration = configuration
    }

    /// Installs `point` on each class.
    func install(_ point: AnyHookPoint, on classes: [ObjCClass]) throws {
        for cls in classes { hooks.append(try engine.install(point, on: cls)) }
    }

    /// Installs `point` on the class that owns the method for each class given (see `ClassClusters`).
    func install(_ point: AnyHookPoint, onOwnersIn family: ClassFamily) throws {
        try install(point, on: family.hookTargets(for: point.selector, kind: point.kind))
    }
}

/// Every guard CrashShield ships. A new guard adds one line here.
enum GuardRegistry {
    static let guards: [any CrashGuard.Type] = [
        ContainerGuard.self,
        KVOGuard.self,
        StringGuard.self,
        KVCGuard.self,
        UnrecognizedSelectorGuard.self,
        NSNullGuard.self,
        ZombieGuard.self,
        MainThreadGuard.self,
        NotificationGuard.self,
        TimerGuard.self,
    ]

    static func guardType(for category: GuardCategory) -> (any CrashGuard.Type)? {
        guards.first { $0.category == category }
    }

    /// Categories with a guard in this build.
    static var available: GuardCategory { GuardCategory(guards.map { $0.category }) }
}
