@testable import CrashShield
@testable import CrashShieldUpload
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

    /// Every CSReport field comes from the Swift report itself (no JSON parsing, date scanning or guard-name table in
    /// the Objective-C layer): read from a report as Swift encodes it and compared with the Swift report's fields.
    func testEveryReportFieldIsTheSwiftReportsOwn() throws {
        let first = Date(timeIntervalSince1970: 1_764_064_800.123)
        let report = CrashReport(
            signature: "0f1e2d3c4b5a6978", category: .kvo, exceptionName: "NSRangeException",
            reason: "Cannot remove observer \"o\" for \u{e9}t\u{e9} (key path 'a/b')", className: "MYModel",
            selector: "removeObserver:forKeyPath:", isClassMethod: true, hint: "balance add and remove",
            action: .failedLoudly, details: ["keyPath": "a/b", "observer": "MYView \u{2713}"],
            thread: ThreadInfo(id: 9, name: "com.example.worker", isMain: true),
            callStack: [StackFrame(address: 0x1_0000_1f3a, image: "/app/MyApp", imageBase: 0x1_0000_0000)],
            callerFrameIndex: 0, firstSeen: first, lastSeen: first.addingTimeInterval(2.5), occurrences: 100,
            callerFunction: "-[MYController reload]")
        let json = String(decoding: try CrashReport.makeJSONEncoder().encode(report), as: UTF8.self)
        let out = run { json.withCString { csos_report_fields($0) } }
        XCTAssertEqual(out["decoded"], "1")
        XCTAssertEqual(out["signature"], report.signature)
        XCTAssertEqual(out["guard"], "\(GuardCategory.kvo.rawValue)")
        XCTAssertEqual(out["guardName"], "kvo")
        XCTAssertEqual(out["exceptionName"], report.exceptionName)
        XCTAssertEqual(out["reason"], report.reason)
        XCTAssertEqual(out["receiverClassName"], report.className)
        XCTAssertEqual(out["selectorName"], report.selector)
        XCTAssertEqual(out["method"], "+[MYModel removeObserver:forKeyPath:]")
        XCTAssertEqual(out["hint"], report.hint)
        XCTAssertEqual(out["recovered"], "0")
        XCTAssertEqual(out["occurrences"], "100")
        XCTAssertEqual(out["firstSeenMilliseconds"], "1764064800123", "milliseconds kept")
        XCTAssertEqual(out["lastSeenMilliseconds"], "1764064802623")
        XCTAssertEqual(out["threadName"], "com.example.worker")
        XCTAssertEqual(out["onMainThread"], "1")
        XCTAssertEqual(out["details"], "keyPath:a/b,observer:MYView \u{2713}")
        XCTAssertEqual(
            out["dictionaryKeys"],
            "action,callStack,callerFrameIndex,callerFunction,category,className,details,"
                + "exceptionName,firstSeen,hint,isClassMethod,lastSeen,occurrences,reason,selector,signature,thread")
        XCTAssertEqual(out["dictionaryCallerFunction"], "-[MYController reload]")
        XCTAssertEqual(out["partialIsNil"], "1", "a JSON object that is not a complete report is none")
        XCTAssertEqual(out["garbageIsNil"], "1")
    }

    /// CSConfiguration and CSUploadSink start from Swift's defaults (Configuration.production, UploadOptions()).
    func testConfigurationDefaultsAreSwifts() {
        let out = run { csos_configuration_defaults() }
        let swift = Configuration.production
        XCTAssertEqual(out["guards"], "\(swift.guards.rawValue)")
        XCTAssertEqual(out["mode"], "0", "CSModeRelease, as Swift's .release")
        XCTAssertEqual(swift.mode, .release)
        XCTAssertEqual(out["debugMode"], "1")
        XCTAssertEqual(out["modeOverrides"], "\(swift.modeOverrides.count)")
        XCTAssertEqual(out["excludedClassNames"], "\(swift.excludedClassNames.count)")
        XCTAssertEqual(out["protectedClassPrefixes"], "\(swift.protectedClassPrefixes.count)")
        XCTAssertEqual(
            out["unrecognizedSelectorFoundationClasses"],
            swift.unrecognizedSelectorFoundationClasses.joined(separator: ","))
        XCTAssertEqual(out["maxDistinctReports"], "\(swift.limits.maxDistinctReports)")
        XCTAssertEqual(out["detailedCapturesPerSecond"], "\(swift.limits.detailedCapturesPerSecond)")
        XCTAssertEqual(out["maxStackDepth"], "\(swift.limits.maxStackDepth)")
        XCTAssertEqual(out["zombieMaxBytes"], "\(swift.zombies.maxBytes)")
        XCTAssertEqual(out["zombieMaxCount"], "\(swift.zombies.maxCount)")
        XCTAssertEqual(out["zombieMaxObjectSize"], "\(swift.zombies.maxObjectSize)")
        XCTAssertEqual(out["zombieClassNames"], "\(swift.zombies.classNames.count)")
        XCTAssertEqual(out["recordsZombieDeallocationStack"], swift.zombies.recordsDeallocationStack ? "1" : "0")
        XCTAssertEqual(out["kvoLeavesSystemClassesAlone"], swift.kvoLeavesSystemClassesAlone ? "1" : "0")
        let methods = swift.mainThreadOnlyMethods.keys.sorted().flatMap { name in
            (swift.mainThreadOnlyMethods[name] ?? []).map { "\(name).\($0)" }
        }
        XCTAssertEqual(out["mainThreadOnlyMethods"], methods.joined(separator: ","))
        XCTAssertEqual(out["redactsAppData"], swift.redact == nil ? "0" : "1")
        XCTAssertEqual(out["logsReports"], "1", "Objective-C's own default: each report logged")
        XCTAssertEqual(out["uploadSinks"], "0")
        XCTAssertEqual(out["uploadedGuards"], "\(UploadOptions().uploadedGuards.rawValue)")
    }

    /// Every CSConfiguration field reaches Swift's Configuration (handed over field by field, no JSON).
    func testEveryConfigurationFieldReachesSwift() throws {
        let folder = try temporaryFolder()
        var text = ""
        withAutoreleasePool {
            let result = csos_start_every_field(folder)!
            text = String(cString: result)
            free(result)
        }
        defer { CrashShield.stop() }
        XCTAssertTrue(text.contains("started=1"), text)
        let swift = try XCTUnwrap(Session.current.load(ordering: .acquiring)?.configuration)
        XCTAssertEqual(swift.guards, [.container, .kvc])
        XCTAssertEqual(swift.mode, .debug)
        XCTAssertEqual(swift.modeOverrides, [.kvc: .release])
        XCTAssertEqual(swift.excludedClassNames, ["NSLock"])
        XCTAssertEqual(swift.protectedClassPrefixes, ["MYApp"])
        XCTAssertEqual(swift.unrecognizedSelectorFoundationClasses, ["NSString"])
        XCTAssertEqual(
            swift.limits, ReportLimits(maxDistinctReports: 100, detailedCapturesPerSecond: 5, maxStackDepth: 16))
        XCTAssertEqual(
            swift.zombies,
            ZombieOptions(
                maxBytes: 1 << 20, maxCount: 50, maxObjectSize: 1024, classNames: ["NSLock"],
                recordsDeallocationStack: true))
        XCTAssertFalse(swift.kvoLeavesSystemClassesAlone)
        XCTAssertEqual(swift.mainThreadOnlyMethods, ["NSLock": ["lock", "unlock"], "NSCondition": []])
        XCTAssertNotNil(swift.redact)
        XCTAssertFalse(swift.sinks.contains { $0 is LogReportSink })
        let store = try XCTUnwrap(swift.sinks.compactMap { $0 as? JSONLinesReportStore }.first)
        XCTAssertEqual(store.fileURL.path, folder + "/reports.jsonl")
        let http = try XCTUnwrap(swift.sinks.compactMap { $0 as? HTTPUploadSink }.first)
        XCTAssertEqual(http.endpoint.absoluteString, "http://127.0.0.1:9/crashes")
        XCTAssertEqual(http.options.headers, ["Authorization": "Bearer csos", "X-App": "MY\u{c9}"])
        XCTAssertEqual(http.options.uploadedGuards, .container)
        let sentry = try XCTUnwrap(swift.sinks.compactMap { $0 as? SentrySink }.first)
        XCTAssertEqual(sentry.options.uploadedGuards, UploadOptions().uploadedGuards)
        XCTAssertEqual(sentry.dsn.dsn, "http://csoskey@127.0.0.1:9/42")
        let report = CrashReport(
            signature: "s", category: .container, exceptionName: "E", reason: "r", className: "C",
            selector: "s", isClassMethod: false, hint: "", action: .recovered,
            thread: ThreadInfo(id: 1, name: "", isMain: true), firstSeen: Date(), lastSeen: Date(),
            occurrences: 1)
        let envelope = String(
            decoding: try sentry.queue.body([report], "0123456789abcdef0123456789abcdef").body, as: UTF8.self)
        let event = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(try XCTUnwrap(envelope.split(separator: "\n").last).utf8))
                as? [String: Any])
        XCTAssertEqual(event["release"] as? String, "csos@1.0")
        XCTAssertEqual(event["environment"] as? String, "test")
        XCTAssertEqual(event["dist"] as? String, "77")
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
        XCTAssertEqual(
            reports.first.map { $0.hasPrefix("container:") && $0.hasSuffix(":failedLoudly") }, true,
            "\(reports)")  // the receiver is an array class-cluster member (GSInlineArray on GNUstep)
        XCTAssertEqual(
            Array(reports.dropFirst()), ["kvc:CSOSProfile:recovered", "unrecognizedSelector:NSLock:recovered"])
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

    /// Issue 31 §2: a report store whose folder cannot be made (a regular file holds its parent's path: the tests run
    /// as root, which ignores permission bits) leaves the guards running; `sinkFailures` names the store; the store
    /// writes once the folder can be made, with what it kept meanwhile.
    func testAnUnwritableReportStoreLeavesTheGuardsRunning() throws {
        let folder = try temporaryFolder()
        let out = run { csos_unwritable_store(folder) }
        XCTAssertEqual(out["started"], "1", out["error"] ?? "")
        XCTAssertEqual(out["failures"], "1")
        XCTAssertEqual(out["failureCode"], "7", "CSErrorInvalidSink")
        XCTAssertTrue(out["failure"]?.contains("JSONLinesReportStore") == true, out["failure"] ?? "")
        XCTAssertTrue(out["failure"]?.contains("Application Support") == true, out["failure"] ?? "")
        XCTAssertEqual(out["call"], "recovered", "the bad call was stopped")
        XCTAssertEqual(out["flushed"], "1")
        XCTAssertEqual(out["secondCall"], "recovered")
        XCTAssertEqual(out["failuresAfter"], "0", "the store opened once the folder could be made")
        XCTAssertEqual(out["stored"], "1", "the report reached the file")
    }

    #if os(macOS) || os(Linux)  // LoopbackServer: a child process
    func testWaitingForUploadsAndTheirStatisticsFromObjectiveC() throws {
        let folder = try temporaryFolder()
        let server = try LoopbackServer(recordURL: URL(fileURLWithPath: folder).appendingPathComponent("server.jsonl"))
        defer { server.stop() }
        let out = run { csos_upload_wait(folder, Int32(server.port)) }
        XCTAssertEqual(out["started"], "1", out["error"] ?? "")
        XCTAssertEqual(out["waited"], "1", "delivered within the timeout")
        XCTAssertEqual(server.requests.count, 1, "the server had the report when the wait returned")
        XCTAssertEqual(out["sinks"], "1")
        XCTAssertEqual(out["delivered"], "1")
        XCTAssertEqual(out["queued"], "0")
        XCTAssertEqual(out["requests"], "1")
        XCTAssertEqual(out["isSentry"], "0")
        XCTAssertEqual(out["folder"], "http")
        XCTAssertEqual(out["restarted"], "1", out["restartError"] ?? "")
    }
    #endif

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
