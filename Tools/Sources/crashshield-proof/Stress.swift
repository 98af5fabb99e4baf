import ArgumentParser
import CrashShield
import CrashShieldProofKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64, for choices that need no quality beyond "varied".
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// Counts reports (the sink path runs on every thread while guards come and go).
final class CountingSink: ReportSink, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// Reports delivered so far (one may still arrive after `stop()`: read under the lock).
    var deliveries: Int { lock.lock(); defer { lock.unlock() }; return count }
    func receive(_ report: CrashReport) { lock.lock(); count += 1; lock.unlock() }
}

/// `threads` threads make good and bad calls of every guard family while one more thread starts, stops and toggles
/// guards; the calling thread is the watchdog: an operation that makes no progress for `watchdog` seconds ends the
/// process with a message naming what every thread was doing (a hang becomes a failure, not a stuck CI job).
struct StressRun {
    let threads: Int
    let seconds: Double
    let watchdog: Double
    let seed: UInt64
    /// What the extra thread does: toggles guards, or leaves them on, or CrashShield never starts (the baseline).
    let mode: Mode
    /// The operations the threads choose from (CSPStressOperation values).
    let operations: [Int]

    enum Mode: String, CaseIterable, Decodable, ExpressibleByArgument { case toggle, steady, baseline }

    private static let toggleNames: [String: UnsafePointer<CChar>] = {
        var names: [String: UnsafePointer<CChar>] = [:]
        for action in ["start()", "stop()", "idle"] { names[action] = UnsafePointer(strdup(action)!) }
        for category in GuardCategory.allCategories {
            for state in ["on", "off"] {
                let action = "setGuard(\(category.name), \(state))"
                names[action] = UnsafePointer(strdup(action)!)
            }
        }
        return names
    }()

    private static func note(_ action: String) { csp_stress_note_toggle(toggleNames[action]!) }

    private final class Tally: @unchecked Sendable {
        let lock = NSLock()
        var operations = [Int](repeating: 0, count: Int(CSPStressOperationCount.rawValue))
        var problems: [String] = []
        var wrong = 0
        var starts = 0, stops = 0, toggles = 0
    }

    func run() -> Int32 {
        csp_stress_install_crash_report(Int32(threads + 1))
        csp_stress_prepare()
        let sink = CountingSink()
        let configuration = Configuration(guards: .all, mode: .release, sinks: [sink])
        do { if mode != .baseline { try CrashShield.start(configuration) } } catch {
            print("stress: start failed: \(error)")
            return 2
        }
        let tally = Tally()
        let deadline = Date().addingTimeInterval(seconds)
        let done = DispatchGroup()
        for thread in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                callLoop(thread, deadline, tally); done.leave()
            }
        }
        done.enter()
        Thread.detachNewThread {
            toggleLoop(threads, deadline, configuration, tally); done.leave()
        }
        if let stuck = watch(done) {
            print(stuck)
            fflush(stdout)
            _exit(3)
        }
        CrashShield.stop()
        let total = tally.operations.reduce(0, +)
        let perKind = (0..<tally.operations.count).map {
            "\(String(cString: csp_stress_operation_name(Int32($0)))) \(tally.operations[$0])"
        }
        print(
            "stress: mode \(mode.rawValue), \(threads) threads for \(String(format: "%.1f", seconds)) s: \(total) operations (\(perKind.joined(separator: ", ")))"
        )
        print(
            "stress: toggler: \(tally.starts) starts, \(tally.stops) stops, \(tally.toggles) setGuard; \(sink.deliveries) report deliveries"
        )
        for problem in tally.problems { print("stress: wrong answer: \(problem)") }
        print("stress: \(total) operations, \(tally.wrong) wrong answers, 0 hangs, 0 crashes")
        return tally.wrong == 0 ? 0 : 1
    }

    private func callLoop(_ thread: Int, _ deadline: Date, _ tally: Tally) {
        var random = SplitMix(state: seed &+ UInt64(thread) &* 7919)
        var problem = [CChar](repeating: 0, count: 512)
        var counts = [Int](repeating: 0, count: tally.operations.count)
        var wrong: [String] = []
        while Date() < deadline {
            let operation = operations[random.below(operations.count)]
            csp_stress_note(Int32(thread), Int32(operation))
            if !csp_stress_run(Int32(operation), random.next(), &problem, problem.count) {
                wrong.append(
                    "thread \(thread), \(String(cString: csp_stress_operation_name(Int32(operation)))): \(String(cString: problem))"
                )
            }
            counts[operation] += 1
        }
        csp_stress_note(Int32(thread), -1)
        tally.lock.lock()
        for index in counts.indices { tally.operations[index] += counts[index] }
        tally.wrong += wrong.count
        tally.problems += wrong.prefix(5)
        tally.lock.unlock()
    }

    private func toggleLoop(_ slot: Int, _ deadline: Date, _ configuration: Configuration, _ tally: Tally) {
        var random = SplitMix(state: seed ^ 0xC0FFEE)
        var starts = 0, stops = 0, toggles = 0
        while Date() < deadline && mode != .toggle {
            csp_stress_note(Int32(slot), -1)
            usleep(10_000)
        }
        while Date() < deadline {
            csp_stress_note(Int32(slot), -1)
            switch random.below(10) {
            case 0:
                Self.note("stop()")
                CrashShield.stop()
                stops += 1
            case 1:
                Self.note("start()")
                if (try? CrashShield.start(configuration)) != nil { starts += 1 }
            default:
                let category = GuardCategory.allCategories[random.below(GuardCategory.allCategories.count)]
                let enable = random.below(2) == 0
                Self.note("setGuard(\(category.name), \(enable ? "on" : "off"))")
                _ = try? CrashShield.setGuard(category, enabled: enable)
                toggles += 1
            }
            Self.note("idle")
            usleep(UInt32(random.below(3000)))
        }
        if mode == .toggle && !CrashShield.isRunning { try? CrashShield.start(configuration) }
        csp_stress_note(Int32(slot), -1)
        tally.lock.lock()
        tally.starts += starts
        tally.stops += stops
        tally.toggles += toggles
        tally.lock.unlock()
    }

    /// Waits for the threads; returns a message when one of them stops making progress.
    private func watch(_ done: DispatchGroup) -> String? {
        let slots = threads + 1
        var beats = (0..<slots).map { csp_stress_heartbeat(Int32($0)) }
        var changed = [Date](repeating: Date(), count: slots)
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            for slot in 0..<slots {
                let beat = csp_stress_heartbeat(Int32(slot))
                if beat != beats[slot] { beats[slot] = beat; changed[slot] = Date(); continue }
                guard Date().timeIntervalSince(changed[slot]) > watchdog else { continue }
                let doing = (0..<threads).map {
                    "thread \($0) in \(String(cString: csp_stress_operation_name(csp_stress_current_operation(Int32($0)))))"
                }
                let who = slot == threads ? "the toggler" : "thread \(slot)"
                return
                    "STRESS HANG: \(who) made no progress for \(watchdog) s; toggler in \(String(cString: csp_stress_toggle())); "
                    + doing.joined(separator: "; ")
            }
        }
        return nil
    }
}

extension ProofCommand {
    struct Stress: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Threads make good and bad calls of every guard family while another starts, stops and toggles guards.")
        @Option(help: "Threads making calls.") var threads = 8
        @Option(help: "Seconds to run.") var seconds: Double = 5
        @Option(help: "Seconds without progress that count as a hang.") var watchdog: Double = 20
        @Option(help: "Seed of the threads' choices.") var seed: UInt64 = 1
        @Option(
            help:
                "toggle: one more thread starts, stops and toggles guards; steady: every guard stays on; baseline: CrashShield never starts."
        )
        var mode: StressRun.Mode = .toggle
        @Option(
            help:
                "Only these operations (comma-separated names: container, string, kvc, nsNull, unrecognizedSelector, kvo.cycle, notification.cycle, zombie, timer)."
        )
        var only: String?

        func run() throws {
            guard (1...63).contains(threads) else { throw ValidationError("--threads must be 1...63") }
            let names = (0..<Int(CSPStressOperationCount.rawValue)).map {
                String(cString: csp_stress_operation_name(Int32($0)))
            }
            let chosen = only.map { $0.split(separator: ",").map(String.init) } ?? names
            let operations = try chosen.map { name in
                guard let index = names.firstIndex(of: name) else {
                    throw ValidationError("unknown operation '\(name)'")
                }
                return index
            }
            let status = StressRun(
                threads: threads, seconds: seconds, watchdog: watchdog, seed: seed, mode: mode,
                operations: operations
            ).run()
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Workload: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Starts every guard, makes good and bad calls of every guard family, stops (for valgrind).")
        @Option(help: "Rounds of every operation per cycle.") var rounds = 50
        @Option(help: "start, workload, stop cycles (a leak that grows with them is CrashShield's).") var cycles = 1

        func run() throws {
            let sink = CountingSink()
            var wrong = 0
            for _ in 0..<cycles {
                try CrashShield.start(Configuration(guards: .all, mode: .release, sinks: [sink]))
                wrong += csp_workload(rounds)
                CrashShield.stop()
            }
            print(
                "workload: \(cycles) cycles of \(rounds) rounds, \(sink.deliveries) report deliveries, \(wrong) wrong answers"
            )
            if wrong != 0 { throw ExitCode(1) }
        }
    }
}
