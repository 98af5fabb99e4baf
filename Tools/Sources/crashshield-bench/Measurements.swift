@_spi(CrashShieldTools) import CrashShield
import CrashShieldBenchKernels
import Foundation

/// A kernel of CrashShieldBenchKernels: a name, the function, the guard it measures.
struct Kernel {
    let name: String
    let kernel: CSBKernel
    let guardName: String

    init(name: String, kernel: CSBKernel, guardName: String) {
        self.name = name
        self.kernel = kernel
        self.guardName = guardName
    }

    init(_ entry: CSBBenchmark) {
        self.init(name: String(cString: entry.name), kernel: entry.kernel!, guardName: String(cString: entry.guard))
    }
}

enum Kernels {
    static let hot = table(csb_benchmarks)
    static let stopped = table(csb_stopped_calls)

    private static func table(_ read: (UnsafeMutablePointer<Int32>) -> UnsafePointer<CSBBenchmark>?) -> [Kernel] {
        var count: Int32 = 0
        let entries = read(&count)!
        return (0..<Int(count)).map { Kernel(entries[$0]) }
    }

    /// Release mode. "productionSafe": `Configuration.production`'s guards; otherwise one guard ("zombie/stack":
    /// zombies with deallocation stacks). The main-thread guard gets the benchmark's stand-in view class.
    static func configuration(for guardName: String) -> Configuration {
        var configuration: Configuration
        if guardName == "productionSafe" {
            configuration = .production
        } else {
            let parts = guardName.split(separator: "/").map(String.init)
            configuration = Configuration(guards: GuardCategory(name: parts[0]) ?? .container)
            if parts.count > 1, parts[1] == "stack" { configuration.zombies.recordsDeallocationStack = true }
            configuration.mainThreadOnlyMethods = ["CSBView": ["setNeedsLayout"]]
        }
        return configuration
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// Medians of one kernel: unguarded, guarded, after stop().
struct Timing {
    let name: String
    let guardName: String
    let unguarded: Double
    let guarded: Double
    let afterStop: Double
    var ratio: Double { guarded / unguarded }
    var afterStopRatio: Double { afterStop / unguarded }
}

enum HotCalls {
    /// Each run: every kernel unguarded, then each with its own guard on; the after-stop runs last.
    static func measure(iterations: UInt, runs: Int) throws -> [Timing] {
        let kernels = Kernels.hot
        var unguarded: [String: [Double]] = [:], guarded: [String: [Double]] = [:], stopped: [String: [Double]] = [:]
        for kernel in kernels { _ = kernel.kernel(iterations / 4) }  // warm up caches and dispatch tables
        for _ in 0..<runs {
            for kernel in kernels { unguarded[kernel.name, default: []].append(kernel.kernel(iterations)) }
            for kernel in kernels {
                try CrashShield.start(Kernels.configuration(for: kernel.guardName))
                guarded[kernel.name, default: []].append(kernel.kernel(iterations))
                CrashShield.stop()
            }
        }
        for _ in 0..<runs {
            for kernel in kernels { stopped[kernel.name, default: []].append(kernel.kernel(iterations)) }
        }
        return kernels.map {
            Timing(
                name: $0.name, guardName: $0.guardName, unguarded: median(unguarded[$0.name]!),
                guarded: median(guarded[$0.name]!), afterStop: median(stopped[$0.name]!))
        }
    }
}

enum AppWorkload {
    static let name = "app workload"
    static let entry = Kernel(name: name, kernel: csb_app_workload, guardName: "productionSafe")

    /// Rounds of: unguarded, guarded (`Configuration.production`), after stop(). The first unguarded run comes
    /// before any start(); later ones follow the previous round's after-stop run. Every run must compute the same
    /// checksum (a guard must not change a valid call's result).
    static func measure(iterations: UInt, runs: Int) throws -> Timing {
        var unguarded: [Double] = [], guarded: [Double] = [], afterStop: [Double] = []
        var checksums = Set<UInt>()
        func run(into times: inout [Double]) {
            times.append(csb_app_workload(iterations))
            checksums.insert(csb_app_workload_checksum())
        }
        _ = csb_app_workload(max(iterations / 4, 1))
        for _ in 0..<runs {
            run(into: &unguarded)
            try CrashShield.start(Kernels.configuration(for: "productionSafe"))
            run(into: &guarded)
            CrashShield.stop()
            run(into: &afterStop)
        }
        guard checksums.count == 1 else {
            throw BenchError("the app workload computed \(checksums.count) different checksums")
        }
        return Timing(
            name: name, guardName: "productionSafe", unguarded: median(unguarded), guarded: median(guarded),
            afterStop: median(afterStop))
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Milliseconds per start() and stop(), medians.
struct StartStopTiming {
    let label: String
    let start: Double
    let stop: Double
}

enum StartStop {
    /// production-safe and all guards, then production-safe again after `extraClasses` app classes were registered.
    static func measure(runs: Int, extraClasses: Int32) throws -> [StartStopTiming] {
        try CrashShield.start(.production)  // first start: reads the process context once
        CrashShield.stop()
        var results = [
            try time("production-safe guards", Configuration.production, runs: runs),
            try time("all guards", Configuration(guards: .all), runs: runs),
        ]
        let registered = csb_register_app_classes(extraClasses)
        results.append(try time("production-safe, +\(registered) app classes", .production, runs: runs))
        return results
    }

    /// The process's first start() and its stop(), before any other: with what start() does once per process
    /// (class-cluster samples, the process context). One sample, not a median.
    static func measureFirst() throws -> StartStopTiming {
        try time("production-safe, first start() in the process", .production, runs: 1)
    }

    private static func time(_ label: String, _ configuration: Configuration, runs: Int) throws -> StartStopTiming {
        var starts: [Double] = [], stops: [Double] = []
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try CrashShield.start(configuration)
            let t1 = DispatchTime.now().uptimeNanoseconds
            CrashShield.stop()
            let t2 = DispatchTime.now().uptimeNanoseconds
            starts.append(Double(t1 - t0) / 1e6)
            stops.append(Double(t2 - t1) / 1e6)
        }
        return StartStopTiming(label: label, start: median(starts), stop: median(stops))
    }
}

/// Nanoseconds per stopped call, per guard family (the same call site over and over: after the first captures a
/// second, an occurrence costs the failure path and a counter).
enum StoppedCalls {
    static func measure(calls: UInt) throws -> [(kernel: Kernel, ns: Double, reported: Int)] {
        try Kernels.stopped.map { kernel in
            try CrashShield.start(Kernels.configuration(for: kernel.guardName))
            let ns = kernel.kernel(calls)
            let reported = CrashShield.reports.reduce(0) { $0 + $1.occurrences }
            CrashShield.stop()
            guard reported > 0 else {
                throw BenchError("\(kernel.name): the \(kernel.guardName) guard reported nothing")
            }
            return (kernel, ns, reported)
        }
    }
}

/// What scripts/bench-instructions.sh wrote: per kernel, the instructions of the unguarded, the guarded and the stopped
/// run.
struct InstructionCounts {
    let path: String
    let counts: [String: (unguarded: Double, guarded: Double, stopped: Double?)]

    init(path: String) throws {
        self.path = path
        var counts: [String: (unguarded: Double, guarded: Double, stopped: Double?)] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#")
        {
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 3, let u = Double(fields[1]), let g = Double(fields[2]) else { continue }
            counts[fields[0]] = (u, g, fields.count >= 4 ? Double(fields[3]) : nil)
        }
        self.counts = counts
    }

    func ratio(_ name: String) -> Double? { counts[name].map { $0.guarded / $0.unguarded } }
    /// Started and stopped, then measured: what is left once every hook is reverted.
    func afterStopRatio(_ name: String) -> Double? { counts[name].flatMap { c in c.stopped.map { $0 / c.unguarded } } }
}
