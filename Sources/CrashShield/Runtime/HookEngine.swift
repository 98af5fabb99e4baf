import CrashShieldRuntime.Internal

/// A method replacement that is installed, and can be reverted. Returned by `HookEngine.install`.
final class Hook: @unchecked Sendable, CustomStringConvertible {
    /// How the replacement got into the class.
    enum Origin: String, Sendable {
        /// The class defined the method; its implementation was swapped.
        case replacedOwnMethod
        /// The class only inherited the method; an override was added that calls the superclass's current one.
        case addedOverride
    }

    enum State: String, Sendable {
        case active
        /// The original implementation is back in the class.
        case reverted
        /// Still in the class (added overrides cannot be removed; or another library hooked the method after us and
        /// calls us as its original), but passes every call straight to the original. An added override that is still
        /// the class's implementation becomes a pass-through (`passThrough`, CSRPassThrough.h) where the method's
        /// arguments allow: one call to the superclass's current implementation, the replacement never entered.
        case passingThrough
    }

    let targetClass: ObjCClass
    let point: AnyHookPoint
    let origin: Origin
    var state: State
    /// What was put into the class: the point's replacement (or its trampoline for the class's slot).
    let replacement: CSRIMP
    /// The implementation the class had before (nil for an added override: the superclass answers).
    let previous: CSRIMP?
    /// What a stopped added override was replaced with in the class (CSRPassThrough.h), if anything.
    var passThrough: CSRIMP?
    unowned let engine: HookEngine

    init(
        targetClass: ObjCClass, point: AnyHookPoint, replacement: CSRIMP, origin: Origin, previous: CSRIMP?,
        engine: HookEngine
    ) {
        self.targetClass = targetClass
        self.point = point
        self.replacement = replacement
        self.origin = origin
        self.previous = previous
        self.state = .active
        self.engine = engine
    }

    var selector: ObjCSelector { point.selector }

    var replacementWord: UInt { UInt(bitPattern: unsafeBitCast(replacement, to: Int.self)) }

    /// Restores the original behaviour. Idempotent; never clobbers a hook another library installed after this one.
    @discardableResult
    func revert() -> State { engine.revert(self) }

    var description: String {
        "\(point.kind == .class ? "+" : "-")[\(targetClass.isMetaclass ? targetClass.name : targetClass.name) \(selector)] (\(origin.rawValue), \(state.rawValue))"
    }
}

/// The one place that changes method implementations.
///
/// Thread-safe (one lock), idempotent (installing a hook point twice on a class returns the same hook), and
/// cooperative: the replacement calls whatever implementation was installed before it, and a revert leaves the
/// class alone when another library has hooked the method since.
final class HookEngine: @unchecked Sendable {
    static let shared = HookEngine()

    /// Selectors that must never be replaced: memory management and class set-up.
    static let forbiddenSelectors: Set<String> = [
        "retain", "release", "autorelease", "retainCount", "_tryRetain", "_isDeallocating",
        "allowsWeakReference", "retainWeakReference", ".cxx_destruct", ".cxx_construct",
        "load", "initialize", "alloc", "allocWithZone:", "class", "self", "isProxy",
    ]

    private struct Key: Hashable {
        let point: ObjectIdentifier
        let cls: ObjCClass
    }

    private let lock = Lock()
    private var hooks: [Key: Hook] = [:]

    init() {
        csr_runtime_prepare_for_hooks()  // GNU runtime: keep replaced dispatch tables alive for other threads
        csr_hot_selectors_prepare()  // hot replacements read these selectors without lazy initialisation
    }

    /// Installs `point` on `cls` (on its metaclass for a class-method point).
    ///
    /// When `cls` only inherits the method, an override is added to `cls` that calls the superclass's current
    /// implementation, so neither the superclass nor its other subclasses change. Subclasses of `cls` see the hook on
    /// both runtimes.
    @discardableResult
    func install(_ point: AnyHookPoint, on cls: ObjCClass) throws -> Hook {
        let selectorName = point.selector.name
        guard !Self.forbiddenSelectors.contains(selectorName) else { throw HookError.forbiddenSelector(selectorName) }
        let target = point.kind == .class ? cls.metaclass : cls
        // Outside the lock: a class's first lookup runs its +initialize, which may send messages that reach other
        // hooks, and those may install hooks themselves (a notification observer registered by +initialize).
        csr_class_installDispatchTable(target.pointer, point.selector.pointer)
        return try lock.withLock {
            let key = Key(point: ObjectIdentifier(point), cls: target)
            if let existing = hooks[key], existing.state == .active { return existing }
            let sel = point.selector.pointer
            let classWord = UInt(bitPattern: target.pointer)
            guard let current = csr_class_methodImplementation(target.pointer, sel) else {
                throw HookError.methodNotFound(class: cls.name, selector: selectorName)
            }
            let currentWord = UInt(bitPattern: unsafeBitCast(current, to: Int.self))
            if let existing = hooks[key], let passThrough = existing.passThrough,
                currentWord == UInt(bitPattern: unsafeBitCast(passThrough, to: Int.self))
            {
                // A stopped added override, still the class's pass-through: the replacement goes back in its place.
                guard csr_class_replaceOwnMethod(target.pointer, sel, existing.replacement) != nil else {
                    throw HookError.runtimeRefused(class: cls.name, selector: selectorName)
                }
                point.originals.setActive(true, cls: classWord)
                existing.state = .active
                return existing
            }
            if let existing = hooks[key], currentWord == existing.replacementWord {
                // Reverted in place earlier and still ours: switch it back on.
                point.originals.setActive(true, cls: classWord)
                existing.state = .active
                return existing
            }
            if let existing = hooks[key], existing.state == .passingThrough, existing.passThrough == nil {
                // Another library hooked the method after us and still calls our replacement as its original: switch
                // that one back on. Installing the replacement again on top would put it in the chain twice, and the
                // two would call each other (both read the one original this table keeps for the class).
                point.originals.setActive(true, cls: classWord)
                existing.state = .active
                return existing
            }
            if !point.handlesReentry, let other = nestedInstallation(of: point, on: target) {
                throw HookError.nestedInstallation(class: target.name, selector: selectorName, existing: other.name)
            }
            let hook: Hook
            if target.owns(point.selector) {
                // Publish the original before the replacement can be reached.
                guard point.originals.register(cls: classWord, original: currentWord) else {
                    throw HookError.tooManyClasses(selector: selectorName, limit: OriginalTable.capacity)
                }
                let replacement = point.replacement(forSlot: point.originals.ownSlot(forClass: classWord))
                guard let previous = csr_class_replaceOwnMethod(target.pointer, sel, replacement) else {
                    throw HookError.runtimeRefused(class: cls.name, selector: selectorName)
                }
                let previousWord = UInt(bitPattern: unsafeBitCast(previous, to: Int.self))
                if previousWord != currentWord { _ = point.originals.register(cls: classWord, original: previousWord) }
                hook = Hook(
                    targetClass: target, point: point, replacement: replacement, origin: .replacedOwnMethod,
                    previous: previous, engine: self)
            } else {
                guard let types = csr_class_methodTypes(target.pointer, sel) else {
                    throw HookError.methodNotFound(class: cls.name, selector: selectorName)
                }
                guard point.originals.register(cls: classWord, original: 0) else {
                    throw HookError.tooManyClasses(selector: selectorName, limit: OriginalTable.capacity)
                }
                let replacement = point.replacement(forSlot: point.originals.ownSlot(forClass: classWord))
                guard csr_class_addMethod(target.pointer, sel, replacement, types) else {
                    point.originals.setActive(false, cls: classWord)
                    throw HookError.runtimeRefused(class: cls.name, selector: selectorName)
                }
                hook = Hook(
                    targetClass: target, point: point, replacement: replacement, origin: .addedOverride,
                    previous: nil, engine: self)
            }
            hooks[key] = hook
            return hook
        }
    }

    /// A class that is a superclass or subclass of `target` and still has `point`'s replacement in its method (active
    /// or passing through), if any. A reverted hook is out of every chain and cannot be re-entered through `super`:
    /// it does not count (tests move a point between levels of a class tree; families are otherwise fixed). Under
    /// the lock.
    private func nestedInstallation(of point: AnyHookPoint, on target: ObjCClass) -> ObjCClass? {
        guard point.originals.nestedInstallation(for: target.pointer) != nil else { return nil }  // the usual answer
        return hooks.values.first { hook in
            hook.point === point && hook.state != .reverted && hook.targetClass != target
                && (hook.targetClass.isKind(of: target) || target.isKind(of: hook.targetClass))
        }?.targetClass
    }

    func revert(_ hook: Hook) -> Hook.State {
        lock.withLock {
            guard hook.state == .active else { return hook.state }
            let target = hook.targetClass
            let classWord = UInt(bitPattern: target.pointer)
            let current = csr_class_methodImplementation(target.pointer, hook.selector.pointer)
            let stillOurs = current.map { UInt(bitPattern: unsafeBitCast($0, to: Int.self)) } == hook.replacementWord
            if hook.origin == .replacedOwnMethod, stillOurs, let previous = hook.previous {
                _ = csr_class_replaceOwnMethod(target.pointer, hook.selector.pointer, previous)
                hook.point.originals.setActive(false, cls: classWord)
                hook.state = .reverted
            } else if hook.origin == .addedOverride, stillOurs, let passThrough = Self.passThrough(for: hook),
                csr_class_replaceOwnMethod(target.pointer, hook.selector.pointer, passThrough) != nil
            {
                // The override cannot leave the class: it becomes one call to the superclass's current implementation.
                hook.point.originals.setActive(false, cls: classWord)
                hook.passThrough = passThrough
                hook.state = .passingThrough
            } else {
                hook.point.originals.setActive(false, cls: classWord)
                hook.state = .passingThrough
            }
            return hook.state
        }
    }

    /// The pass-through for a stopped added override (CSRPassThrough.h): a C function when the method's arguments all
    /// travel in word registers, else the assembly one that saves every argument register (floating-point and struct
    /// arguments, large structs returned, variadic methods, whose `...` the type encoding does not show); nil only
    /// where neither exists (an architecture other than x86_64 and arm64) or a pool is full: the replacement stays.
    private static func passThrough(for hook: Hook) -> CSRIMP? {
        let cls = hook.targetClass.pointer, sel = hook.selector.pointer
        if !(hook.point is VariadicHookPoint), let types = csr_class_methodTypes(cls, sel),
            csr_types_pass_in_words(types),
            let words = csr_pass_through(cls, sel)
        {
            return words
        }
        return csr_pass_through_any(cls, sel)
    }

    /// Runs `body` with the dispatch-table updates of its installs and reverts batched (`csr_runtime_begin_batch`):
    /// on GCC's libobjc, the subclasses that inherit a replaced method are updated when `body` returns, one walk of
    /// the class tree per owning class instead of one per method. start(), stop() and setGuard use it.
    func batch<T>(_ body: () throws -> T) rethrows -> T {
        csr_runtime_begin_batch()
        defer { csr_runtime_end_batch() }
        return try body()
    }

    /// Every hook this engine installed that is still active.
    var activeHooks: [Hook] { lock.withLock { hooks.values.filter { $0.state == .active } } }
}
