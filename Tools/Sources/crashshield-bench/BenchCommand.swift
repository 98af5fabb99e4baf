import ArgumentParser
@_spi(CrashShieldTools) import CrashShield
import CrashShieldBenchKernels
import Foundation

/// Guarded vs unguarded cost, in one process: hot calls (each with its own guard), an app-like workload (with the
/// production-safe guards), start()/stop(), and the cost of one stopped call per guard family.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-bench",
        abstract: "Measures the overhead of the guards (build with -c release; scripts/bench.sh).")

    @Option(help: "Calls per timed run of a hot-call kernel.") var iterations: UInt = 2_000_000
    @Option(help: "Timed runs per mode (the median is reported).") var runs = 9
    @Option(help: "Screen loads per timed run of the app workload.") var appIterations: UInt = 60
    @Option(help: "start()/stop() pairs timed per configuration.") var startRuns = 15
    @Option(help: "Extra app classes registered at run time before start() is timed again.") var extraClasses: Int32 =
        5_000
    @Option(help: "Stopped calls timed per guard family.") var stoppedCalls: UInt = 2_000
    @Option(help: "Instruction counts written by scripts/bench-instructions.sh in this run (TSV).")
    var instructions: String?
    @Flag(help: "Print BENCHMARKS.md (machine, date, tables) instead of plain text.") var markdown = false
    @Option(help: "The toolchain line for --markdown (scripts/bench.sh passes `swift --version`).")
    var toolchain = "unknown Swift"
    @Option(help: "Run only this kernel (a hot-call name or \"app workload\"), for callgrind; prints its ns/call.")
    var kernel: String?
    @Option(
        help:
            "With --kernel: unguarded, guarded (the kernel's own guard), or stopped (started and stopped first), or used-stopped (stopped after a guarded warm-up)."
    ) var mode = "unguarded"
    @Option(help: "Only start() and stop() this many times with the production-safe guards (for perf record).")
    var startProfile: Int?
    @Option(help: "With --start-profile: app classes registered at run time first.") var profileExtraClasses: Int32 = 0
    @Option(
        help:
            "Only time the unrecognized-selector guard's lookup of an untyped selector's types, after registering this many classes at run time."
    )
    var forwardingLookup: Int32?

    func run() throws {
        if let kernel { return try runOne(kernel) }
        if let forwardingLookup { return ForwardingLookup.measure(extraClasses: forwardingLookup) }
        if let startProfile {
            _ = csb_register_app_classes(profileExtraClasses)
            for _ in 0..<startProfile { try CrashShield.start(.production); CrashShield.stop() }
            return
        }
        let firstStart = try StartStop.measureFirst()
        let results = BenchResults(
            hot: try HotCalls.measure(iterations: iterations, runs: runs),
            app: try AppWorkload.measure(iterations: appIterations, runs: runs),
            stopped: try StoppedCalls.measure(calls: stoppedCalls),
            startStop: try StartStop.measure(runs: startRuns, extraClasses: extraClasses) + [firstStart],
            instructions: try instructions.map(InstructionCounts.init(path:)))
        print(
            markdown
                ? results.markdown(toolchain: toolchain, settings: settingsLine) : results.text(settings: settingsLine))
    }

    private var settingsLine: String {
        "median of \(runs) runs; hot calls \(iterations) calls a run, app workload \(appIterations) screen loads a run, "
            + "start()/stop() \(startRuns) pairs, \(stoppedCalls) stopped calls per family"
    }

    /// One kernel, for callgrind: a warm-up outside the count, then `csb_run_measured`, the counted function.
    private func runOne(_ name: String) throws {
        guard
            let entry = Kernels.hot.first(where: { $0.name == name })
                ?? (name == AppWorkload.name ? AppWorkload.entry : nil)
        else {
            throw ValidationError(
                "no kernel named \(name); kernels: \((Kernels.hot.map(\.name) + [AppWorkload.name]).joined(separator: ", "))"
            )
        }
        let configuration = Kernels.configuration(for: entry.guardName)
        switch mode {
        case "unguarded": break
        case "guarded": try CrashShield.start(configuration)
        case "stopped":
            try CrashShield.start(configuration)
            CrashShield.stop()
        case "used-stopped":  // the kernel's warm-up runs guarded (what it hooks stays hooked), then stop()
            try CrashShield.start(configuration)
            _ = entry.kernel(max(iterations / 4, 1))
            CrashShield.stop()
        default: throw ValidationError("--mode is unguarded, guarded, stopped or used-stopped")
        }
        _ = entry.kernel(max(iterations / 4, 1))
        let ns = csb_run_measured(entry.kernel, iterations)
        CrashShield.stop()
        print("\(name) \(mode): \(String(format: "%.2f", ns)) ns per call")
    }
}
