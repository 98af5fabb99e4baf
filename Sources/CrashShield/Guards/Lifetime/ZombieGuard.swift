import Atomics
import CrashShieldRuntime.Internal

/// Stops messages to deallocated objects of the app's own classes (opt-in: keeps freed memory; not in
/// `.productionSafe`).
///
/// When an object of a protected class is deallocated, every `-dealloc` body of its class chain runs as usual (its
/// instance variables are released, observers removed), but the root `-dealloc` does not free the memory: the object
/// becomes a zombie. A zombie's class is a root class with no methods, so every message sent to it (`retain`,
/// `release`, `description`, any selector) reaches one implementation, which reports the original class, the
/// selector, the thread and where the object was deallocated, and answers nil/0. Zombies are kept in a pool bounded in
/// bytes and in count (`ZombieOptions`); the oldest are freed for real when a bound would be exceeded. `stop()` frees
/// every zombie.
///
/// Which objects: `ZombieOptions.classNames` and `Configuration.protectedClassPrefixes` (a class, or any ancestor,
/// matches); when both are empty, classes defined in the app's own binaries (`Configuration.isAppImage`), and classes
/// made at run time from them (KVO subclasses). Never CrashShield's own classes, excluded classes, or objects larger
/// than `ZombieOptions.maxObjectSize`.
///
/// Cost: the root `-dealloc` (NSObject's) is the one place where freeing can be prevented without skipping any class's
/// own cleanup, so it is hooked; an object of any other class pays one cached per-class lookup there (no lock). A
/// protected object pays the zombie conversion, the pool's lock and bookkeeping (and freeing the oldest zombie once
/// the pool is full) and, if `recordsDeallocationStack`, a short stack capture.
///
/// Safety rules: a zombie's memory is never read after it is freed for real (reports use the address and the pool's
/// record only); objects of other classes never become zombies; a dealloc watcher hook that the zombie replacement
/// skips still has its cleanups run. A float or struct return value of a zombie message is unspecified. NSProxy
/// subclasses are not protected (their root `-dealloc` is not NSObject's).
enum ZombieGuard {
    typealias DeallocIMP = @convention(c) (CSRObject?, CSRSelector?) -> Void

    /// The root `-dealloc` replacement, installed on NSObject only.
    static let deallocPoint: HookPoint<DeallocIMP> = HookPoint("dealloc") { receiver, cmd in
        guard let receiver else { return }
        let originalWord = deallocPoint.originals.original(forClass: rootClassWord.load(ordering: .relaxed))
        if active.load(ordering: .acquiring) != 0, let cls = csr_object_getClass(receiver),
            ZombieClassFilter.shared.isProtected(cls), ZombiePool.shared.admit(receiver, cls: cls)
        {
            return
        }
        guard originalWord != 0 else { return }  // unreachable: leak rather than crash
        unsafeBitCast(originalWord, to: DeallocIMP.self)(receiver, cmd)
    }

    /// 1 while installed: deallocations make zombies.
    static let active = ManagedAtomic<Int>(0)
    /// The class the dealloc point is installed on (NSObject), whose original every receiver reaches.
    static let rootClassWord = ManagedAtomic<UInt>(0)

    static func install(in context: GuardContext) throws {
        let configuration = context.configuration
        guard let root = ObjCClass(named: "NSObject") else { return }
        // The session being started (published before its guards install): "is this class the app's?" is its answer.
        ZombieClassFilter.shared.configure(configuration, session: Session.current.load(ordering: .acquiring))
        ZombiePool.shared.configure(configuration.zombies)
        _ = IncidentChannel.registered
        csr_zombie_prepare()
        Self.rootClassWord.store(UInt(bitPattern: root.pointer), ordering: .relaxed)
        try context.install(Self.deallocPoint, on: [root])
        Self.active.store(1, ordering: .releasing)
    }

    static func uninstall() {
        Self.active.store(0, ordering: .releasing)
        ZombiePool.shared.drain()
    }

    // MARK: Messages to zombies

    /// The incident of a message a zombie received (CSRIncident.h, `CSRIncidentZombie`): reported as the SIGSEGV it
    /// would be; failing loudly raises an NSInternalInconsistencyException; not recovered otherwise (stopping, the
    /// class excluded since), it answers nil, never worse than the crash it replaces (`Incident.Unrecovered`).
    @inline(never)
    static func incident(_ zombie: CSRObject?, _ selector: CSRSelector?) -> Incident {
        let address = UInt(bitPattern: zombie)
        let record = ZombiePool.shared.record(at: address)
        let className = record.map { String(cString: csr_class_getName($0.cls)) } ?? "?"
        let selectorName = selector.map { String(cString: csr_sel_getName($0)) } ?? "(null)"
        let hex = "0x" + String(address, radix: 16)
        let violation = Violation.messageToZombie(className: className, selector: selectorName, address: hex)
        var details = ["address": hex]
        if let record, !record.stack.isEmpty {
            // From the frame that called the dealloc replacement (a -dealloc or -release) outwards.
            let start = CallStack.callerIndex(in: record.stack, implementation: deallocPoint.replacementAddress) ?? 0
            let frames = record.stack[start...].map(CallStack.frame(for:))
            let session = Session.current.load(ordering: .acquiring)
            let appFrame = frames.first { frame in session?.isAppImage(frame.image) ?? true }
            if let appFrame { details["deallocatedAt"] = describe(appFrame) }
            details["deallocationStack"] = frames.map(describe).joined(separator: "\n")
        }
        return Incident(
            .zombie, subject: Incident.Subject(className: className), selector: selectorName,
            violation, details: details, implementation: csr_zombie_message_address(),
            unrecovered: .raiseInDebug(
                Incident.Exception(name: ExceptionName.internalInconsistency, reason: violation.reason)))
    }

    private static func describe(_ frame: StackFrame) -> String {
        let image = frame.image.split(separator: "/").last.map(String.init) ?? frame.image
        return "\(image)+\(frame.offsetInImage)" + (frame.symbol.map { " (\($0))" } ?? "")
    }
}

extension GuardDeclaration {
    /// State: `ZombieGuard.active` and `rootClassWord`, `ZombieClassFilter.shared`'s rules (set by `install`),
    /// `ZombiePool.shared` (its zombies): `uninstall` stops making zombies and frees every one.
    static let zombie = GuardDeclaration(.zombie, install: ZombieGuard.install, uninstall: ZombieGuard.uninstall)
}

/// Which classes' objects become zombies: decided once per class and cached in a lock-free table, so that an object
/// of an unprotected class pays one hash probe at dealloc.
final class ZombieClassFilter: @unchecked Sendable {
    static let shared = ZombieClassFilter()

    private static let capacity = 8192
    private static let maxProbes = 16
    /// Entry: class pointer | generation << 48 | 1 if protected; 0 = empty. Class pointers are 8-byte aligned and
    /// below 2^48. A new configuration bumps the generation, which makes every entry stale at once.
    private let entries = UnsafeMutablePointer<UnsafeAtomic<UInt>>.allocate(capacity: capacity)
    private let generation = ManagedAtomic<UInt>(0)
    private let lock = Lock()
    private var rules = Rules()

    private struct Rules {
        var classNames: Set<String> = []
        var prefixes: [String] = []
        var excluded: [ObjCClass] = []
        var maxObjectSize = 0
        /// The session's `isAppClass` (held weakly: a stopped session's answers are not kept alive here).
        weak var session: Session?
    }

    private init() {
        for index in 0..<Self.capacity { (entries + index).initialize(to: .create(0)) }
    }

    func configure(_ configuration: Configuration, session: Session?) {
        lock.withLock {
            let options = configuration.zombies
            rules = Rules(
                classNames: options.classNames, prefixes: configuration.protectedClassPrefixes,
                excluded: configuration.excludedClassNames.compactMap { ObjCClass(named: $0) },
                maxObjectSize: options.maxCount == 0 ? -1 : min(options.maxObjectSize, options.maxBytes),
                session: session)
            _ = generation.loadThenWrappingIncrement(ordering: .acquiringAndReleasing)
        }
    }

    /// Hot path: whether objects of `cls` (the object's real class) become zombies.
    @inline(__always)
    func isProtected(_ cls: CSRClass) -> Bool {
        let word = UInt(bitPattern: cls)
        guard word >> 48 == 0 else { return decide(cls) }
        let tag = (generation.load(ordering: .relaxed) & 0x7FFF) << 48
        var index = Self.slot(word)
        for _ in 0..<Self.maxProbes {
            let entry = entries[index].load(ordering: .acquiring)
            if entry == 0 { break }
            if entry & 0x0000_FFFF_FFFF_FFF8 == word, entry & 0x7FFF_0000_0000_0000 == tag { return entry & 1 == 1 }
            index = (index + 1) & (Self.capacity - 1)
        }
        return cacheDecision(cls, word: word, tag: tag)
    }

    @inline(__always)
    private static func slot(_ word: UInt) -> Int {
        Int(truncatingIfNeeded: ((word >> 3) &* 0x9E37_79B9_7F4A_7C15) >> 51) & (capacity - 1)
    }

    @inline(never)
    private func cacheDecision(_ cls: CSRClass, word: UInt, tag: UInt) -> Bool {
        let decision = decide(cls)
        let value = word | tag | (decision ? 1 : 0)
        var index = Self.slot(word)
        for _ in 0..<Self.maxProbes {
            let entry = entries[index].load(ordering: .acquiring)
            // Take an empty slot, or one left by an earlier configuration.
            if entry == 0 || entry & 0x7FFF_0000_0000_0000 != tag {
                if entries[index].compareExchange(expected: entry, desired: value, ordering: .acquiringAndReleasing)
                    .exchanged
                {
                    break
                }
            } else if entry & 0x0000_FFFF_FFFF_FFF8 == word {
                break
            }
            index = (index + 1) & (Self.capacity - 1)
        }
        return decision
    }

    /// Cold path: the rules, for one class.
    func decide(_ cls: CSRClass) -> Bool {
        guard !csr_class_isMetaClass(cls) else { return false }
        let rules = lock.withLock { self.rules }
        guard rules.maxObjectSize >= 0, csr_class_getInstanceSize(cls) <= rules.maxObjectSize else { return false }
        let objcClass = ObjCClass(cls)
        if objcClass.name.hasPrefix("CSR") { return false }  // CrashShield's own runtime classes
        if rules.excluded.contains(where: { objcClass.isKind(of: $0) }) { return false }
        guard !rules.classNames.isEmpty || !rules.prefixes.isEmpty else {
            return rules.session?.isAppClass(objcClass) == true
        }
        var current: CSRClass? = cls
        while let candidate = current {
            let name = String(cString: csr_class_getName(candidate))
            if rules.classNames.contains(name) || rules.prefixes.contains(where: { name.hasPrefix($0) }) { return true }
            current = csr_class_getSuperclass(candidate)
        }
        return false
    }
}

/// The zombies, oldest first, bounded in bytes and in count. Thread-safe. The pool itself is C (`csr_zombie_pool_*`,
/// CSRZombie.h): a protected deallocation appends to a ring and evicts from its head, with no hashing and no
/// reference counting; finding a zombie's record (only when a zombie gets a message) scans it, newest first.
final class ZombiePool: @unchecked Sendable {
    static let shared = ZombiePool()

    struct Record {
        let cls: CSRClass
        let size: Int
        /// Return addresses where the object was deallocated (innermost first), when recorded.
        let stack: [UInt]
    }

    private static let stackDepth = 16
    private let recordsStack = ManagedAtomic<Bool>(true)

    func configure(_ options: ZombieOptions) {
        csr_zombie_pool_configure(max(options.maxBytes, 0), max(options.maxCount, 0))
        recordsStack.store(options.recordsDeallocationStack, ordering: .relaxed)
    }

    /// Makes `object` (being deallocated; every `-dealloc` body of its chain ran) a zombie and keeps it. false when
    /// it cannot be kept: the caller frees it as usual.
    func admit(_ object: CSRObject, cls: CSRClass) -> Bool {
        let size = csr_class_getInstanceSize(cls)
        // Cleanups of a dealloc watcher hook that sits below this one in the chain (it would not run).
        let notified = DeallocWatcher.shared.runCleanups(object)
        if recordsStack.load(ordering: .relaxed) {
            var raw = [UnsafeMutableRawPointer?](repeating: nil, count: Self.stackDepth)
            let count = Int(raw.withUnsafeMutableBufferPointer { csr_backtrace($0.baseAddress, Int32($0.count)) })
            let stack = raw.prefix(count).dropFirst().map { UInt(bitPattern: $0) }
            csr_zombie_make(object)
            stack.withUnsafeBufferPointer { csr_zombie_pool_add(object, cls, size, $0.baseAddress, Int32($0.count)) }
        } else {
            csr_zombie_make(object)
            csr_zombie_pool_add(object, cls, size, nil, 0)
        }
        DeallocWatcher.shared.notifyDidDeallocate(notified, address: UInt(bitPattern: object))  // the chain has run
        return true
    }

    /// Frees every zombie for real.
    func drain() { csr_zombie_pool_drain() }

    /// The record of the zombie at `address`, if the pool keeps one there.
    func record(at address: UInt) -> Record? {
        var record = CSRZombieRecord()
        var stack = [UInt](repeating: 0, count: Self.stackDepth)
        let found = stack.withUnsafeMutableBufferPointer {
            csr_zombie_pool_record(address, &record, $0.baseAddress, Int32($0.count))
        }
        guard found, let cls = record.cls else { return nil }
        return Record(cls: cls, size: Int(record.size), stack: Array(stack.prefix(Int(record.stackCount))))
    }

    /// How many zombies the pool keeps, and their instance bytes.
    var usage: (count: Int, bytes: Int, evicted: Int) {
        var count = 0, bytes = 0, evicted = 0
        csr_zombie_pool_usage(&count, &bytes, &evicted)
        return (count, bytes, evicted)
    }
}
