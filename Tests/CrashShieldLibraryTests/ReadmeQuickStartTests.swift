import CrashShield
import Foundation
import XCTest

// README.md's Swift quick start, as written there (between the markers), compiled by every test build. Only the
// UIKit part is left out: `application(_:didFinishLaunchingWithOptions:)` calls `startCrashShield(reportsURL:)`.
// Keep both in step.

/// The app's own crash service (README: "any crash service you run").
private enum MyCrashService {
    static func record(_ report: CrashReport) {}
}

// README quick start (Swift) begins
/// Release builds: recover, report, and keep reports across launches (put `reportsURL` in Application Support).
func productionConfiguration(reportsURL: URL) throws -> Configuration {
    var configuration = Configuration.production
    configuration.sinks = [
        LogReportSink(),
        try JSONLinesReportStore(fileURL: reportsURL),
        ReportHandlerSink { report in MyCrashService.record(report) },
    ]
    return configuration
}

/// Call first thing in `application(_:didFinishLaunchingWithOptions:)`.
func startCrashShield(reportsURL: URL) {
    do {
        #if DEBUG
        try CrashShield.start(.debug)  // log the report, then fail loudly at the bad call
        #else
        try CrashShield.start(productionConfiguration(reportsURL: reportsURL))
        #endif
        // A reports folder that cannot be written now (a full disk) does not stop the guards: the store keeps reports
        // in memory and retries; a SinkFailure is listed here until it opens.
        for failure in CrashShield.sinkFailures { print("CrashShield: \(failure)") }
    } catch {
        // A configuration it cannot honour (CrashShieldError, UploadError, ReportStoreError: a bad option, class,
        // DSN): the error says what to change.
        print("CrashShield did not start: \(error)")
    }
}

/// Kill switch (e.g. from remote config), no restart.
func remoteConfigurationChanged(kvoGuardEnabled: Bool) {
    do {
        try CrashShield.setGuard(.kvo, enabled: kvoGuardEnabled)
    } catch {
        print("CrashShield: \(error)")
    }
}
// README quick start (Swift) ends

final class ReadmeQuickStartTests: XCTestCase {
    override func tearDown() {
        CrashShield.stop()
        super.tearDown()
    }

    func testTheQuickStartRunsAsWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reportsURL = folder.appendingPathComponent("reports.jsonl")
        startCrashShield(reportsURL: reportsURL)
        XCTAssertTrue(CrashShield.isRunning)
        remoteConfigurationChanged(kvoGuardEnabled: false)
        XCTAssertFalse(CrashShield.activeGuards.contains(.kvo))
        CrashShield.stop()

        XCTAssertNoThrow(try CrashShield.start(try productionConfiguration(reportsURL: reportsURL)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path), "the store made its folder")
    }

    /// Issue 31 §2: the quick start with a reports folder that cannot be written (a regular file holds its parent's
    /// path: the tests run as root, which ignores permission bits) starts every guard; `sinkFailures` names the store.
    /// A bad configuration is still refused.
    func testTheQuickStartProtectsWhenTheReportsFolderCannotBeWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let blocker = folder.appendingPathComponent("Application Support")
        try Data().write(to: blocker)
        let reportsURL = blocker.appendingPathComponent("CrashShield/reports.jsonl")

        XCTAssertNoThrow(try CrashShield.start(try productionConfiguration(reportsURL: reportsURL)))
        XCTAssertTrue(CrashShield.isRunning)
        XCTAssertEqual(CrashShield.activeGuards, Configuration.production.guards)
        let failures = CrashShield.sinkFailures
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.sink is JSONLinesReportStore)
        guard case .folderNotWritable? = failures.first?.error as? ReportStoreError else {
            return XCTFail("expected .folderNotWritable, got \(failures)")
        }
        XCTAssertTrue("\(failures[0])".contains("Application Support"), "\(failures[0])")
        CrashShield.stop()
        XCTAssertTrue(CrashShield.sinkFailures.isEmpty, "none while not running")

        // A bad configuration is still refused, with the same folder.
        var bad = try productionConfiguration(reportsURL: reportsURL)
        bad.protectedClassPrefixes = [""]
        XCTAssertThrowsError(try CrashShield.start(bad))
        XCTAssertFalse(CrashShield.isRunning)
        XCTAssertThrowsError(try JSONLinesReportStore(fileURL: reportsURL, maxBytes: 1), "a bad bound too")
    }

    /// The README shows exactly the code between the markers above.
    func testTheREADMEShowsThisCode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let begin = "// README quick start (Swift) begins\n", end = "// README quick start (Swift) ends"
        let start = try XCTUnwrap(source.range(of: begin)), stop = try XCTUnwrap(source.range(of: end))
        let code = String(source[start.upperBound..<stop.lowerBound])
        XCTAssertTrue(
            readme.contains(code), "README.md's Swift quick start differs from ReadmeQuickStartTests.swift:\n\(code)")
    }
}
