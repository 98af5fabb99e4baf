#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-recursive mutex (pthread). Used by every piece of shared state; never held while calling out.
package final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// As `wait(_:)`, at most until `deadline`. false: the deadline passed.
    @inline(__always)
    func wait(_ condition: Condition, until deadline: Deadline) -> Bool {
        var time = deadline.time
        return pthread_cond_timedwait(condition.cond, mutex, &time) == 0
    }

    /// With the lock held (inside `withLock`): releases it, sleeps until `condition` is signalled, takes it again.
    /// Callers re-check what they wait for in a loop (wake-ups may be spurious).
    @inline(__always)
    func wait(_ condition: Condition) {
        pthread_cond_wait(condition.cond, mutex)
    }
}

/// A point in time for `Lock.wait(_:until:)` (the real-time clock, as pthread_cond_timedwait wants).
struct Deadline {
    fileprivate var time = timespec()

    init(after seconds: Double) {
        clock_gettime(CLOCK_REALTIME, &time)
        let whole = Int(seconds)
        var nanoseconds = time.tv_nsec + Int((seconds - Double(whole)) * 1e9)
        time.tv_sec += whole + nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        time.tv_nsec = nanoseconds
    }
}

/// A condition variable used with a `Lock` (`Lock.wait(_:)`).
final class Condition: @unchecked Sendable {
    fileprivate let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() { pthread_cond_init(cond, nil) }

    deinit {
        pthread_cond_destroy(cond)
        cond.deallocate()
    }

    /// Wakes every thread waiting on the condition (call with or without the lock held).
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// A value guarded by a lock: CrashShield's shared state, and handy for apps' tests of it.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    @inline(__always)
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }

    package var current: Value { withLock { $0 } }
}
