@_spi(Testing) @testable import CrashShield
import CrashShieldRuntime.Internal
import CrashShieldTesting
import XCTest

/// Runs `body` inside `@try`; returns the Objective-C exception it raised, if any.
func catchingObjCException(_ body: @escaping () -> Void) -> (name: String, reason: String)? {
    ObjCException.catching(body)
}

/// Starts CrashShield with an in-memory sink for the duration of `body`, and always stops it.
func withShield(
    _ configuration: Configuration = Configuration(guards: .all), file: StaticString = #filePath, line: UInt = #line,
    _ body: (InMemoryReportSink) throws -> Void
) rethrows {
    let sink = InMemoryReportSink()
    var configuration = configuration
    configuration.sinks.append(sink)
    do {
        try CrashShield.start(configuration)
    } catch {
        XCTFail("start failed: \(error)", file: file, line: line)
        return
    }
    // stop() hands pending counts to the delivery queue: wait for them, so no sink writes after the test moved on.
    defer { CrashShield.stop(); CrashShield.waitForSinks() }
    try body(sink)
}

/// Runs `body` with Apple's rules in force (`FoundationRules`: the guards apply Apple's preconditions on GNUstep),
/// then the platform's again.
func underAppleRules<T>(_ body: () throws -> T) rethrows -> T {
    FoundationRules.current = .apple
    defer { FoundationRules.current = FoundationRules.platform }
    return try body()
}

/// Base class for tests that touch the global shield: makes sure no test leaves it running.
class ShieldTestCase: XCTestCase {
    override func setUp() {
        super.setUp()
        CrashShield.stop()
    }

    override func tearDown() {
        CrashShield.stop()
        CrashShield.waitForSinks()
        super.tearDown()
    }
}

/// CPU seconds the calling thread has used.
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Skips, on every system but Linux, a test of a fact of the Linux proving ground: GNU tools (gcc, readelf,
/// addr2line, llvm-symbolizer on ELF files, GNU build IDs), GNUstep, Debian's packages. The macOS workflow
/// (.github/workflows/apple.yml) runs the rest of these suites.
func skipUnlessLinux(_ what: String) throws {
    #if !os(Linux)
    throw XCTSkip("Linux proving ground only: \(what)")
    #endif
}
