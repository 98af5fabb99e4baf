@testable import CrashShield
import CrashShieldMatrix
import CrashShieldScenarios
import Foundation
import XCTest

/// Where a report came from: app, OS, device, launch, images. Checked against the system's own tools (Linux: uname, ps,
/// readelf) and against other processes.
final class ReportContextTests: ShieldTestCase {
    /// One real report: container guard, `css_test_call_objectAtIndex` (this test binary) making the bad call.
    private func realReport() throws -> CrashReport {
        var report: CrashReport?
        withShield(Configuration(guards: .container)) { sink in
            withAutoreleasePool { _ = css_test_call_objectAtIndex(css_test_array(), 5) }
            report = sink.reports.first
        }
        return try XCTUnwrap(report)
    }

    #if os(macOS) || os(Linux)  // child processes: not on iOS
    func testARealReportSaysWhichAppOSDeviceAndLaunchItCameFrom() throws {
        let report = try realReport()
        let context = try XCTUnwrap(report.context)
        #if os(Linux)
        XCTAssertEqual(context.appIdentifier, ProcessInfo.processInfo.processName, "no bundle here: the process name")
        XCTAssertEqual(context.osName, try run("/bin/uname", ["-s"]))
        XCTAssertEqual(context.osVersion, try run("/bin/uname", ["-r"]))
        XCTAssertEqual(context.osBuild, try run("/bin/uname", ["-v"]))
        XCTAssertEqual(context.device, try run("/bin/uname", ["-m"]))
        #else
        // macOS: xctest loads the test bundle (Bundle.main is xctest's, with an identifier); the OS as sw_vers
        // reports it (a version of two parts has a patch level of 0 in ProcessInfo), the model as sysctl reports it.
        XCTAssertEqual(
            context.appIdentifier, Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)
        XCTAssertEqual(context.osName, "macOS")
        var version = try run("/usr/bin/sw_vers", ["-productVersion"]).split(separator: ".").map(String.init)
        while version.count < 3 { version.append("0") }
        XCTAssertEqual(context.osVersion, version.joined(separator: "."))
        XCTAssertEqual(context.osBuild, try run("/usr/bin/sw_vers", ["-buildVersion"]))
        XCTAssertEqual(context.device, try run("/usr/sbin/sysctl", ["-n", "hw.model"]))
        #endif
        XCTAssertEqual(context.crashShieldVersion, CrashShield.version)
        XCTAssertNotNil(UUID(uuidString: context.launchID), context.launchID)
        XCTAssertEqual(context.launchID, ReportContext.currentLaunchID)
        // The kernel's count of seconds since this process started (whole seconds, truncated).
        let elapsed = try processAgeFromPS()
        let sinceReport = Date().timeIntervalSince(report.firstSeen)
        XCTAssertEqual(
            context.secondsSinceLaunch + sinceReport, elapsed, accuracy: 1.5,
            "time since launch is the process's age at the report, not the time since CrashShield started")
        // The same from the kernel's own start time, whatever the moment the context was collected.
        XCTAssertEqual(try XCTUnwrap(PlatformProcess.age()), elapsed, accuracy: 1.5)
    }

    func testTheImagesOfTheFramesCarryWhatSymbolicationNeeds() throws {
        let report = try realReport()
        let context = try XCTUnwrap(report.context)
        let caller = try XCTUnwrap(report.callerFrame)
        XCTAssertEqual(
            Set(context.images.map(\.loadAddress)), Set(report.callStack.map(\.imageBase).filter { $0 != 0 }),
            "one image per image the stack points into")
        XCTAssertEqual(context.images.count, Set(context.images.map(\.loadAddress)).count, "each image once")
        let image = try XCTUnwrap(context.image(for: caller), "the caller's image is listed")
        XCTAssertEqual(image.path, caller.image)
        XCTAssertEqual(image.name, (caller.image as NSString).lastPathComponent)
        #if os(Linux)
        // The GNU build ID, as readelf reads it from the file.
        let notes = try run("/usr/bin/readelf", ["-n", caller.image])
        let buildID = try XCTUnwrap(
            notes.components(separatedBy: "Build ID: ").dropFirst().first?
                .prefix { $0.isHexDigit }
        ).description
        XCTAssertEqual(image.buildID, buildID)
        let symbolName = "css_test_call_objectAtIndex"
        #else
        // Mach-O: the LC_UUID, as dwarfdump reads it from the file ("UUID: 8-4-4-4-12 (arch) path", one line per
        // slice: this build's architecture is among them). No GNU build ID.
        let uuids = try run("/usr/bin/xcrun", ["dwarfdump", "--uuid", caller.image]).split(separator: "\n").compactMap {
            $0.split(separator: " ").dropFirst().first.map { $0.replacingOccurrences(of: "-", with: "") }
        }
        XCTAssertTrue(uuids.contains(try XCTUnwrap(image.uuid)), "\(image.uuid ?? "") in \(uuids)")
        XCTAssertNil(image.buildID)
        let symbolName = "_css_test_call_objectAtIndex"  // C symbols carry a leading underscore in Mach-O
        #endif
        // The load bias: the caller's address minus it is inside css_test_call_objectAtIndex as nm lists it.
        let slide = try XCTUnwrap(image.slide)
        let symbols = try run("/usr/bin/nm", [caller.image])
        let line = try XCTUnwrap(symbols.split(separator: "\n").first { $0.hasSuffix(" " + symbolName) })
        let start = try XCTUnwrap(UInt64(line.prefix { $0.isHexDigit }, radix: 16))
        let fileAddress = caller.address &- UInt64(bitPattern: slide)
        XCTAssertGreaterThan(fileAddress, start)
        XCTAssertLessThan(fileAddress, start + 256, "the return address lies in the caller's body")
        let size = try XCTUnwrap(image.size)
        XCTAssertTrue((image.loadAddress..<image.loadAddress + size).contains(caller.address), "size spans the image")
    }
    #endif

    /// One launch ID for every report of a process; another process has its own.
    #if os(macOS) || os(Linux)  // child processes: not on iOS
    func testOneLaunchIDPerProcess() throws {
        let first = try realReport()
        var second: CrashReport?
        withShield(Configuration(guards: .container)) { sink in
            withAutoreleasePool { _ = css_test_storm_objectAtIndex(1) }
            second = sink.reports.first
        }
        let other = try XCTUnwrap(second)
        XCTAssertNotEqual(first.signature, other.signature)
        XCTAssertEqual(first.context?.launchID, other.context?.launchID)

        let children = try (0..<2).map { _ in
            let out = try run(
                productPath("crashshield-matrix"), ["child", "array.objectAtIndex.beyondEnd", "--protected"])
            return try XCTUnwrap(ChildOutcome(ending: .exited(0), stdout: out, stderr: "").reports.first?.context)
        }
        XCTAssertNotEqual(children[0].launchID, children[1].launchID)
        XCTAssertFalse(children.contains { $0.launchID == first.context?.launchID })
        XCTAssertEqual(children[0].device, first.context?.device)
        XCTAssertEqual(children[0].appIdentifier, "crashshield-matrix")
    }
    #endif

    /// Reports written before the context existed still load; reports with it round-trip through the store.
    func testReportsWithoutContextStillDecodeAndReportsWithItRoundTrip() throws {
        // A line exactly as JSONLinesReportStore wrote it before reports had a context (commit cd4bd9a).
        let old =
            #"{"action":"recovered","callStack":[{"address":4198416,"image":"/usr/lib/libapp.so","imageBase":4194304,"symbol":"_$s3App5startyyF"}],"callerFrameIndex":0,"category":"container","className":"GSInlineArray","details":{"count":"2","index":"5"},"exceptionName":"NSRangeException","firstSeen":"2023-11-14T22:13:21.000Z","hint":"check the index against count before calling objectAtIndex:","isClassMethod":false,"lastSeen":"2023-11-14T22:13:21.250Z","occurrences":10,"reason":"Index 5 is out of range 2 (in 'objectAtIndex:')","selector":"objectAtIndex:","signature":"0123456789abcdef","thread":{"id":42,"isMain":false,"name":"worker"}}"#
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ReportContextTests-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("reports.jsonl")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data((old + "\n").utf8).write(to: url)
        let store = try JSONLinesReportStore(fileURL: url)
        let current = try realReport()
        store.receive(current)

        let loaded = try store.load()
        XCTAssertEqual(loaded.warnings, [])
        XCTAssertEqual(loaded.reports.count, 2)
        XCTAssertEqual(loaded.reports[0].occurrences, 10)
        XCTAssertNil(loaded.reports[0].context)
        XCTAssertEqual(loaded.reports[1].context, current.context, "every context field survives the file")
        XCTAssertFalse(try XCTUnwrap(loaded.reports[1].context).images.isEmpty)
    }

    #if os(macOS) || os(Linux)  // child processes: not on iOS
    /// The seconds since this process started, as ps reads the kernel's start time: procps' `etimes` (whole seconds)
    /// on Linux; BSD ps (macOS) has only `etime`, `[[dd-]hh:]mm:ss`.
    private func processAgeFromPS() throws -> Double {
        #if os(Linux)
        return try XCTUnwrap(Double(try run("/bin/ps", ["-o", "etimes=", "-p", "\(getpid())"])))
        #else
        let text = try run("/bin/ps", ["-o", "etime=", "-p", "\(getpid())"])
        let dayParts = text.split(separator: "-")
        let days = dayParts.count == 2 ? try XCTUnwrap(Double(dayParts[0]), text) : 0
        var seconds = 0.0
        for part in try XCTUnwrap(dayParts.last, text).split(separator: ":") {
            seconds = seconds * 60 + (try XCTUnwrap(Double(part), text))
        }
        return days * 86_400 + seconds
        #endif
    }

    /// The output of a program, trimmed.
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try runProgram(executable, arguments)
        XCTAssertEqual(result.status, 0, "\(executable) \(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #endif
}

// MARK: - Programs (also used by ReportToolTests)

/// A program built with the tests (`swift build --build-tests` builds every product into the test bundle's folder).
#if os(macOS) || os(Linux)  // child processes: not on iOS
func productPath(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}

/// Runs a program to its end: exit status, stdout, stderr (stderr through a file, so that neither pipe can fill).
func runProgram(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: errorFile) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = try FileHandle(forWritingTo: errorFile)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: data, as: UTF8.self),
        String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
    )
}
#endif
