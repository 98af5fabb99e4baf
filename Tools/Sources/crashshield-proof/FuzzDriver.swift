import CrashShieldProofKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One divergence, as a worker (or the driver, for a crash) recorded it.
struct FuzzFinding {
    let divergence: Divergence
    let index: Int
    let key: String
    let lines: [String]
}

/// Everything a fuzz run found.
struct FuzzSummary {
    var calls = 0
    var valid = 0
    var recovered = 0
    var leftAlone = 0
    var wrongType = 0
    var findings: [FuzzFinding] = []
    /// Calls that crash or hang without CrashShield (never run again in-process), by index.
    var unguardedCrashes: [(index: Int, how: String, repro: String)] = []
    var skipped = 0
    var restarts = 0
    var classes = Set<String>()
    /// Methods no longer called after `SkipList.quarantineAfter` crashes with guards.
    var quarantined = Set<String>()

    func count(_ divergence: Divergence) -> Int { findings.filter { $0.divergence == divergence }.count }
    var divergent: Int { findings.count }
}

#if os(Linux) || os(macOS)
/// Runs the fuzzer in worker processes (`crashshield-proof fuzz-worker`) and watches them: a worker that dies of a
/// signal or stops making progress is replaced, the call it was on is recorded (a crash only with guards when it
/// happened with every guard on, a call to skip when Foundation itself crashes or hangs on it) and never run again.
struct FuzzDriver {
    let executable: URL
    let seed: UInt64
    let calls: Int
    let batch: Int
    let jobs: Int
    /// Seconds a single call may take before its worker is declared hung.
    let callTimeout: Double
    let folder: URL

    func run() throws -> FuzzSummary {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jobCount = max(1, min(jobs, calls / max(1, batch) + 1))
        let slice = (calls + jobCount - 1) / jobCount
        final class Outcomes: @unchecked Sendable {
            let lock = NSLock()
            var summaries: [FuzzSummary]
            var failures: [Error] = []
            init(_ count: Int) { summaries = [FuzzSummary](repeating: FuzzSummary(), count: count) }
        }
        let outcomes = Outcomes(jobCount)
        let group = DispatchGroup()
        for job in 0..<jobCount {
            let range = min(calls, job * slice)..<min(calls, (job + 1) * slice)
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let summary = try runJob(job, range)
                    outcomes.lock.lock(); outcomes.summaries[job] = summary; outcomes.lock.unlock()
                } catch {
                    outcomes.lock.lock(); outcomes.failures.append(error); outcomes.lock.unlock()
                }
            }
        }
        group.wait()
        if let failure = outcomes.failures.first { throw failure }
        return outcomes.summaries.reduce(into: FuzzSummary()) { total, part in
            total.calls += part.calls
            total.valid += part.valid
            total.recovered += part.recovered
            total.leftAlone += part.leftAlone
            total.wrongType += part.wrongType
            total.findings += part.findings
            total.unguardedCrashes += part.unguardedCrashes
            total.skipped += part.skipped
            total.restarts += part.restarts
            total.classes.formUnion(part.classes)
            total.quarantined.formUnion(part.quarantined)
        }
    }

    /// Calls `range` in as many workers as it takes.
    private func runJob(_ job: Int, _ range: Range<Int>) throws -> FuzzSummary {
        var summary = FuzzSummary()
        var skip = SkipList()
        var crashesByEntry: [UInt32: Int] = [:]
        var next = range.lowerBound
        let progress = try ProgressFile(path: folder.appendingPathComponent("progress-\(job)").path)
        let skipFile = folder.appendingPathComponent("skip-\(job).txt")
        let stderrFile = folder.appendingPathComponent("worker-\(job).stderr")
        while next < range.upperBound {
            guard summary.restarts < 500 else {
                throw ProofError("job \(job): more than 500 worker restarts, giving up at call \(next)")
            }
            try skip.text.write(to: skipFile, atomically: true, encoding: .utf8)
            // One results file per worker, all kept: --work-folder then holds every finding line of the run.
            let results = folder.appendingPathComponent("results-\(job)-\(summary.restarts).tsv")
            _ = FileManager.default.createFile(atPath: results.path, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
            progress.reset()
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "fuzz-worker", "--seed", String(seed), "--from", String(next), "--to", String(range.upperBound),
                "--batch", String(batch), "--progress", folder.appendingPathComponent("progress-\(job)").path,
                "--results", results.path, "--skip", skipFile.path,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: stderrFile)
            process.environment = Self.workerEnvironment
            try process.run()
            let hung = watch(process, progress)
            process.waitUntilExit()
            absorb(results, progress, into: &summary)
            if process.terminationReason == .exit && process.terminationStatus == 0 && !hung { break }
            summary.restarts += 1
            let how =
                hung
                ? "hang (no progress for \(callTimeout) s)"
                : process.terminationReason == .uncaughtSignal
                    ? "signal \(process.terminationStatus) (\(signalName(process.terminationStatus)))"
                    : "exit status \(process.terminationStatus)"
            let index = progress.index
            let call = FuzzCalls.call(seed: seed, index: index)
            switch progress.phase {
            case .unguarded:
                // The batch's guarded half never ran: start it again, without this call's shape.
                summary.unguardedCrashes.append((index, how, FuzzCalls.describe(call)))
                skip.shapes.insert(FuzzCalls.key(call))
                next = Int(progress.load(slot: FuzzWorker.Slot.batchStart))
            case .guarded:
                // Every call before this one was judged (and its findings written): go on after it.
                var lines = ["\(how) with every guard on", explain(index)]
                if hung {
                    lines.append("(a hang can also come from an earlier call of the batch that left a lock held)")
                }
                summary.findings.append(
                    FuzzFinding(
                        divergence: .crashOnlyWithGuards, index: index,
                        key: String(FuzzCalls.key(call), radix: 16), lines: lines + tail(stderrFile)))
                skip.shapes.insert(FuzzCalls.key(call))
                crashesByEntry[call.entry, default: 0] += 1
                if crashesByEntry[call.entry] == SkipList.quarantineAfter {
                    skip.entries.insert(call.entry)
                    summary.quarantined.insert(String(cString: csp_fuzz_entry_name(call.entry)))
                }
                next = index + 1
            case .setup, .idle:
                throw ProofError(
                    "job \(job): worker ended with \(how) outside a call (phase \(progress.phase), near call \(index)):\n"
                        + tail(stderrFile).joined(separator: "\n"))
            }
        }
        summary.skipped = countSkipped(range, skip)
        return summary
    }

    /// Polls the worker until it exits; kills it and returns true when its heartbeat stops for longer than allowed.
    private func watch(_ process: Process, _ progress: ProgressFile) -> Bool {
        var lastBeat = progress.heartbeat
        var lastChange = Date()
        while process.isRunning {
            usleep(20_000)
            let beat = progress.heartbeat
            if beat != lastBeat {
                lastBeat = beat
                lastChange = Date()
                continue
            }
            let allowed =
                progress.phase == .guarded || progress.phase == .unguarded ? callTimeout : max(60, callTimeout)
            if Date().timeIntervalSince(lastChange) > allowed {
                kill(process.processIdentifier, SIGKILL)
                return true
            }
        }
        return false
    }

    /// Adds what one worker judged (tallies from the progress file, findings and classes from the results file).
    private func absorb(_ results: URL, _ progress: ProgressFile, into summary: inout FuzzSummary) {
        typealias Slot = FuzzWorker.Slot
        summary.calls += Int(progress.load(slot: Slot.judged))
        summary.valid += Int(progress.load(slot: Slot.valid))
        summary.recovered += Int(progress.load(slot: Slot.recovered))
        summary.leftAlone += Int(progress.load(slot: Slot.leftAlone))
        summary.wrongType += Int(progress.load(slot: Slot.wrongType))
        let text = (try? String(contentsOf: results, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch fields.first {
            case "CLASS" where fields.count > 1:
                summary.classes.insert(fields[1])
            case "FINDING" where fields.count >= 5:
                guard let divergence = Divergence(rawValue: fields[1]), let index = Int(fields[2]) else { continue }
                summary.findings.append(
                    FuzzFinding(divergence: divergence, index: index, key: fields[3], lines: Array(fields[4...])))
            default:
                continue
            }
        }
    }

    /// The call's repro and its unguarded outcome, from a fresh worker.
    private func explain(_ index: Int) -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["fuzz-worker", "--seed", String(seed), "--explain", String(index)]
        process.environment = Self.workerEnvironment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "call #\(index)" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func tail(_ file: URL) -> [String] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(6).map { "worker stderr: " + $0 }
    }

    private func countSkipped(_ range: Range<Int>, _ skip: SkipList) -> Int {
        guard !skip.shapes.isEmpty || !skip.entries.isEmpty else { return 0 }
        return range.filter { skip.contains(FuzzCalls.call(seed: seed, index: $0)) }.count
    }

    /// A crashing worker dies at once: Swift's backtracer would spend a second naming frames nobody reads.
    static let workerEnvironment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }

    private func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGABRT: return "SIGABRT"
        case SIGBUS: return "SIGBUS"
        case SIGILL: return "SIGILL"
        case SIGFPE: return "SIGFPE"
        case SIGKILL: return "SIGKILL"
        case SIGTRAP: return "SIGTRAP"
        default: return "signal \(signal)"
        }
    }
}

#endif

extension FuzzSummary {
    /// The report: counts per category, examples, and the last line `fuzz: N calls, N divergent`.
    func render(seed: UInt64, seconds: Double, examples: Int) -> String {
        var lines: [String] = []
        lines.append(
            String(format: "fuzz: seed %llu, %d calls in %.1f s (%d worker restarts)", seed, calls, seconds, restarts))
        lines.append(
            "  valid \(valid), raised and recovered \(recovered), raised and left alone \(leftAlone), raised for a wrong-typed argument as without CrashShield \(wrongType), receiver classes \(classes.count)"
        )
        lines.append(
            "  skipped \(skipped) calls: \(unguardedCrashes.count) shapes that crash or hang without CrashShield, the shapes that did "
                + "with guards, and every call of \(quarantined.count) methods after \(SkipList.quarantineAfter) crashes with guards"
                + (quarantined.isEmpty ? "" : " (\(quarantined.sorted().joined(separator: ", ")))"))
        for crash in unguardedCrashes.prefix(examples) {
            lines.append("    #\(crash.index) \(crash.how) without CrashShield: \(crash.repro)")
        }
        for divergence in Divergence.allCases {
            let shapes = Set(findings.filter { $0.divergence == divergence }.map(\.key)).count
            lines.append("  \(divergence.title): \(count(divergence))" + (shapes > 0 ? " (\(shapes) call shapes)" : ""))
        }
        for divergence in Divergence.allCases {
            var seenShapes = Set<String>()
            let distinct = findings.filter { $0.divergence == divergence && seenShapes.insert($0.key).inserted }
            for finding in distinct.sorted(by: { $0.index < $1.index }).prefix(examples) {
                lines.append("  [\(divergence.rawValue)] #\(finding.index)")
                lines += finding.lines.map { "      " + $0 }
            }
        }
        lines.append("fuzz: \(calls) calls, \(divergent) divergent")
        return lines.joined(separator: "\n")
    }

    /// One line per category, for tests: "count crash-with-guards 0".
    var counts: String {
        Divergence.allCases.map { "count \($0.rawValue) \(count($0))" }.joined(separator: "\n")
    }
}
