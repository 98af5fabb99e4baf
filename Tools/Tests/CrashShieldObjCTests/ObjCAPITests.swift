@testable import CrashShield
import CrashShieldObjCScenarios
import Foundation
import XCTest

/// CrashShield's Objective-C API (product CrashShieldObjC), driven through Objective-C app code that uses it
/// (CrashShieldObjCScenarios). Each scenario returns what happened as `key=value` lines.
final class ObjCAPITests: XCTestCase {
    override func tearDown() {
        CrashShield.stop()
        super.tearDown()
    }

    /// Runs a scenario in its own autorelease pool and reads its lines.
    private func run(_ scenario: @escaping () -> UnsafeMutablePointer<CChar>?) -> [String: String] {
        var text = ""
        withAutoreleasePool {
            guard let result = scenario() else { return }
            text = String(cString: result)
            free(result)
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        XCTAssertFalse(CrashShield.isRunning, "every scenario stops CrashShield")
        return values
    }

    /// A fresh folder for a scenario's files.
    private func temporaryFolder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("csos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// The error code of a `code|message` value.
    private func code(_ value: String?) -> Int? { value.flatMap { Int($0.split(separator: "|").first ?? "") } }

    // MARK: CSShield and CSConfiguration

    func testStartBadCallReportBlockAndReportList() {
        let out = run { csos_start_bad_call_report() }
        XCTAssertEqual(out["started"], "1")
        XCTAssertEqual(out["error"], "nil")
        XCTAssertEqual(out["running"], "1")
        XCTAssertEqual(out["activeGuards"], "\(GuardCategory([.container, .kvc]).rawValue)")
        XCTAssertEqual(out["call"], "recovered", "the bad call returned nil instead of raising")
        XCTAssertEqual(out["flushed"], "1")
        XCTAssertEqual(out["received"], "1", "the report block got the report")
        XCTAssertEqual(out["guard"], "\(GuardCategory.container.rawValue)")
        XCTAssertEqual(out["guardName"], "container")
        XCTAssertEqual(out["exceptionName"], "NSRangeException")
        XCTAssertEqual(out["method"]?.hasSuffix(" objectAtIndex:]"), true, out["method"] ?? "")
        XCTAssertEqual(out["reasonMentionsIndex"], "1")
        XCTAssertEqual(out["recovered"], "1")
        XCTAssertEqual(out["occurrences"], "1")
        XCTAssertEqual(out["reportOnMainThread"], "1", "the bad call was made on the main thread")
        XCTAssertEqual(out["handlerOnMainThread"], "0", "the block runs on CrashShield's delivery queue")
        XCTAssertEqual(out["hasCallStack"], "1")
        XCTAssertEqual(out["datesInOrder"], "1")
        XCTAssertEqual(out["listed"], "1")
        XCTAssertEqual(out["listedSameSignature"], "1")
        XCTAssertEqual(out["runningAfterStop"], "0")
        XCTAssertEqual(out["callAfterStop"], "NSRangeException", "stopped: the call raises as without CrashShield")
    }

    func testKillSwitch() {
        let out = run { csos_kill_switch() }
        XCTAssertEqual(out["started"], "1")
        XCTAssertEqual(out["on"], "recovered")
        XCTAssertEqual(out["switchedOff"], "1")
        XCTAssertEqual(out["activeAfterOff"], "\(GuardCategory.kvc.rawValue)")
        XCTAssertEqual(out["off"], "NSRangeException", "switched off: as without CrashShield")
        XCTAssertEqual(out["switchedOn"], "1")
        XCTAssertEqual(out["onAgain"], "recovered")
        XCTAssertEqual(out["unknownBits"], "0")
        XCTAssertEqual(code(out["unknownBitsError"]), 6, out["unknownBitsError"] ?? "")
        XCTAssertEqual(out["whenStopped"], "0")
        XCTAssertEqual(code(out["whenStoppedError"]), 4, out["whenStoppedError"] ?? "")
    }

    func testFlushHandsTheCountToTheBlock() {
        let out = run { csos_flush_count_update() }
        XCTAssertEqual(out["started"], "1")
        XCTAssertEqual(out["flushed"], "1")
        XCTAssertEqual(out["deliveries"], "1,3", "first occurrence, then the count on flush")
        XCTAssertEqual(out["listedOccurrences"], "3")
    }

    func testBadInputIsAnErrorNeverACrash() throws {
        let folder = try temporaryFolder()
        let out = run { csos_bad_input(folder) }
        let expected: [(String, Int, String?)] = [
            ("nilConfiguration", 2, "CSConfiguration"),
            ("unknownClass", 5, "CSOSNoSuchClass"),
            ("rootExcluded", 6, "'NSObject' is a root class"),
            ("foundationPrefix", 6, "'NS'"),
            ("underscorePrefix", 6, "'__NS'"),
            ("stackDepth", 6, "maxStackDepth"),
            ("overrideOfTwoGuards", 6, "single guards"),
            ("overridesWronglyTyped", 2, "modeOverrides"),
            ("unknownGuardBits", 6, "0x100000"),
            ("emptyPrefix", 6, "prefix"),
            ("numberAsClassName", 2, "excludedClassNames"),
            ("ftpEndpoint", 7, "ftp://example.com/crashes"),
            ("badDSN", 7, "not a DSN"),
            ("storeIsAFolder", 7, nil),
        ]
        for (key, expectedCode, mention) in expected {
            XCTAssertEqual(code(out[key]), expectedCode, "\(key): \(out[key] ?? "missing")")
            if let mention { XCTAssertEqual(out[key]?.contains(mention), true, "\(key): \(out[key] ?? "missing")") }
            XCTAssertEqual(out["\(key).started"], "0", key)
            XCTAssertEqual(out["\(key).running"], "0", "\(key): nothing stays installed")
        }
        XCTAssertEqual(out["staleExcluded.started"], "1", out["staleExcluded.error"] ?? "")
        XCTAssertEqual(out["staleExcluded.call"], "recovered", "a stale excluded name leaves the guards on")
        XCTAssertEqual(out["nilErrorPointer"], "0")
        XCTAssertEqual(out["firstStart"], "1")
        XCTAssertEqual(out["secondStart"], "0")
        XCTAssertEqual(code(out["secondStartError"]), 1, out["secondStartError"] ?? "")
        XCTAssertEqual(out["runningAfterSecondStart"], "1", "the first session keeps running")
    }

    func testDenyAndAllowListsAndPerGuardModes() {
        let out = run { csos_lists_and_modes() }
        XCTAssertEqual(out["modeForContainer"], "1")
        XCTAssertEqual(out["modeForKVC"], "0")
        XCTAssertEqual(out["started"], "1", out["error"] ?? "")
        XCTAssertEqual(out["kvcProfile"], "recovered")
        XCTAssertEqual(out["kvcExcluded"], "NSUnknownKeyException", "deny list: as without CrashShield")
        XCTAssertEqual(out["selectorProtected"], "recovered", "allow list: the prefix is protected")
        XCTAssertEqual(out["selectorOther"], "NSInvalidArgumentException", "allow list: other classes are not")
        XCTAssertEqual(out["containerInDebugMode"], "NSRangeException", "debug mode for the container guard only")
        let reports = (out["reports"] ?? "").split(separator: ",").map(String.init)
        XCTAssertEqual(reports.count, 3, "\(reports)")
        XCTAssertEqual(reports.first.map { $0.hasPrefix("container:") && $0.hasSuffix(":failedLoudly") }, true,
                       "\(reports)")   // the receiver is an array class-cluster member (GSInlineArray on GNUstep)
        XCTAssertEqual(Array(reports.dropFirst()), ["kvc:CSOSProfile:recovered", "unrecognizedSelector:NSLock:recovered"])
    }

    func testUploadSinksAndReportStoreFromObjectiveC() throws {
        let folder = try temporaryFolder()
        let out = run { csos_upload_sinks(folder) }
        XCTAssertEqual(out["started"], "1", out["error"] ?? "")
        XCTAssertEqual(out["flushed"], "1")
        XCTAssertEqual(out["signature"], "1")
        XCTAssertEqual(out["store"], "1", "the JSON Lines store kept the report")
        XCTAssertEqual(out["httpFolder"], "1", "the HTTP sink keeps the unsent report")
        XCTAssertEqual(out["sentryFolder"], "1", "the Sentry sink keeps the unsent report")
    }

    func testWaitingForUploadsAndTheirStatisticsFromObjectiveC() throws {
        let folder = try temporaryFolder()
        let server = try UploadServer(record: URL(fileURLWithPath: folder).appendingPathComponent("server.jsonl"))
        defer { server.stop() }
        let out = run { csos_upload_wait(folder, Int32(server.port)) }
        XCTAssertEqual(out["started"], "1", out["error"] ?? "")
        XCTAssertEqual(out["waited"], "1", "delivered within the timeout")
        XCTAssertEqual(server.requestCount, 1, "the server had the report when the wait returned")
        XCTAssertEqual(out["sinks"], "1")
        XCTAssertEqual(out["delivered"], "1")
        XCTAssertEqual(out["queued"], "0")
        XCTAssertEqual(out["requests"], "1")
        XCTAssertEqual(out["isSentry"], "0")
        XCTAssertEqual(out["folder"], "http")
        XCTAssertEqual(out["restarted"], "1", out["restartError"] ?? "")
    }

    // MARK: Posting on a thread: observers run on the thread the post names

    func testPostRunsObserversOnTheNamedThread() {
        let out = run { csos_post_on_threads() }
        XCTAssertEqual(out["observing"], "1")
        XCTAssertEqual(out["mainBeforeRunLoop"], "", "queued for the main run loop")
        XCTAssertEqual(out["main"], "block@main,selector:-@main")
        XCTAssertEqual(out["worker"], "block@csos.worker,selector:v@csos.worker")
        XCTAssertEqual(out["caller"], "block@csos.caller,selector:-@csos.caller")
        XCTAssertEqual(out["callerMain"], "block@main,selector:n@main")
        XCTAssertEqual(out["cancelled"], "1")
    }

    // MARK: Owner-bound blocks by priority

    func testBlocksRunByPriorityWithNoteAndOwner() {
        let out = run { csos_block_priorities() }
        XCTAssertEqual(out["order"], "high,5000,default1,default2,low")
        XCTAssertEqual(out["afterOwnersDied"], "")
    }

    func testOwnerDeathRemovesItsBlocks() {
        let out = run { csos_owner_death() }
        XCTAssertEqual(out["before"], "owner,other")
        XCTAssertEqual(out["afterOwnerDied"], "other")
        XCTAssertEqual(out["ownerObservationActive"], "0")
        XCTAssertEqual(out["otherObservationActive"], "1")
        XCTAssertEqual(out["afterBothDied"], "")
    }

    func testRemovalByLevelAndByName() {
        let out = run { csos_remove_by_level() }
        XCTAssertEqual(out["all"], "highA,highB,default,low")
        XCTAssertEqual(out["withoutHighOfL"], "default,low")
        XCTAssertEqual(out["mKeepsItsHigh"], "highM")
        XCTAssertEqual(out["withoutLow"], "default")
        XCTAssertEqual(out["noneLeftL"], "")
        XCTAssertEqual(out["noneLeftM"], "")
        XCTAssertEqual(out["beforeCancel"], "cancellable")
        XCTAssertEqual(out["afterCancel"], "")
        XCTAssertEqual(out["cancelledActive"], "0")
        XCTAssertEqual(out["nilName"], "nil")
        XCTAssertEqual(code(out["nilNameError"]), 2, out["nilNameError"] ?? "")
        XCTAssertEqual(out["nilBlock"], "nil")
        XCTAssertEqual(code(out["nilBlockError"]), 2, out["nilBlockError"] ?? "")
    }
}

/// Tests/Fixtures/upload_server.py on 127.0.0.1 (answers 200), in a child process.
private final class UploadServer {
    let port: Int
    private let record: URL
    private let process = Process()

    init(record: URL) throws {
        self.record = record
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/upload_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--record", record.path, "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw NSError(domain: "UploadServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no server: \(text)"])
        }
        self.port = port
    }

    /// Requests the server finished.
    var requestCount: Int {
        ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
