import CrashShieldRuntime.Internal
import Foundation

/// A value behind a lock (the runner's rows and a child's pipes are filled from several threads).
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Runs `body` inside an Objective-C autorelease pool (scenarios autorelease what they make).
func withAutoreleasePool(_ body: () -> Void) {
    withoutActuallyEscaping(body) { body in
        var closure = body
        withUnsafeMutablePointer(to: &closure) { pointer in
            csr_with_autorelease_pool({ raw in raw!.assumingMemoryBound(to: (() -> Void).self).pointee() }, pointer)
        }
    }
}
