import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A few counters shared with a parent process through a memory-mapped file: what a worker is doing right now. They
/// survive the worker's crash (the kernel keeps the page), so the parent learns which call killed it, and a
/// heartbeat that stops moving tells it the worker hangs.
final class ProgressFile {
    /// What the worker is doing.
    enum Phase: UInt64 {
        case idle = 0
        /// Running calls with every guard off.
        case unguarded = 1
        /// Running calls with every guard on.
        case guarded = 2
        /// Starting or stopping CrashShield, or judging a batch: slower, but no call is running.
        case setup = 3
    }

    private static let slots = 9
    private let words: UnsafeMutablePointer<UInt64>

    /// Maps `path` (created or truncated to the right size) for reading and writing.
    init(path: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else { throw ProofError("cannot open progress file \(path): errno \(errno)") }
        defer { close(descriptor) }
        let size = Self.slots * MemoryLayout<UInt64>.size
        guard ftruncate(descriptor, off_t(size)) == 0 else { throw ProofError("cannot size progress file \(path)") }
        guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), memory != MAP_FAILED
        else {
            throw ProofError("cannot map progress file \(path)")
        }
        words = memory.bindMemory(to: UInt64.self, capacity: Self.slots)
    }

    deinit { munmap(words, Self.slots * MemoryLayout<UInt64>.size) }

    /// Marks the start of a step: the phase and the call index (or a thread's operation), and moves the heartbeat.
    @inline(__always)
    func mark(_ phase: Phase, _ index: Int) {
        words[1] = UInt64(index)
        words[0] = phase.rawValue
        words[2] &+= 1
    }

    /// Slot `slot` (3...7) for a caller's own counter.
    func store(_ value: UInt64, slot: Int) { words[slot] = value }
    func load(slot: Int) -> UInt64 { words[slot] }

    var phase: Phase { Phase(rawValue: words[0]) ?? .idle }
    var index: Int { Int(words[1]) }
    var heartbeat: UInt64 { words[2] }

    func reset() { for slot in 0..<Self.slots { words[slot] = 0 } }
}

/// A failure of the proof tools themselves (bad arguments, a file that cannot be written).
struct ProofError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
