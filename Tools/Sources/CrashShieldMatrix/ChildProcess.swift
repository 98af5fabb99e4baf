import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldScenarios
import CrashShieldTesting
import Foundation

/// What runs inside a child process: one scenario, protected or not. Speaks a line protocol on stdout:
/// `RESULT <text>` (the caller survived and got <text>), `REPORT <json>` (one per distinct report). An uncaught
/// exception prints `CRASH uncaught-exception <name>: <reason>` on stderr and aborts, as on iOS.
public enum ChildProcess {
    public static func run(scenarioNamed name: String, protected: Bool) -> Int32 {
        guard let scenario = Scenario.named(name) else {
            FileHandle.standardError.write(Data("unknown scenario '\(name)'\n".utf8))
            return 64
        }
        css_install_uncaught_exception_abort("CRASH")
        let sink = InMemoryReportSink()
        if protected {
            do {
                try CrashShield.start(Scenario.protectedConfiguration(sinks: [sink]))
            } catch {
                print("START-FAILED \(error)")
                return 70
            }
        }
        var result = ""
        withAutoreleasePool { result = scenario.perform() }
        CrashShield.flush()
        print("RESULT \(result)")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        for report in sink.reports {
            if let data = try? encoder.encode(report) { print("REPORT \(String(decoding: data, as: UTF8.self))") }
        }
        fflush(stdout)
        return 0
    }
}
