import CrashShieldRuntime.Internal

/// The state behind the KVO guard: one proxy per observed object (the only observer Foundation knows of for the
/// registrations made through the guard), the registrations it forwards to, and who watches whom. Objects are kept
/// by address and never retained; both the observed objects and the observers are watched through `DeallocWatcher`
/// (GCC's libobjc has no weak references). Where Foundation forgets a dead object's observers by itself (Apple, iOS 11 /
/// macOS 10.13 and later, keys notified automatically) the observed object's `-dealloc` is not watched: an end mark
/// (an associated object, released after its `-dealloc` chain) takes its entry off the table, without a call to
/// Foundation or a report (`observedObjectEnded`). Such an entry never gets a Foundation call the app did not make
/// on its object: the proxy stays on a key path its last observer left by dying until the app's next KVO call on the
/// object, or the object's end.
///
/// A registration is keyed on (observed, observer, key path, context) and keeps its options. The proxy is registered
/// with Foundation for each key path some registration observes, with the union of their options, and taken off a
/// key path when its last registration goes (an object left observed when it is deallocated leaks GNUstep's
/// observation info). Each change is forwarded to every registration of that key path (newest first, GNUstep's
/// order), prior notifications only to those that asked for them; on Apple each gets only the values it asked for
/// (GNUstep sends every observer the same dictionary). An initial notification Foundation sends while the proxy is
/// registered with Initial goes to the new registration only.
///
/// Locking: one lock for every table; nothing calls out (to observers, to Foundation's KVO, to the report pipeline)
/// while holding it. Two kinds of calls are made outside it, each with the objects involved *pinned* (their
/// deallocation waits for the call, see "Deliveries in flight"), so nothing is ever sent to a freed object:
/// - changes delivered to observers (the observer is pinned);
/// - Foundation KVO calls on an observed object (the object is pinned, and the calling thread holds its *access*,
///   see "Access"): GNUstep's `-removeObserver:forKeyPath:` is not synchronised with `-addObserver:...` (it drops the
///   object's observation info without GNUstep's KVO lock), so the registry never makes two such calls on one object
///   at once, and the app's own calls on an object the registry knows wait for the registry's.
///
/// The registry is split by responsibility: this file has its tables, an entry's life and the registry's mode (guard
/// on, draining, closed); KVOProxyRegistry+Ledger.swift adds and removes registrations; +Access.swift orders the
/// Foundation calls on an object; +Delivery.swift forwards changes and keeps calls in flight safe from deallocation;
/// +Deallocation.swift ends observers and observed objects; +Janitor.swift does the deferred work.
final class KVOProxyRegistry: DeallocObserver, @unchecked Sendable {
    static let shared = KVOProxyRegistry()

    struct Registration {
        let id: Int
        let observer: UInt
        let keyPath: String
        let context: UInt
        let options: UInt
        let observerClass: String
    }

    /// One observed object's entry: its proxy, the registrations it forwards to, and what Foundation has for it.
    final class Observed {
        /// An entry's life. Every transition is made here (`retire`, `beginDisposal`), under the registry's lock:
        ///
        ///     live ──retire()──> retired ──beginDisposal()──> disposed
        ///
        /// - `live`: in the table; serves registrations, its proxy is registered for `applied`.
        /// - `retired`: its object is gone (deallocated, or its end mark ran): off the table, registrations
        ///   forgotten; the proxy still has to come off its key paths and be released. Calls on the object wait for
        ///   that (`acquireLocked` answers `.gone`).
        /// - `disposed`: the thread that retired it, or the one holding its access when it was retired, took the
        ///   proxy off and released it (`dispose`), exactly once.
        enum State { case live, retired, disposed }

        /// How the registry learns that the object is gone (`KVOGuard.watchesDeallocation`). Only ever goes from
        /// `endMark` to `dealloc` (`watchDeallocation`).
        enum EndSignal {
            /// Its `-dealloc` is not watched: every registration is for a key Foundation itself forgets at the
            /// object's deallocation; an end mark tells the registry when the object is gone (`observedObjectEnded`).
            case endMark
            /// Its `-dealloc` is watched (`DeallocWatcher`, `objectWillDeallocate`).
            case dealloc
        }

        let proxy: CSRObject
        let className: String
        /// Identifies the entry to its object's end mark (see `observedObjectEnded`).
        let token: UInt
        private(set) var state = State.live
        private(set) var end = EndSignal.endMark
        var registrations: [Registration] = []
        /// What Foundation has for the proxy: key path -> (an owned copy of the key path string, the options).
        var applied: [String: (keyPath: UInt, options: UInt)] = [:]
        /// Registrations being added with the Initial option, by thread: Foundation's initial notification to the
        /// proxy during that add belongs to them alone.
        var initialFor: [(thread: UInt64, id: Int)] = []
        /// While the proxy is registered: whether it is the object's only observer in Foundation (the object had none
        /// when the proxy was first registered, and nothing was registered around the proxy since). Then a removal
        /// the registry does not know is unbalanced; otherwise Foundation may know it (registered before `start()`,
        /// while the guard was off, or left alone as system KVO) and decides.
        var proxyOnly = false
        /// The thread calling Foundation's KVO on the object (see "Access") and how deeply (nested calls).
        var owner: UInt64?
        var depth = 0

        init(proxy: CSRObject, className: String, token: UInt) {
            self.proxy = proxy
            self.className = className
            self.token = token
        }

        var isLive: Bool { state == .live }
        var isDisposed: Bool { state == .disposed }
        var watchesDeallocation: Bool { end == .dealloc }

        /// live -> retired (its object is gone). Idempotent.
        func retire() {
            if state == .live { state = .retired }
        }

        /// retired -> disposed. true for the one caller that must now take the proxy off and release it.
        func beginDisposal() -> Bool {
            guard state == .retired else { return false }
            state = .disposed
            return true
        }

        /// endMark -> dealloc. true when it changed (the caller starts watching the object).
        func watchDeallocation() -> Bool {
            guard end == .endMark else { return false }
            end = .dealloc
            return true
        }

        /// A key path the proxy is registered for that no registration observes any more.
        var staleKeyPath: String? {
            applied.keys.first { keyPath in !registrations.contains { $0.keyPath == keyPath } }
        }

        /// Nothing registered through it, nothing registered with Foundation for it.
        var isEmpty: Bool { registrations.isEmpty && applied.isEmpty }
    }

    enum Options {
        static let new: UInt = 0x01, old: UInt = 0x02, initial: UInt = 0x04, prior: UInt = 0x08
    }

    /// The registry's mode, set by `KVOHookLifetime` (`open`, `beginDraining`, `closeIfDrained`):
    ///
    ///     serving ──guard off──> draining ──nothing left──> closed
    ///        ^─────────────────── guard on ──────────────────┘
    enum Mode {
        /// The guard is on: registrations go through the proxies.
        case serving
        /// The guard is off; registrations may be left on the proxies. Each end of one triggers a drain check.
        case draining
        /// The guard is off and nothing is left: the hooks are being (or were) reverted; no new registration.
        case closed
    }

    // MARK: Tables (all under `lock`)

    let lock = Lock()
    var observed: [UInt: Observed] = [:]
    /// Observer address -> the observed objects it has registrations on.
    var observers: [UInt: Set<UInt>] = [:]
    /// The live proxies' addresses.
    var proxies: Set<UInt> = []
    /// Objects being deallocated: what they left registered, until their own `-dealloc` has run (it may still remove
    /// it: an observer removing itself, an object removing its observers). Reported at `objectDidDeallocate`.
    var departed: [UInt: Departed] = [:]
    var mode = Mode.serving
    var drainCheckScheduled = false
    var nextID = 0
    let watcher = DeallocWatcher.shared

    struct Departed {
        /// As an observer: (observed object, registration).
        var observing: [(object: UInt, registration: Registration)] = []
        /// As an observed object: its class and the registrations of its observers (its own `-dealloc` may still
        /// remove them).
        var observedClass = ""
        var observedBy: [Registration] = []
        var isEmpty: Bool { observing.isEmpty && observedBy.isEmpty }
    }

    // Deliveries in flight (KVOProxyRegistry+Delivery.swift).

    struct Pin: Hashable { let observer: UInt; let thread: UInt64 }
    /// Calls in flight: (observer or observed object, calling thread) -> how many (nested on one thread).
    var pins: [Pin: Int] = [:]
    /// Objects being deallocated: address -> the dying thread, and whether the deallocation is held (step 3).
    var dying: [UInt: (thread: UInt64, held: Bool)] = [:]
    /// Broadcast when a pinned call returns or an access is given up.
    let settled = Condition()
    /// How long a dealloc waits for calls on other threads before it holds the deallocation instead, and how long a
    /// thread waits for another's access to an object before it goes on without (seconds).
    static let waitLimit = 2.0

    // The janitor (KVOProxyRegistry+Janitor.swift).

    /// Observed objects whose proxy may be registered for key paths nobody observes any more (see
    /// `objectWillDeallocate`): the janitor takes the proxy off.
    var pendingPrunes: Set<UInt> = []
    let janitor = SerialWorker(name: "CrashShield.KVO.janitor")

    // MARK: Queries

    var observedCount: Int { lock.withLock { observed.count } }

    /// Whether `object` is one of the live proxies (by address: a removal may name an observer already freed).
    func isProxy(_ object: CSRObject?) -> Bool {
        guard let object else { return false }
        return lock.withLock { proxies.contains(UInt(bitPattern: object)) }
    }

    /// Registrations made through the proxies.
    var registrationCount: Int { lock.withLock { observed.values.reduce(0) { $0 + $1.registrations.count } } }

    /// Observers in their dealloc cleanup waiting for calls on other threads, or whose deallocation is held.
    var dyingCount: Int { lock.withLock { dying.count } }

    // MARK: Guard switched on and off (see KVOHookLifetime)

    /// The guard is on: registrations go through the proxies again.
    func open() { lock.withLock { mode = .serving } }

    /// The guard is off: registrations made through the proxies stay on them until their natural end. Their ends
    /// are watched for the moment nothing is left (`noteEndLocked`).
    func beginDraining() { lock.withLock { mode = .draining } }

    /// While the guard is off: true, and closed to new registrations, when no registration is left on a proxy (or in
    /// a dealloc cleanup): the hooks can be reverted.
    func closeIfDrained() -> Bool {
        lock.withLock {
            if mode == .draining, departed.isEmpty, dying.isEmpty, pendingPrunes.isEmpty,
                observed.values.allSatisfy(\.isEmpty)
            {
                mode = .closed
            }
            return mode == .closed
        }
    }
}
