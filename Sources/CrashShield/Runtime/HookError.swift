/// Why the hook engine refused or failed a request. Each case says what to change.
enum HookError: Error, Equatable, CustomStringConvertible {
    /// The class (and its superclasses) do not implement the selector, so there is nothing to hook.
    case methodNotFound(class: String, selector: String)
    /// Hooking this selector would break memory management or class set-up (retain, release, +load, ...).
    case forbiddenSelector(String)
    /// The runtime refused to add or replace the method.
    case runtimeRefused(class: String, selector: String)
    /// One hook point can be installed on a bounded number of classes.
    case tooManyClasses(selector: String, limit: Int)
    /// The same hook point is already installed on a superclass or subclass of this class. One shared replacement
    /// cannot tell the two levels apart, so a subclass implementation calling `super` would recurse forever.
    case nestedInstallation(class: String, selector: String, existing: String)
    /// Objects of this class may be freed without `-dealloc` (their own `-release`: Apple's toll-free-bridged
    /// classes): a `-dealloc` hook would never see them go.
    case noDealloc(class: String)

    var description: String {
        switch self {
        case .methodNotFound(let cls, let sel): return "\(cls) does not implement \(sel); nothing to hook"
        case .forbiddenSelector(let sel): return "\(sel) must never be hooked (memory management or class set-up)"
        case .runtimeRefused(let cls, let sel): return "the Objective-C runtime refused to change \(cls) \(sel)"
        case .tooManyClasses(let sel, let limit): return "\(sel) is hooked on \(limit) classes already (the limit)"
        case .nestedInstallation(let cls, let sel, let existing):
            return "\(sel) is already hooked on \(existing), a superclass or subclass of \(cls), by the same hook point"
        case .noDealloc(let cls): return "\(cls) frees its objects by its own -release, without -dealloc"
        }
    }
}
