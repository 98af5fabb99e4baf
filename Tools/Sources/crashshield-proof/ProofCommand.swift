import ArgumentParser
import CrashShield
import Foundation

@main
struct ProofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-proof",
        abstract:
            "Proof that CrashShield never makes an app worse: differential fuzzing, stress, a sanitizer workload.",
        subcommands: [Fuzz.self, FuzzWorkerCommand.self, Stress.self, Workload.self])

    struct Fuzz: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Runs seeded calls twice, with every guard off and on, and counts every divergence (all must be 0).")
        @Option(help: "Seed of the call sequence.") var seed: UInt64 = 1
        @Option(help: "Calls to make.") var calls = 1_000_000
        @Option(help: "Calls per batch (one CrashShield start/stop each).") var batch = 2_000
        @Option(help: "Worker processes at once.") var jobs = 2
        @Option(help: "Seconds one call may take before its worker is declared hung.") var callTimeout: Double = 3
        @Option(help: "Examples printed per category.") var examples = 8
        @Option(help: "Folder for the workers' progress and result files.") var workFolder: String?

        func run() throws {
            #if os(Linux) || os(macOS)
            let folder = URL(fileURLWithPath: workFolder ?? NSTemporaryDirectory() + "crashshield-fuzz-\(getpid())")
            let started = Date()
            let driver = FuzzDriver(
                executable: URL(fileURLWithPath: CommandLine.selfPath), seed: seed, calls: calls,
                batch: batch, jobs: jobs, callTimeout: callTimeout, folder: folder)
            let summary = try driver.run()
            print(summary.counts)
            print(summary.render(seed: seed, seconds: Date().timeIntervalSince(started), examples: examples))
            if workFolder == nil { try? FileManager.default.removeItem(at: folder) }
            if summary.divergent > 0 { throw ExitCode(1) }
            #else
            throw ValidationError("the fuzzer makes its calls in child processes, which this platform cannot start")
            #endif
        }
    }

    struct FuzzWorkerCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fuzz-worker", abstract: "One fuzz worker.", shouldDisplay: false)
        @Option var seed: UInt64 = 1
        @Option var from = 0
        @Option var to = 0
        @Option var batch = 2_000
        @Option var progress: String?
        @Option var results: String?
        @Option var skip: String?
        @Option(help: "Print one call's repro and its outcome without CrashShield, then exit.") var explain: Int?

        func run() throws {
            if let explain { return FuzzWorker.explain(seed: seed, index: explain) }
            guard let progress, let results else { throw ValidationError("--progress and --results are required") }
            let skipped = SkipList(text: (try? String(contentsOfFile: skip ?? "", encoding: .utf8)) ?? "")
            guard let file = fopen(results, "a") else { throw ProofError("cannot open \(results)") }
            defer { fclose(file) }
            try FuzzWorker(
                seed: seed, range: from..<max(from, to), batch: max(1, batch), skip: skipped,
                progress: ProgressFile(path: progress), results: file
            ).run()
        }
    }
}

extension CommandLine {
    /// This executable's path (for starting workers).
    static var selfPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
    }
}
