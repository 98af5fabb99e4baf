import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// Runs `crashshield-proof` (built next to the test bundle) as a child process: a crash or a hang there is a failed
/// test here, not a dead test run.
struct ProofTool {
    struct Run {
        let status: Int32
        let signaled: Bool
        let timedOut: Bool
        let output: String
        let seconds: Double
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "crashshield-proof")
    }

    /// Runs it with `arguments`; kills it after `timeout` seconds. stdout and stderr are returned together.
    static func run(
        _ arguments: [String], timeout: Double, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw XCTSkip("build the proof tools first (swift build --build-tests): no \(executable.path)")
        }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "crashshield-proof-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        let started = Date()
        try process.run()
        var timedOut = false
        while process.isRunning {
            if Date().timeIntervalSince(started) > timeout {
                timedOut = true
                process.terminate()
                usleep(500_000)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            usleep(50_000)
        }
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return Run(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
            timedOut: timedOut, output: text, seconds: Date().timeIntervalSince(started))
    }
}

/// The differential fuzzer with a fixed seed: 100,000 calls of every guarded container, string, KVC, NSNull and
/// unrecognized-selector method (and the Foundation methods that reach them), each made with every guard off and
/// with every guard on. Every kind of divergence must be 0. `scripts/fuzz.sh` runs 1,000,000 with any seed.
final class FuzzTests: XCTestCase {
    static let seed = "1"
    static let calls = 100_000

    /// What seed 1 finds: nothing. The counts are exact (the fuzzer is deterministic for a seed). A call that raises
    /// for an argument of a type the method does not take (Foundation's own code messaged it) must raise exactly as
    /// without CrashShield: it is counted apart ("raised for a wrong-typed argument"), and any difference is
    /// "out-of-scope-changed".
    static let known: [String: Int] = [
        "crash-with-guards": 0, "valid-differs": 0, "valid-reported": 0, "recovered-changed-receiver": 0,
        "raising-not-recovered": 0, "recovered-without-report": 0, "out-of-scope-changed": 0,
    ]

    func testAFixedSeedFindsNoDivergence() throws {
        let run = try ProofTool.run(
            ["fuzz", "--seed", Self.seed, "--calls", String(Self.calls), "--jobs", "2", "--examples", "3"],
            timeout: 1200)
        print(run.output)
        XCTAssertFalse(run.timedOut, "the fuzzer did not finish in 1200 s")
        XCTAssertFalse(run.signaled, "the fuzzer's driver crashed (signal \(run.status))")
        let counts = Dictionary(
            uniqueKeysWithValues: run.output.split(separator: "\n").compactMap { line -> (String, Int)? in
                let fields = line.split(separator: " ")
                guard fields.count == 3, fields[0] == "count", let value = Int(fields[2]) else { return nil }
                return (String(fields[1]), value)
            })
        let categories = [
            "crash-with-guards", "valid-differs", "valid-reported", "recovered-changed-receiver",
            "raising-not-recovered", "recovered-without-report", "out-of-scope-changed",
        ]
        XCTAssertEqual(Set(counts.keys), Set(categories), "the fuzzer printed no counts:\n\(run.output.suffix(3000))")
        for category in categories {
            XCTAssertEqual(
                counts[category], Self.known[category],
                "\(category) (known: \(Self.known[category] ?? 0)): \(examples(of: category, in: run.output))")
        }
        let summary = run.output.split(separator: "\n").last { $0.hasPrefix("fuzz: ") && $0.hasSuffix("divergent") }
        let judged = summary.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        XCTAssertGreaterThanOrEqual(
            judged, Self.calls * 98 / 100, "calls judged (the rest were skipped): \(summary ?? "none")")
        XCTAssertEqual(
            run.status, Self.known.values.reduce(0, +) == 0 ? 0 : 1, "exit status: 1 while anything diverges")
    }

    /// The first examples the fuzzer printed for one category.
    private func examples(of category: String, in output: String) -> String {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        var result: [Substring] = []
        var inside = false
        for line in lines {
            if line.hasPrefix("  [") { inside = line.hasPrefix("  [\(category)]") }
            if line.hasPrefix("fuzz: ") { inside = false }
            if inside { result.append(line) }
            if result.count > 12 { break }
        }
        return result.isEmpty ? "(no example printed)" : "\n" + result.joined(separator: "\n")
    }
}
#endif
