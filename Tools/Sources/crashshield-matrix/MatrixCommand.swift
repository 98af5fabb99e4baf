import ArgumentParser
import CrashShieldMatrix
import Foundation

@main
struct MatrixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-matrix",
        abstract: "Runs every crash scenario unprotected (must crash) and protected (must survive with its report).",
        subcommands: [Run.self, Child.self, List.self],
        defaultSubcommand: Run.self)

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the crash matrix (the default).")
        @Option(help: "Only scenarios whose name starts with this prefix.") var filter: String?
        @Option(help: "Child processes at once.") var jobs = ProcessInfo.processInfo.activeProcessorCount * 2
        @Option(help: "Seconds before a child is killed.") var timeout: Double = 30

        func run() throws {
            let scenarios = Scenario.all.filter { filter.map($0.name.hasPrefix) ?? true }
            guard !scenarios.isEmpty else { throw ValidationError("no scenario matches '\(filter ?? "")'") }
            let runner = MatrixRunner(
                executable: URL(fileURLWithPath: CommandLine.executablePath), jobs: jobs, timeout: timeout)
            let rows = runner.run(scenarios)
            print(MatrixTable.render(rows))
            if rows.contains(where: { !$0.passed }) { throw ExitCode(1) }
        }
    }

    struct Child: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run one scenario in this process.", shouldDisplay: false)
        @Argument var scenario: String
        @Flag(exclusivity: .exclusive) var mode: Mode

        enum Mode: EnumerableFlag { case protected, unprotected }

        func run() throws {
            let status = ChildProcess.run(scenarioNamed: scenario, protected: mode == .protected)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the scenarios.")
        func run() {
            for scenario in Scenario.all { print("\(scenario.name)\t\(scenario.category)\t\(scenario.selector)") }
        }
    }
}

extension CommandLine {
    /// Absolute path of this executable.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? arguments[0]
    }
}
