@testable import CrashShield
@testable import CrashShieldUpload
import Foundation
import InMemoryLogging
import Logging
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// `SentrySink` against a fake Sentry on loopback; every envelope is parsed back by the sentry-sdk Python package's
/// own envelope parser (Tests/Fixtures/sentry_envelopes.py), not by CrashShield's code.
final class UploadSentryTests: UploadTestCase {
    private static let sdkInstalled: Bool = {
        if run(["python3", "-c", "import sentry_sdk"]) == 0 { return true }
        return run(["python3", "-m", "pip", "install", "--quiet", "sentry-sdk"]) == 0
    }()

    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// The envelopes the server processed, as sentry-sdk reads them.
    private func parsedEnvelopes(_ server: LoopbackServer) throws -> [[String: Any]] {
        XCTAssertTrue(Self.sdkInstalled, "pip install sentry-sdk failed")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", LoopbackServer.fixtures.appendingPathComponent("sentry_envelopes.py").path,
            server.recordURL.path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    private func sentrySink(port: Int, logs: InMemoryLogHandler? = nil) throws -> SentrySink {
        let logger =
            logs.map { handler in Logger(label: "sentry-test") { _ in handler } } ?? Logger(label: "sentry-test")
        return try SentrySink(
            dsn: "http://0123abcd@127.0.0.1:\(port)/42", folder: folder.appendingPathComponent("sentry"),
            options: fastOptions(), environment: "test", release: "app@1.2", logger: logger)
    }

    func testEachReportIsAHandledEventThatSentrySDKReadsBackFieldByField() throws {
        let server = try server(["close", "close"])  // cut off by the network: retried
        let sink = try sentrySink(port: server.port)
        let uuid = "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"
        var withContext = makeReport(1, occurrences: 12, uuid: uuid)
        withContext.context = ReportContext(
            appIdentifier: "com.example.app", appVersion: "1.2", appBuild: "34", osName: "iOS", osVersion: "17.4",
            osBuild: "21E236", device: "iPhone15,2", launchID: "L1", secondsSinceLaunch: 3.5,
            images: [
                BinaryImage(
                    name: "libfoo.so", path: "/app/libfoo.so", loadAddress: 0x7000_0000, slide: 0x7000_0000,
                    size: 0x1000, buildID: "f1c3bcc0279865fe3058404b2831d9e64135386c")
            ])
        let reports = [withContext, makeReport(2)]
        reports.forEach(sink.receive)
        sink.receive(makeReport(3, category: .mainThreadUI))  // stays local by default
        XCTAssertTrue(sink.waitUntilIdle(timeout: 15))
        XCTAssertEqual(server.requests.map(\.behaviour), ["close", "close", "ok", "ok"])

        let envelopes = try parsedEnvelopes(server)
        XCTAssertEqual(envelopes.count, 2, "one envelope per report, the main-thread UI one not uploaded")
        let first = try XCTUnwrap(envelopes.first)
        let request = try XCTUnwrap(first["request_headers"] as? [String: String])
        XCTAssertEqual(first["path"] as? String, "/api/42/envelope/")
        let auth = try XCTUnwrap(request.first { $0.key.lowercased() == "x-sentry-auth" }?.value)
        XCTAssertTrue(auth.hasPrefix("Sentry sentry_version=7, sentry_key=0123abcd"), auth)
        XCTAssertEqual(request.first { $0.key.lowercased() == "content-encoding" }?.value, "gzip")

        let items = try XCTUnwrap(first["items"] as? [[String: Any]])
        XCTAssertEqual(items.count, 1)
        XCTAssertEqual(items[0]["type"] as? String, "event")
        let event = try XCTUnwrap(items[0]["event"] as? [String: Any])
        let header = try XCTUnwrap(first["envelope_headers"] as? [String: Any])
        let eventID = try XCTUnwrap(event["event_id"] as? String)
        XCTAssertEqual(header["event_id"] as? String, eventID)
        XCTAssertEqual(header["dsn"] as? String, "http://0123abcd@127.0.0.1:\(server.port)/42")
        let retried = server.requests.filter { $0.idempotencyKey == eventID.replacingOccurrences(of: "-", with: "") }
        XCTAssertEqual(retried.map(\.behaviour), ["close", "close", "ok"], "the retries carry the same event id")
        XCTAssertEqual(event["level"] as? String, "error")
        XCTAssertEqual(event["environment"] as? String, "test")
        XCTAssertEqual(event["release"] as? String, "app@1.2")
        XCTAssertEqual(event["dist"] as? String, "34", "the app's build")

        let report = reports[0]
        let exception = try XCTUnwrap(((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
        XCTAssertEqual(exception["type"] as? String, "NSRangeException")
        XCTAssertEqual(exception["value"] as? String, report.reason)
        let mechanism = try XCTUnwrap(exception["mechanism"] as? [String: Any])
        XCTAssertEqual(mechanism["type"] as? String, "crashshield")
        XCTAssertEqual(mechanism["handled"] as? Bool, true)
        let frames = try XCTUnwrap((exception["stacktrace"] as? [String: Any])?["frames"] as? [[String: Any]])
        XCTAssertEqual(
            frames.map { $0["instruction_addr"] as? String },
            report.callStack.reversed().map { "0x" + String($0.address, radix: 16) }, "oldest frame first")
        XCTAssertEqual(frames.map { $0["package"] as? String }, report.callStack.reversed().map(\.image))
        XCTAssertEqual(
            frames.map { $0["in_app"] as? Bool },
            [false, true, true, false], "system image, the caller, app, CrashShield's replacement frame")
        let callerIndex = try XCTUnwrap((mechanism["data"] as? [String: Any])?["caller_frame"] as? String)
        XCTAssertEqual(frames[Int(callerIndex)!]["function"] as? String, "_$s5MyApp4loadyyF", "the caller is marked")
        let images = try XCTUnwrap((event["debug_meta"] as? [String: Any])?["images"] as? [[String: Any]])
        XCTAssertEqual(images.count, 2, "one entry per image: the context's (a build ID), then the frames' UUID")
        XCTAssertEqual(images[0]["type"] as? String, "elf")
        XCTAssertEqual(images[0]["code_id"] as? String, "f1c3bcc0279865fe3058404b2831d9e64135386c")
        XCTAssertEqual(
            images[0]["debug_id"] as? String, "c0bcc3f1-9827-fe65-3058-404b2831d9e6", "Sentry's ELF debug id")
        XCTAssertEqual(images[0]["image_size"] as? Int, 0x1000)
        XCTAssertEqual(
            images[1]["type"] as? String, "macho", "a frame's UUID is a Mach-O LC_UUID, read on any platform")
        XCTAssertEqual(images[1]["debug_id"] as? String, "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9")
        XCTAssertEqual(images[1]["image_addr"] as? String, "0x400000")
        XCTAssertEqual(images[1]["code_file"] as? String, "/app/CrashShield")
        let contexts = try XCTUnwrap(event["contexts"] as? [String: [String: Any]])
        XCTAssertEqual(contexts["app"]?["app_identifier"] as? String, "com.example.app")
        XCTAssertEqual(contexts["app"]?["app_build"] as? String, "34")
        XCTAssertEqual(contexts["os"]?["name"] as? String, "iOS")
        XCTAssertEqual(contexts["os"]?["version"] as? String, "17.4")
        XCTAssertEqual(contexts["os"]?["build"] as? String, "21E236")
        XCTAssertEqual(contexts["device"]?["model"] as? String, "iPhone15,2")
        XCTAssertEqual((event["extra"] as? [String: Any])?["launch_id"] as? String, "L1")
        let tags = try XCTUnwrap(event["tags"] as? [String: String])
        XCTAssertEqual(tags["guard"], "container")
        XCTAssertEqual(tags["class"], "GSInlineArray")
        XCTAssertEqual(tags["selector"], "objectAtIndex:")
        XCTAssertEqual(event["fingerprint"] as? [String], [report.signature])
        XCTAssertEqual((event["extra"] as? [String: Any])?["occurrences"] as? Int, 12)
    }

    /// Docs/Reports.md "Counting": a call site is one Sentry event per launch. Count updates (10, 100, ... and flush)
    /// of a report already sent were each a new event against the project's quota; an update of a report still waiting
    /// replaces it, so the event carries the newest count.
    func testCountUpdatesOfASentReportAreNotNewEvents() throws {
        let server = try server(["ok", "ok", "ok"])
        let sink = try sentrySink(port: server.port)
        sink.receive(makeReport(1))
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        sink.receive(makeReport(1, occurrences: 10))
        sink.receive(makeReport(1, occurrences: 100))
        sink.receive(makeReport(2))
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        XCTAssertEqual(server.requests.count, 2, "one event per call site: \(server.requests.map(\.behaviour))")
        XCTAssertEqual(sink.statistics.coalescedUpdates, 2)
        XCTAssertEqual(sink.statistics.deliveredReports, 2)
    }

    func testSentryDiscardsEnvelopesOn4xxAnd5xxAndRetriesOnlyNetworkErrors() throws {
        let server = try server(["500", "400", "413", "close"])
        let logs = InMemoryLogHandler()
        let sink = try sentrySink(port: server.port, logs: logs)
        for n in 1...4 {  // one at a time: each answer meets a known envelope
            sink.receive(makeReport(n))
            XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        }
        XCTAssertEqual(server.requests.map(\.behaviour), ["500", "400", "413", "close", "ok"])
        let keys = server.requests.map(\.idempotencyKey)
        XCTAssertEqual(Set(keys.prefix(4)).count, 4, "a discarded envelope is never sent again")
        XCTAssertEqual(keys[3], keys[4], "the envelope the network cut off is sent again, with its event id")
        XCTAssertEqual(sink.statistics.rejectedBatches, 3)
        XCTAssertEqual(sink.statistics.deliveredReports, 1)
        let lines = logs.entries.filter { $0.level >= .error }.map(\.message.description)
        XCTAssertEqual(lines.count, 3, "one line per discarded envelope: \(lines)")
        XCTAssertTrue(
            zip(lines, ["HTTP 500", "HTTP 400", "HTTP 413"]).allSatisfy { $0.contains($1) && $0.contains("dropped") },
            "\(lines)")
    }

    func testSentryRateLimitsAreHonouredPerCategoryFromAnyAnswer() throws {
        // A 200 limiting another category; then a 429 limiting errors for 2 s (and transactions for 60 s).
        let plan = [
            "limits:200:60:transaction;session:key",
            "limits:429:2:default;error;security:organization:quota|60:transaction:key",
        ]
        let server = try server(plan)
        let sink = try sentrySink(port: server.port)
        for n in 1...2 {
            sink.receive(makeReport(n))
            XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        }
        let limited = Date()
        XCTAssertEqual(server.requests.map(\.behaviour), plan, "a limit of another category does not hold errors back")
        sink.receive(makeReport(3))  // while errors are limited: discarded, not sent
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        usleep(UInt32(max(0, 2.2 - Date().timeIntervalSince(limited)) * 1_000_000))
        XCTAssertEqual(
            server.requests.count, 2, "nothing was sent during the limit; the 429'd envelope is not sent again")
        sink.receive(makeReport(4))  // the limit expired
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        let requests = server.requests
        XCTAssertEqual(requests.map(\.behaviour), plan + ["ok"])
        XCTAssertGreaterThanOrEqual(requests[2].time - requests[1].time, 2)
        let delivered = try parsedEnvelopes(server).compactMap { envelope -> String? in
            let event = (envelope["items"] as? [[String: Any]])?.first?["event"] as? [String: Any]
            return (event?["fingerprint"] as? [String])?.first
        }
        XCTAssertEqual(delivered, [makeReport(1).signature, makeReport(4).signature])
    }

    func testReturnAddressesStartUpAndRuntimeFramesAndTheDist() throws {
        let envelope = SentryEnvelope(
            dsn: try SentryDSN("http://k@127.0.0.1:1/2"), environment: nil, release: nil,
            isAppImage: { $0.hasPrefix("/app/") })
        var report = makeReport(1)
        // The caller's callers, outwards: app code, the Objective-C runtime, main, start-up; all linked into the app.
        for (offset, symbol) in [
            (0x100, "objc_msgSend"), (0x200, "$ss5print_9separator10terminatoryypd_S2StF"),
            (0x300, "main"), (0x400, "_start"),
        ] {
            report.callStack.append(
                StackFrame(
                    address: 0x40_2000 + UInt64(offset), image: "/app/MyApp", imageBase: 0x40_0000,
                    symbol: symbol))
        }
        report.context = ReportContext(
            appIdentifier: "com.example.app", appVersion: "1.2", appBuild: "34", osName: "iOS",
            osVersion: "17.4", device: "iPhone15,2", launchID: "L", secondsSinceLaunch: 1)
        let event = envelope.event(for: report, eventID: "e")
        let exception = try XCTUnwrap(((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
        let stacktrace = try XCTUnwrap(exception["stacktrace"] as? [String: Any])
        XCTAssertEqual(stacktrace["instruction_addr_adjustment"] as? String, "all", "every address is a return address")
        let frames = try XCTUnwrap(stacktrace["frames"] as? [[String: Any]])
        XCTAssertEqual(
            frames.map { $0["function"] as? String ?? $0["package"] as? String ?? "" },
            [
                "_start", "main", "$ss5print_9separator10terminatoryypd_S2StF", "objc_msgSend",
                "/usr/lib/libSystem.dylib", "/app/MyApp", "_$s5MyApp4loadyyF", "/app/CrashShield",
            ])
        XCTAssertEqual(frames.map { $0["in_app"] as? Bool }, [false, true, false, false, false, true, true, false])
        XCTAssertEqual(event["dist"] as? String, "34")
    }

    /// The caller as every build names it (issue 31): its frame carries the function the report names (the frame's
    /// symbol is only the nearest exported one), `tags.caller` is the caller's identity and not image+offset (a new
    /// value with every build), a caller identified by its code's hash is grouped by the grouping key, and a caller
    /// that made a tail call gets a frame of its own above its caller's, the one marked.
    func testTheCallerIsNamedTheSameInEveryBuild() throws {
        let envelope = SentryEnvelope(
            dsn: try SentryDSN("http://k@127.0.0.1:1/2"), environment: nil, release: nil,
            isAppImage: { $0.hasPrefix("/app/") })
        func parts(
            _ report: CrashReport
        ) throws -> (
            frames: [[String: Any]], caller: Int, tags: [String: String],
            fingerprint: [String]
        ) {
            let event = envelope.event(for: report, eventID: "e")
            let exception = try XCTUnwrap(
                ((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
            let frames = try XCTUnwrap((exception["stacktrace"] as? [String: Any])?["frames"] as? [[String: Any]])
            let caller = try XCTUnwrap(
                ((exception["mechanism"] as? [String: Any])?["data"] as? [String: Any])?["caller_frame"] as? String)
            return (
                frames, Int(caller)!, try XCTUnwrap(event["tags"] as? [String: String]),
                try XCTUnwrap(event["fingerprint"] as? [String])
            )
        }
        var named = makeReport(1)
        named.callerFunction = "-[MYFeed reload]"
        named.callerIdentity = "-[MYFeed reload]"
        named.groupingKey = "0123456789abcdef"
        var nextBuild = named
        nextBuild.callStack[1].address += 0x40
        nextBuild.signature += "-moved"
        for report in [named, nextBuild] {
            let event = try parts(report)
            XCTAssertEqual(event.frames[event.caller]["function"] as? String, "-[MYFeed reload]")
            XCTAssertEqual(event.tags["caller"], "-[MYFeed reload]", "the same tag in every build")
            XCTAssertEqual(event.fingerprint, ["crashshield", "0123456789abcdef"])
        }

        var hashed = makeReport(2)
        hashed.callerIdentity = "MyApp!1f2e3d4c5b6a7988"
        hashed.groupingKey = "fedcba9876543210"
        let unnamed = try parts(hashed)
        XCTAssertEqual(unnamed.tags["caller"], "MyApp!1f2e3d4c5b6a7988")
        XCTAssertEqual(unnamed.fingerprint, ["crashshield", "fedcba9876543210"], "grouped by the key, not the stack")
        XCTAssertEqual(unnamed.frames[unnamed.caller]["function"] as? String, "_$s5MyApp4loadyyF", "no name known")

        var tail = makeReport(3)
        tail.callerFunction = "feedTitle"
        tail.callerIdentity = "feedTitle"
        tail.callerMadeTailCall = true
        tail.groupingKey = "00112233aabbccdd"
        let event = try parts(tail)
        XCTAssertEqual(event.frames.count, tail.callStack.count + 1)
        XCTAssertEqual(event.frames[event.caller]["function"] as? String, "feedTitle")
        XCTAssertNil(event.frames[event.caller]["instruction_addr"], "no frame of its own on the stack")
        XCTAssertEqual(event.frames[event.caller]["in_app"] as? Bool, true)
        XCTAssertEqual(
            event.frames[event.caller - 1]["function"] as? String, "_$s5MyApp4loadyyF", "its caller's frame, below")
        XCTAssertEqual(event.frames[event.caller - 1]["in_app"] as? Bool, true)
        XCTAssertEqual(event.frames[event.caller + 1]["in_app"] as? Bool, false, "CrashShield's replacement above")
    }

    func testSentrysRateLimitRulesAndAGivenDist() throws {
        let limits = "60:transaction:key, 2700:default;error;security:organization"
        XCTAssertEqual(RetryPolicy.sentryRateLimit(limits, category: "error"), 2700)
        XCTAssertEqual(
            RetryPolicy.sentryRateLimit("60::organization, 2700::organization", category: "error"), 2700, "empty: all")
        XCTAssertEqual(
            RetryPolicy.sentryRateLimit("2.5:error:key:quota:ns:more", category: "error"), 2.5, "later fields ignored")
        XCTAssertNil(RetryPolicy.sentryRateLimit("60:transaction:key", category: "error"))
        XCTAssertNil(RetryPolicy.sentryRateLimit("soon:error:key", category: "error"))
        let policy = RetryPolicy(initialBackoff: 1, maxBackoff: 10, maxRetryAfter: 3600, rules: .sentry)
        XCTAssertEqual(
            policy.rateLimit(of: UploadResponse(statusCode: 429)), 60, "Sentry's default without Retry-After")
        XCTAssertEqual(policy.rateLimit(of: UploadResponse(statusCode: 429, retryAfter: "7")), 7)
        XCTAssertEqual(
            policy.rateLimit(of: UploadResponse(statusCode: 429, retryAfter: "7", rateLimits: "30:error:key")), 30,
            "X-Sentry-Rate-Limits takes precedence")
        XCTAssertEqual(
            policy.rateLimit(of: UploadResponse(statusCode: 200, rateLimits: "30::key")), 30, "on any answer")
        XCTAssertEqual(
            policy.rateLimit(of: UploadResponse(statusCode: 429, rateLimits: "99999:error:key")), 3600, "capped")
        XCTAssertNil(policy.rateLimit(of: UploadResponse(statusCode: 500)))
        XCTAssertEqual(
            policy.outcome(of: .success(UploadResponse(statusCode: 503, retryAfter: "1")), attempt: 1),
            .rejected(status: 503, why: RetryPolicy.meaning(of: 503)))
        if case .retry = policy.outcome(of: .failure(URLError(.networkConnectionLost)), attempt: 1) {
        } else {
            XCTFail("network errors retry")
        }
        let http = RetryPolicy(initialBackoff: 1, maxBackoff: 10, maxRetryAfter: 3600)
        XCTAssertNil(
            http.rateLimit(of: UploadResponse(statusCode: 429, rateLimits: "30:error:key")),
            "HTTP sinks: Retry-After only")

        let envelope = SentryEnvelope(
            dsn: try SentryDSN("http://k@127.0.0.1:1/2"), environment: nil, release: "app@1.2",
            dist: "build-7", isAppImage: { _ in true })
        XCTAssertEqual(envelope.event(for: makeReport(1), eventID: "e")["dist"] as? String, "build-7")
    }

    func testWithoutAGivenReleaseTheAppsVersionIsTheRelease() throws {
        let envelope = SentryEnvelope(
            dsn: try SentryDSN("http://k@127.0.0.1:1/2"), environment: nil, release: nil,
            isAppImage: { _ in true })
        var report = makeReport(1)
        XCTAssertNil(envelope.event(for: report, eventID: "e")["release"], "no context: no release")
        report.context = ReportContext(
            appIdentifier: "com.example.app", appVersion: "1.2", appBuild: "34", osName: "iOS",
            osVersion: "17.4", device: "iPhone15,2", launchID: "L", secondsSinceLaunch: 1)
        XCTAssertEqual(envelope.event(for: report, eventID: "e")["release"] as? String, "com.example.app@1.2+34")
    }

    func testDSNsParseIntoTheEnvelopeEndpointAndBadOnesSayWhy() throws {
        XCTAssertEqual(
            try SentryDSN("https://k3y@o1.ingest.sentry.io/123").envelopeURL.absoluteString,
            "https://o1.ingest.sentry.io/api/123/envelope/")
        XCTAssertEqual(
            try SentryDSN("http://k@sentry.local:9000/prefix/7").envelopeURL.absoluteString,
            "http://sentry.local:9000/prefix/api/7/envelope/")
        for bad in ["ftp://k@host/1", "https://host/1", "https://k@host/", "not a url"] {
            XCTAssertThrowsError(try SentryDSN(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("Client Keys"), "\(error)")
            }
        }
    }

    func testARealStoppedCrashBecomesASentryEventWithItsCallerMarked() throws {
        let server = try server()
        let sink = try sentrySink(port: server.port)
        try stopARealCrash(into: sink)
        let envelopes = try parsedEnvelopes(server)
        XCTAssertEqual(envelopes.count, 1)
        let event = try XCTUnwrap(((envelopes.first?["items"] as? [[String: Any]])?.first)?["event"] as? [String: Any])
        let exception = try XCTUnwrap(((event["exception"] as? [String: Any])?["values"] as? [[String: Any]])?.first)
        let frames = try XCTUnwrap((exception["stacktrace"] as? [String: Any])?["frames"] as? [[String: Any]])
        let callerIndex = try XCTUnwrap(
            ((exception["mechanism"] as? [String: Any])?["data"] as? [String: Any])?["caller_frame"] as? String)
        XCTAssertEqual(frames[Int(callerIndex)!]["function"] as? String, "css_test_call_objectAtIndex")
        XCTAssertEqual(frames.last?["in_app"] as? Bool, false, "the innermost frame is CrashShield's replacement")
        XCTAssertEqual((event["tags"] as? [String: String])?["selector"], "objectAtIndex:")
    }
}
#endif
