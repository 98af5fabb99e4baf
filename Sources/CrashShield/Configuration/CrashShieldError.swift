/// Errors from CrashShield's own API. Each says what to change; none loses reports already collected.
public enum CrashShieldError: Error, Equatable, CustomStringConvertible {
    /// `start` was called while CrashShield is running. Call `stop()` first to apply a new configuration.
    case alreadyRunning
    /// The call needs CrashShield running (`setGuard`): call `start` first.
    case notRunning
    /// A class list in the configuration names a class the runtime does not know.
    case unknownClass(String)
    /// A configuration value is out of range; the text says which and why.
    case invalidConfiguration(String)
    /// A guard could not install one of its hooks; `reason` says why (the hook engine's refusal).
    case hookFailed(category: String, reason: String)

    public var description: String {
        switch self {
        case .alreadyRunning: return "CrashShield is already running; call stop() before starting it again"
        case .notRunning: return "CrashShield is not running; call start() first"
        case .unknownClass(let name):
            return "the configuration names class '\(name)', which the Objective-C runtime does not know"
        case .invalidConfiguration(let text): return "invalid configuration: \(text)"
        case .hookFailed(let category, let reason): return "the \(category) guard could not install a hook: \(reason)"
        }
    }
}
