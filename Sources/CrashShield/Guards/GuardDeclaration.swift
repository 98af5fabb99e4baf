/// One guard, as a value: its category and the two functions that switch it on and off. A guard is a namespace of
/// hook points (`enum KVOGuard`) whose file declares its value (`extension GuardDeclaration { static let kvo = ... }`);
/// `GuardRegistry.guards` lists them all, in install order. Modelled on a KSCrash monitor (`KSCrashMonitorAPI`: a
/// short table of idempotent functions) and sentry-cocoa's ordered list of integrations.
///
/// The contract (`CrashShield` calls both under its lock, inside one `HookEngine.batch`):
/// - `install` makes its hooks through the context, which records them: the shield reverts them, newest first, when
///   the guard is switched off, and when `install` throws halfway (then `uninstall` runs too). It may assume that
///   the session it installs for is published (`Session.current`; `context.configuration` is its configuration) and
///   that the guard's bit is still off (`Session.isGuarding` answers false until `install` returns: a hook that asks
///   it passes calls through while the guard installs). It is never called twice without `uninstall` between, but
///   may be called again after it: the kill switch switches a guard off and on, and a `start` after a `stop` installs
///   anew. A `HookError` means "not on this system": the guard stays off and the others run; any other error fails
///   `start`.
/// - `uninstall` runs after the guard's bit was cleared and its hooks were reverted (a hook another library wrapped
///   since stays in its chain, passing calls through: `Hook.revert`). It clears whatever the guard keeps between
///   install and uninstall (each guard names that state in its file), tolerates an `install` that stopped halfway or
///   never ran, and must be idempotent.
/// A guard keeps no state but the named stores of its own file; nothing is kept per instance (there is none).
struct GuardDeclaration {
    let category: GuardCategory
    let install: (GuardContext) throws -> Void
    let uninstall: () -> Void

    init(
        _ category: GuardCategory, install: @escaping (GuardContext) throws -> Void,
        uninstall: @escaping () -> Void = {}
    ) {
        self.category = category
        self.install = install
        self.uninstall = uninstall
    }
}

/// Every guard CrashShield ships, in install order: `start` and `setGuard` install the configured ones in this order,
/// `stop` (and a failed `start`) uninstalls them in reverse. A new guard adds one line here.
///
/// Why the order: no guard needs another installed first (each may run alone, and the kill switch installs any one
/// later, after the others). It matters where two guards hook the same method of the same class (the main-thread
/// guard hooks whatever `Configuration.mainThreadOnlyMethods` names, which may be a method the UIKit guard hooks, such
/// as CALayer's `setFrame:`): the engine reverts a hook in place only while it is the newest on its method, so
/// reverting in reverse install order leaves every original exactly as it was, with no pass-through left behind. The
/// list keeps `GuardCategory.allCategories`' order, the order `start` has always installed in; ARCHITECTURE.md
/// states it and `GuardRegistryTests` holds the two together.
enum GuardRegistry {
    static let guards: [GuardDeclaration] = [
        .container,
        .string,
        .unrecognizedSelector,
        .nsNull,
        .kvc,
        .kvo,
        .notification,
        .timer,
        .zombie,
        .mainThreadUI,
        .uikit,
    ]

    /// Tests only: declarations that stand in for the shipped ones of their categories.
    static let substitutes = Locked([GuardDeclaration]())

    /// The declarations of `categories` (substitutes first), in install order; categories without one are left out.
    static func declarations(for categories: GuardCategory) -> [GuardDeclaration] {
        let substitutes = substitutes.current
        return guards.compactMap { shipped in
            guard categories.contains(shipped.category) else { return nil }
            return substitutes.first { $0.category == shipped.category } ?? shipped
        }
    }

    /// Categories with a guard in this build.
    static var available: GuardCategory { GuardCategory(guards.map(\.category)) }

    /// What is wrong with `list` as a registry (empty when nothing): a category declared twice, a declaration that is
    /// not a single category, a category of `GuardCategory.allCategories` with no declaration, or an order other than
    /// `order` (ARCHITECTURE.md's).
    static func problems(in list: [GuardDeclaration], order: [GuardCategory]) -> [String] {
        var problems: [String] = []
        var seen: GuardCategory = []
        for declaration in list {
            let category = declaration.category
            if !GuardCategory.allCategories.contains(category) {
                problems.append("\(category.name): not a single category")
            } else if seen.contains(category) {
                problems.append("\(category.name): declared twice")
            }
            seen.insert(category)
        }
        for category in GuardCategory.allCategories where !seen.contains(category) {
            problems.append("\(category.name): no declaration")
        }
        let names = list.map(\.category.name), expected = order.map(\.name)
        if names != expected {
            problems.append("order \(names.joined(separator: ", ")), expected \(expected.joined(separator: ", "))")
        }
        return problems
    }
}
