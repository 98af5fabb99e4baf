import CrashShieldRuntime.Internal
import Foundation

/// One thread of CrashShield's own that runs closures in order: where sinks run (`ReportDelivery`) and where the KVO
/// guard tidies up (`KVOProxyRegistry`'s janitor).
///
/// Not a DispatchQueue: libdispatch takes a block, and in a process that loaded GNUstep Base before the Swift
/// runtime (any Objective-C program linked with `-lgnustep-base` that loads CrashShield), the dynamic linker binds
/// `_Block_copy` to GNUstep Base's fallback blocks runtime (Source/ObjectiveC2/blocks_runtime.m), which copies a
/// stack block only when it has flag bit 29, which compilers stopped setting long ago. libdispatch then keeps the
/// block on the stack of the thread that queued it, and runs it after that frame is gone: a use-after-free on the
/// worker thread, seen in GNUstep Base's own test programs. A thread, a lock and a condition use no block. The
/// thread starts with the first closure and lives as long as the process.
final class SerialWorker: @unchecked Sendable {
    private let name: String
    private let lock = Lock()
    private let changed = Condition()
    /// Closures queued and not yet taken, oldest first (`head` is the next one).
    private var jobs: [() -> Void] = []
    private var head = 0
    private var enqueued = 0
    private var completed = 0
    private var started = false
    /// `csr_thread_id()` of the worker thread, 0 until it runs.
    private var workerThread: UInt64 = 0

    init(name: String) { self.name = name }

    /// Whether the caller runs on this worker's thread (inside one of its closures).
    var isCurrent: Bool { csr_thread_id() == lock.withLock { workerThread } }

    /// Closures queued or running.
    var pending: Int { lock.withLock { enqueued - completed } }

    /// Queues `job`; returns at once.
    func async(_ job: @escaping () -> Void) {
        let start: Bool = lock.withLock {
            jobs.append(job)
            enqueued += 1
            defer { started = true }
            return !started
        }
        changed.broadcast()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
    }

    /// Waits until every closure queued before this call ran, at most `timeout` seconds. true: they all ran. Returns
    /// true at once on the worker's own thread, where waiting would wait for the caller.
    func waitForQueued(timeout: TimeInterval) -> Bool {
        if isCurrent { return true }
        let deadline = Deadline(after: max(timeout, 0))
        return lock.withLock {
            let target = enqueued
            while completed < target {
                if !lock.wait(changed, until: deadline) { return completed >= target }
            }
            return true
        }
    }

    private func run() {
        lock.withLock { workerThread = csr_thread_id() }
        while true {
            let job: () -> Void = lock.withLock {
                while head == jobs.count { lock.wait(changed) }
                let job = jobs[head]
                head += 1
                if head >= 64 && head * 2 >= jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                return job
            }
            job()
            lock.withLock { completed += 1 }
            changed.broadcast()
        }
    }
}
