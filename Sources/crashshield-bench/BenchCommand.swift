import ArgumentParser
import CrashShield
import CrashShieldBenchKernels
import Foundation

/// Guarded vs unguarded cost of hot calls, in one process: each kernel runs alternately without CrashShield and
/// with it (and once more after stop, where nothing must remain), and the medians are compared.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crashshield-bench",
        abstract: "Measures the overhead of the guards on hot calls (build with -c release).")

    @Option(help: "Calls per timed run.") var iterations: UInt = 2_000_000
    @Option(help: "Timed runs per mode (the median is reported).") var runs = 9

    func run() throws {
        var count: Int32 = 0
        let table = csb_benchmarks(&count)!
        let kernels = (0..<Int(count)).map { (String(cString: table[$0].name), table[$0].kernel!, String(cString: table[$0].guard)) }
        var unguarded: [String: [Double]] = [:], guarded: [String: [Double]] = [:], stopped: [String: [Double]] = [:]
        for (_, kernel, _) in kernels { _ = kernel(iterations / 4) }  // warm up caches and dispatch tables
        for _ in 0..<runs {
            for (name, kernel, _) in kernels { unguarded[name, default: []].append(kernel(iterations)) }
            for (name, kernel, guardName) in kernels {
                try CrashShield.start(Self.configuration(for: guardName))
                guarded[name, default: []].append(kernel(iterations))
                CrashShield.stop()
            }
        }
        for _ in 0..<runs { for (name, kernel, _) in kernels { stopped[name, default: []].append(kernel(iterations)) } }
        print("benchmark (median of \(runs) runs x \(iterations) calls; each call with its own guard on)")
        print("call".padding(toLength: 20, withPad: " ", startingAt: 0) + "  guard           unguarded ns  guarded ns   ratio  after stop")
        for (name, _, guardName) in kernels {
            let u = median(unguarded[name]!), g = median(guarded[name]!), s = median(stopped[name]!)
            print(name.padding(toLength: 20, withPad: " ", startingAt: 0) + "  " + guardName.padding(toLength: 14, withPad: " ", startingAt: 0)
                  + String(format: "  %12.2f  %10.2f  %5.2fx  %9.2fx", u, g, g / u, s / u))
        }
    }

    /// One guard, release mode. "zombie/stack": zombies with deallocation stacks. The main-thread guard gets
    /// the benchmark's stand-in view class.
    static func configuration(for guardName: String) -> Configuration {
        let parts = guardName.split(separator: "/").map(String.init)
        var configuration = Configuration(guards: GuardCategory(name: parts[0]) ?? .container)
        if parts.count > 1, parts[1] == "stack" { configuration.zombies.recordsDeallocationStack = true }
        configuration.mainThreadOnlyMethods = ["CSBView": ["setNeedsLayout"]]
        return configuration
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
