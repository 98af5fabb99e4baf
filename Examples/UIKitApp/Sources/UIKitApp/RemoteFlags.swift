import CrashShield
import Foundation

/// The kill switch, driven by remote configuration. UserDefaults stands in for your remote-config service: the key
/// holds the names of guards to switch off (`["kvo"]`, say, if a guard misbehaves on a new iOS version). Switching a
/// guard off reverts its hooks at once: no app update, no restart.
enum RemoteFlags {
    static let disabledGuardsKey = "CrashShieldDisabledGuards"
    /// The guards this app starts with (the default, `.productionSafe`, in both build configurations).
    static let appGuards = Configuration.production.guards

    /// The guards remote configuration switched off. Unknown names are ignored: an old app may meet a newer flag.
    static var disabledGuards: GuardCategory {
        let names = UserDefaults.standard.stringArray(forKey: disabledGuardsKey) ?? []
        return GuardCategory(names.compactMap(GuardCategory.init(name:)))
    }

    /// Switches guards off, or back on, to match remote configuration.
    static func applyKillSwitch() {
        let disabled = disabledGuards.intersection(appGuards)
        do {
            try CrashShield.setGuard(disabled, enabled: false)
            try CrashShield.setGuard(appGuards.subtracting(disabled), enabled: true)
        } catch {
            NSLog("CrashShield kill switch: %@", String(describing: error))
        }
    }

    /// What a remote change does (the app's settings screen uses it to demonstrate the switch).
    static func setGuard(_ category: GuardCategory, disabled: Bool) {
        var names = Set(UserDefaults.standard.stringArray(forKey: disabledGuardsKey) ?? [])
        if disabled { names.insert(category.name) } else { names.remove(category.name) }
        UserDefaults.standard.set(names.sorted(), forKey: disabledGuardsKey)
        applyKillSwitch()
    }
}
