import Atomics
import CrashShieldRuntime.Internal

/// Stops main-thread-only UI methods called from another thread (`Configuration.mainThreadOnlyMethods`; on iOS,
/// UIView's `setNeedsLayout`, `setNeedsDisplay`, `setNeedsDisplayInRect:`, `layoutIfNeeded`,
/// `setNeedsUpdateConstraints`, `invalidateIntrinsicContentSize`).
///
/// On the main thread a call goes straight to the original (one thread-local read). Off the main thread:
/// - release mode: the call is reported and run later on the main thread, asynchronously, with its arguments kept
///   alive until then (the receiver and an object argument are retained, a struct such as CGRect is copied); a call
///   whose receiver or object argument is being deallocated runs in place instead (reported: it would be gone);
/// - debug mode: the call is reported, then fails at once with an NSInternalInconsistencyException that names the
///   method and the thread.
/// These calls tend to happen every frame: reports are aggregated per call site (one report, with a count).
///
/// Supported methods return void and take no argument, or one object, integer, BOOL, double or CGRect/NSRect;
/// another signature is a configuration error. A class listed that does not exist is skipped.
enum MainThreadGuard {
    /// What UIKit raises when its layout engine is touched from a background thread (`Violation.layoutOffMainThread`).
    static let exceptionName = Violation.layoutOffMainThread.failure.name

    static func install(in context: GuardContext) throws {
        for (className, selectors) in context.configuration.mainThreadOnlyMethods.sorted(by: { $0.key < $1.key }) {
            guard let cls = ObjCClass(named: className) else { continue }  // UIKit is not everywhere
            for name in selectors {
                let selector = ObjCSelector(name)
                guard let types = csr_class_methodTypes(cls.pointer, selector.pointer) else {
                    throw CrashShieldError.invalidConfiguration(
                        "mainThreadOnlyMethods: \(className) has no method \(name)")
                }
                let shape = csr_call_shape(types)
                guard shape >= 0 else {
                    throw CrashShieldError.invalidConfiguration(
                        "mainThreadOnlyMethods: -[\(className) \(name)] cannot run later on the main thread "
                            + "(it returns a value or takes arguments other than one object, integer, double or rect)")
                }
                let point = MainThreadPoints.shared.point(for: name, shape: CSRCallShape(rawValue: UInt32(shape)))
                try context.install(point, on: [cls])
            }
        }
    }

    // MARK: Replacements, one per argument shape (every point of a shape shares it)

    typealias NoneIMP = @convention(c) (CSRObject?, CSRSelector?) -> Void
    typealias ObjectIMP = @convention(c) (CSRObject?, CSRSelector?, CSRObject?) -> Void
    typealias WordIMP = @convention(c) (CSRObject?, CSRSelector?, Int) -> Void
    typealias DoubleIMP = @convention(c) (CSRObject?, CSRSelector?, Double) -> Void
    typealias RectIMP = @convention(c) (CSRObject?, CSRSelector?, CSRRect) -> Void

    static let noneReplacement: NoneIMP = { receiver, cmd in
        guard let (slot, imp) = MainThreadPoints.shared.resolve(receiver, cmd) else { return }
        if csr_thread_isMain() || !runsLater(receiver, cmd, MainThreadPoints.shared.point(at: slot)) {
            return unsafeBitCast(imp, to: NoneIMP.self)(receiver, cmd)
        }
        csr_call_on_main(receiver, cmd, unsafeBitCast(imp, to: CSRIMP.self), CSRCallShapeNone, nil)
    }

    static let objectReplacement: ObjectIMP = { receiver, cmd, argument in
        guard let (slot, imp) = MainThreadPoints.shared.resolve(receiver, cmd) else { return }
        if csr_thread_isMain() || !runsLater(receiver, cmd, MainThreadPoints.shared.point(at: slot), argument) {
            return unsafeBitCast(imp, to: ObjectIMP.self)(receiver, cmd, argument)
        }
        var copy = argument
        withUnsafePointer(to: &copy) {
            csr_call_on_main(receiver, cmd, unsafeBitCast(imp, to: CSRIMP.self), CSRCallShapeObject, $0)
        }
    }

    static let wordReplacement: WordIMP = { receiver, cmd, argument in
        guard let (slot, imp) = MainThreadPoints.shared.resolve(receiver, cmd) else { return }
        if csr_thread_isMain() || !runsLater(receiver, cmd, MainThreadPoints.shared.point(at: slot)) {
            return unsafeBitCast(imp, to: WordIMP.self)(receiver, cmd, argument)
        }
        var copy = argument
        withUnsafePointer(to: &copy) {
            csr_call_on_main(receiver, cmd, unsafeBitCast(imp, to: CSRIMP.self), CSRCallShapeWord, $0)
        }
    }

    static let doubleReplacement: DoubleIMP = { receiver, cmd, argument in
        guard let (slot, imp) = MainThreadPoints.shared.resolve(receiver, cmd) else { return }
        if csr_thread_isMain() || !runsLater(receiver, cmd, MainThreadPoints.shared.point(at: slot)) {
            return unsafeBitCast(imp, to: DoubleIMP.self)(receiver, cmd, argument)
        }
        var copy = argument
        withUnsafePointer(to: &copy) {
            csr_call_on_main(receiver, cmd, unsafeBitCast(imp, to: CSRIMP.self), CSRCallShapeDouble, $0)
        }
    }

    static let rectReplacement: RectIMP = { receiver, cmd, argument in
        guard let (slot, imp) = MainThreadPoints.shared.resolve(receiver, cmd) else { return }
        if csr_thread_isMain() || !runsLater(receiver, cmd, MainThreadPoints.shared.point(at: slot)) {
            return unsafeBitCast(imp, to: RectIMP.self)(receiver, cmd, argument)
        }
        var copy = argument
        withUnsafePointer(to: &copy) {
            csr_call_on_main(receiver, cmd, unsafeBitCast(imp, to: CSRIMP.self), CSRCallShapeRect, $0)
        }
    }

    /// Cold path: a main-thread-only call on another thread, handed to the incident path (which raises in debug mode).
    /// True when the call is to run later on the main thread (`.recover`); false: it runs here, now, as without
    /// CrashShield. A call whose receiver or object argument is being deallocated (a view released on a background
    /// queue whose `-dealloc` touches itself) never runs later: the object would be gone by then, and retaining it
    /// does not keep it (objc4's `rootRetain` on a deallocating object does not count, objc-object.h). It runs in
    /// place, and the report says so.
    @inline(never)
    static func runsLater(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, _ point: AnyHookPoint, _ argument: CSRObject? = nil
    ) -> Bool {
        let thread = CallStack.currentThread()
        let threadText = "thread \(thread.id)" + (thread.name.isEmpty ? "" : " '\(thread.name)'")
        let selectorName = cmd.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
        let method = "-[\(GuardFailure.className(receiver)) \(selectorName)]"
        let loudReason = Violation.layoutOffMainThreadLoudReason(method: method, thread: threadText)
        var details = ["method": method, "thread": threadText]
        var deallocating: String?
        if csr_object_is_deallocating(receiver) {
            deallocating = "receiver"
        } else if csr_object_is_deallocating(argument) {
            deallocating = "argument"
        }
        if let deallocating {
            details["deallocating"] = deallocating
            details["recovery"] = "run in place: its \(deallocating) is being deallocated"
        }
        let verdict = IncidentPath.handle(
            Incident(
                .mainThreadUI, receiver: receiver, selector: cmd,
                .layoutOffMainThread,
                details: details,
                point: point,
                unrecovered: .raiseWhenLoud(Incident.Exception(name: exceptionName) { _ in loudReason })))
        return verdict == .recover && deallocating == nil
    }
}

extension GuardDeclaration {
    /// State: none to clear. `MainThreadPoints` keeps every point it made for the process's life (a call in flight never
    /// finds its point gone); `install` finds the same point for a selector again.
    static let mainThreadUI = GuardDeclaration(.mainThreadUI, install: MainThreadGuard.install)
}

/// Every main-thread hook point ever made (one per selector), kept for the life of the process so that a call in
/// flight never finds its point gone. The replacements find their point by `_cmd` without a lock.
final class MainThreadPoints: @unchecked Sendable {
    static let shared = MainThreadPoints()
    private static let capacity = 128

    /// Selector pointer of each entry (a selector may get more than one entry: GCC's libobjc has typed selectors).
    private let selectors = UnsafeMutablePointer<UInt>.allocate(capacity: capacity)
    private let points = UnsafeMutablePointer<Unmanaged<AnyHookPoint>>.allocate(capacity: capacity)
    /// Each entry's table of originals (the point's own), read on the hot path without touching the point object.
    private let tables = UnsafeMutablePointer<UnsafeMutablePointer<CSRHookTable>>.allocate(capacity: capacity)
    private let count = ManagedAtomic<Int>(0)
    private let lock = Lock()
    private var byName: [String: AnyHookPoint] = [:]

    private init() {
        csr_main_set_fallbacks(
            unsafeBitCast(MainThreadGuard.noneReplacement, to: CSRIMP.self),
            unsafeBitCast(MainThreadGuard.objectReplacement, to: CSRIMP.self),
            unsafeBitCast(MainThreadGuard.wordReplacement, to: CSRIMP.self),
            unsafeBitCast(MainThreadGuard.doubleReplacement, to: CSRIMP.self),
            unsafeBitCast(MainThreadGuard.rectReplacement, to: CSRIMP.self))
    }

    /// The point for `name` (made on first use).
    func point(for name: String, shape: CSRCallShape) -> AnyHookPoint {
        lock.withLock {
            if let existing = byName[name] { return existing }
            let selector = ObjCSelector(name)
            let point: AnyHookPoint
            switch shape {
            case CSRCallShapeObject:
                point = MainThreadHookPoint(selector, shape: shape, replacement: MainThreadGuard.objectReplacement)
            case CSRCallShapeWord:
                point = MainThreadHookPoint(selector, shape: shape, replacement: MainThreadGuard.wordReplacement)
            case CSRCallShapeDouble:
                point = MainThreadHookPoint(selector, shape: shape, replacement: MainThreadGuard.doubleReplacement)
            case CSRCallShapeRect:
                point = MainThreadHookPoint(selector, shape: shape, replacement: MainThreadGuard.rectReplacement)
            default:
                point = MainThreadHookPoint(
                    selector, shape: CSRCallShapeNone, replacement: MainThreadGuard.noneReplacement)
            }
            byName[name] = point
            append(UInt(bitPattern: selector.pointer), point)
            return point
        }
    }

    /// Under the lock.
    private func append(_ selector: UInt, _ point: AnyHookPoint) {
        let published = count.load(ordering: .relaxed)
        guard published < Self.capacity else { return }
        selectors[published] = selector
        points[published] = Unmanaged.passRetained(point)
        tables[published] = point.originals.storage
        count.store(published + 1, ordering: .releasing)
    }

    /// Hot path: the entry `cmd` belongs to, and the original implementation for the receiver's class. Reads only
    /// words and the C table: no reference counting on the point object. First takes the slot of the trampoline that
    /// handed the call over (`csr_main_take_entered`, so that none is left for a later call on this thread).
    @inline(__always)
    func resolve(_ receiver: CSRObject?, _ cmd: CSRSelector?) -> (slot: Int, imp: UInt)? {
        var enteredTable: UnsafePointer<CSRHookTable>?
        var enteredSlot = -1
        let entered = csr_main_take_entered(&enteredTable, &enteredSlot)
        let word = UInt(bitPattern: cmd)
        let published = count.load(ordering: .acquiring)
        var index = 0
        while index < published {
            if selectors[index] == word { return original(index, receiver) }
            index += 1
        }
        return resolveSlowly(receiver, cmd, entered: entered ? (enteredTable, enteredSlot) : nil)
    }

    /// The point of an entry (cold path: a call off the main thread).
    func point(at slot: Int) -> AnyHookPoint { points[slot].takeUnretainedValue() }

    @inline(__always)
    private func original(_ slot: Int, _ receiver: CSRObject?) -> (slot: Int, imp: UInt)? {
        let cls = UInt(bitPattern: csr_object_getClass(receiver))
        var imp = csr_hook_table_find(tables[slot], cls)
        if imp == 0 { imp = point(at: slot).originals.originalThroughSuperclasses(cls) }
        return imp == 0 ? nil : (slot, imp)
    }

    /// A selector pointer not seen yet: another typed selector of the same name (matched by name, remembered), or
    /// an alias's name: another library exchanged the hooked method's implementation with its own after `start()`
    /// (`method_exchangeImplementations`; its method then sends the alias to reach "the original", which is now
    /// the hook). The trampoline that handed the call over says which class's original that is: its slot's.
    @inline(never)
    private func resolveSlowly(
        _ receiver: CSRObject?, _ cmd: CSRSelector?, entered: (UnsafePointer<CSRHookTable>?, Int)?
    ) -> (slot: Int, imp: UInt)? {
        guard let cmd else { return nil }
        let slot: Int? = lock.withLock {
            guard let found = byName[String(cString: csr_sel_getName(cmd))] else { return nil }
            append(UInt(bitPattern: cmd), found)
            let published = count.load(ordering: .acquiring)
            return (0..<published).last { points[$0].takeUnretainedValue() === found }
        }
        if let slot { return original(slot, receiver) }
        guard let (table, tableSlot) = entered, let table else { return nil }
        let published = count.load(ordering: .acquiring)
        guard let index = (0..<published).first(where: { UnsafePointer(tables[$0]) == table }) else { return nil }
        let imp = csr_hook_table_resolve(table, tableSlot)
        return imp == 0 ? nil : (index, imp)
    }
}

/// A main-thread hook point: each class it is installed on gets a C trampoline of its own
/// (`csr_main_trampoline`), which on the main thread jumps straight to that class's original and otherwise
/// continues in the shape's replacement above (the full path: which point, which thread, report, run later). The
/// replacement itself is installed when the trampolines run out.
final class MainThreadHookPoint<Signature>: HookPoint<Signature>, @unchecked Sendable {
    let shape: CSRCallShape

    init(_ selector: ObjCSelector, shape: CSRCallShape, replacement: Signature) {
        self.shape = shape
        super.init(selector, replacement: replacement)
    }

    override func replacement(forSlot slot: Int) -> CSRIMP {
        csr_main_trampoline(shape, originals.storage, slot) ?? replacement
    }
}
