@testable import CrashShield
@testable import CrashShieldUpload
import Foundation
import InMemoryLogging
import Logging
import XCTest
#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPUploadSink` against real HTTP servers on loopback (Tests/Fixtures/upload_server.py): accepting, down, slow,
/// 500, 429/503 with Retry-After, closing mid-body, rejecting.
final class UploadHTTPTests: UploadTestCase {
    private func sink(
        _ url: URL, options: UploadOptions? = nil, logs: InMemoryLogHandler? = nil
    ) throws -> HTTPUploadSink {
        let logger =
            logs.map { handler in Logger(label: "upload-test") { _ in handler } } ?? Logger(label: "upload-test")
        return try HTTPUploadSink(
            endpoint: url, folder: folder.appendingPathComponent("sink"),
            options: options ?? fastOptions(), logger: logger)
    }

    /// Each report of `sent` arrives exactly once once duplicates (same idempotency key) are dropped, as a server
    /// that remembers keys would.
    private func assertEachArrivesOnce(
        _ sent: [CrashReport], _ server: LoopbackServer, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var byKey: [String: [CrashReport]] = [:]
        for delivery in try deliveredReports(server) {
            if let earlier = byKey[delivery.key] {
                XCTAssertEqual(
                    earlier, delivery.reports, "a retried batch has the same key and the same reports", file: file,
                    line: line)
            }
            byKey[delivery.key] = delivery.reports
        }
        let received = byKey.values.flatMap { $0 }.sorted { $0.signature < $1.signature }
        XCTAssertEqual(received, sent.sorted { $0.signature < $1.signature }, file: file, line: line)
    }

    func testAcceptingServerGetsEveryReportOnceAsGzippedJSONBatchesWithAuthHeaders() throws {
        let server = try server()
        let sink = try sink(server.url, options: fastOptions { $0.headers = ["Authorization": "Bearer t0ken"] })
        let reports = (1...7).map { makeReport($0) }
        reports.forEach(sink.receive)
        reports.forEach(sink.receive)  // a re-delivery with no new occurrences (flush) is not uploaded again
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        let requests = server.requests
        // 7 reports in batches of at most 3 (how many batches depends on when the sender woke: at least 3).
        XCTAssertGreaterThanOrEqual(requests.count, 3)
        XCTAssertTrue(try deliveredReports(server).allSatisfy { (1...3).contains($0.reports.count) })
        for request in requests {
            XCTAssertEqual(request.header("Content-Encoding"), "gzip")
            XCTAssertEqual(request.header("Content-Type"), "application/json")
            XCTAssertEqual(request.header("Authorization"), "Bearer t0ken")
            XCTAssertEqual(request.idempotencyKey?.count, 32)
        }
        XCTAssertEqual(Set(requests.compactMap(\.idempotencyKey)).count, requests.count, "one key per batch")
        XCTAssertEqual(try deliveredReports(server).flatMap(\.reports), reports, "in order, every field intact")
        XCTAssertEqual(
            sink.statistics,
            UploadStatistics(
                deliveredReports: 7, rejectedBatches: 0, droppedReports: 0,
                requests: requests.count, queuedReports: 0))
    }

    func testRefusedThen500ThenCutOffThenTooSlowStillDeliversEachReportExactlyOnce() throws {
        let port = try LoopbackServer.freePort(in: folder)
        let sink = try sink(URL(string: "http://127.0.0.1:\(port)/v1/reports")!)
        let reports = (1...5).map { makeReport($0) }
        reports.forEach(sink.receive)
        let refusedUntil = Date().addingTimeInterval(5)
        while sink.statistics.requests < 2 && Date() < refusedUntil { usleep(10_000) }
        XCTAssertGreaterThanOrEqual(sink.statistics.requests, 2, "the down server refused a first attempt and a retry")
        XCTAssertEqual(sink.statistics.deliveredReports, 0)

        let server = try server(["500", "close", "slow:2.5", "500"], port: port)
        XCTAssertTrue(sink.waitUntilIdle(timeout: 15))
        let slowDone = Date().addingTimeInterval(5)
        while !server.requests.contains(where: { $0.behaviour.hasPrefix("slow") }) && Date() < slowDone {
            usleep(20_000)
        }

        let behaviours = server.requests.map(\.behaviour)
        XCTAssertEqual(Set(behaviours), ["500", "close", "slow:2.5", "ok"], "\(behaviours)")
        let slow = try XCTUnwrap(server.requests.first { $0.behaviour.hasPrefix("slow") })
        let keysOfProcessed = server.requests.filter(\.processed).compactMap(\.idempotencyKey)
        XCTAssertEqual(
            keysOfProcessed.filter { $0 == slow.idempotencyKey }.count, 2,
            "the server processed the slow request and its retry: same idempotency key")
        try assertEachArrivesOnce(reports, server)
        XCTAssertEqual(sink.statistics.deliveredReports, 5)
    }

    func testRetryAfterInSecondsAndAsAnHTTPDateIsHonoured() throws {
        let server = try server(["429:1", "503:1", "429date:2"])
        let sink = try sink(server.url)
        let report = makeReport(1)
        sink.receive(report)
        XCTAssertTrue(sink.waitUntilIdle(timeout: 15))
        let times = server.requests.map(\.time)
        XCTAssertEqual(server.requests.map(\.behaviour), ["429:1", "503:1", "429date:2", "ok"])
        // Backoff alone would retry within 0.2 s; the server asked for 1 s, 1 s, and a date about 2 s ahead (a
        // date has whole seconds: at least 1 s).
        for gap in zip(times.dropFirst(), times).map({ $0 - $1 }) {
            XCTAssertGreaterThanOrEqual(gap, 0.95, "\(times)")
        }
        XCTAssertEqual(Set(server.requests.compactMap(\.idempotencyKey)).count, 1, "one batch, one key, every retry")
        try assertEachArrivesOnce([report], server)
    }

    func testBatchRejectedAsMalformedIsDroppedWithOneLogLineAndNotSentAgain() throws {
        let server = try server(["400"])
        let logs = InMemoryLogHandler()
        let first = try sink(server.url, logs: logs)
        let reports = (1...3).map { makeReport($0) }
        reports.forEach(first.receive)
        XCTAssertTrue(first.waitUntilIdle(timeout: 10))
        XCTAssertEqual(first.statistics.rejectedBatches, 1)
        let lines = logs.entries.filter { $0.level >= .info }
        XCTAssertEqual(lines.count, 1, "\(lines.map(\.message))")
        XCTAssertTrue(lines.first?.message.description.contains("HTTP 400") ?? false)
        let rejectedBody = try XCTUnwrap(server.requests.first { $0.behaviour == "400" }?.body)
        let rejected = reports.filter { String(decoding: rejectedBody, as: UTF8.self).contains($0.signature) }
        XCTAssertFalse(rejected.isEmpty)

        first.receive(makeReport(4))  // the sink goes on with the next batch
        XCTAssertTrue(first.waitUntilIdle(timeout: 10))
        first.close()
        let second = try sink(server.url)  // the next launch: the rejected batch is gone
        XCTAssertTrue(second.waitUntilIdle(timeout: 10))
        XCTAssertEqual(server.requests.filter { $0.behaviour == "400" }.count, 1)
        try assertEachArrivesOnce((reports + [makeReport(4)]).filter { !rejected.contains($0) }, server)
    }

    func testNothingIsLostAcrossAKillBetweenPersistAndSend() throws {
        // Launch 1: the server answers 500 every time; the process dies with everything unsent.
        let failing = try server(Array(repeating: "500", count: 1000))
        let launch1 = try sink(failing.url)
        let reports = (1...5).map { makeReport($0) }
        reports.forEach(launch1.receive)
        let deadline = Date().addingTimeInterval(5)
        while failing.requests.count < 2 && Date() < deadline { usleep(10_000) }
        launch1.receive(makeReport(6))  // persisted while the first batch is being retried: stays unsent
        launch1.close()
        let firstKey = try XCTUnwrap(failing.requests.first?.idempotencyKey)
        // A kill between writing the batch files and emptying the unsent file leaves the batched reports in both.
        let unsent = try JSONLinesReportStore(fileURL: folder.appendingPathComponent("sink/unsent.jsonl"))
        reports.forEach(unsent.receive)

        // Launch 2: a sink on the same folder sends it all at init, each report once, the first batch with its key.
        let accepting = try server()
        let launch2 = try sink(accepting.url)
        XCTAssertTrue(launch2.waitUntilIdle(timeout: 10))
        try assertEachArrivesOnce(reports + [makeReport(6)], accepting)
        XCTAssertEqual(accepting.requests.first?.idempotencyKey, firstKey, "a batch keeps its key across launches")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("sink/batches").path), [])
    }

    func testMainThreadUIReportsStayLocalByDefault() throws {
        let server = try server()
        let byDefault = try sink(server.url)
        byDefault.receive(makeReport(1, category: .mainThreadUI))
        byDefault.receive(makeReport(2, category: .container))
        XCTAssertTrue(byDefault.waitUntilIdle(timeout: 10))
        XCTAssertEqual(try deliveredReports(server).flatMap(\.reports).map(\.category), [.container])
        byDefault.close()

        let everything = try sink(server.url, options: fastOptions { $0.uploadedGuards = .all })
        everything.receive(makeReport(3, category: .mainThreadUI))
        XCTAssertTrue(everything.waitUntilIdle(timeout: 10))
        XCTAssertEqual(try deliveredReports(server).flatMap(\.reports).map(\.category), [.container, .mainThreadUI])
    }

    func testMemoryAndDiskCapsHoldWhileTheServerIsDown() throws {
        let port = try LoopbackServer.freePort(in: folder)
        let url = URL(string: "http://127.0.0.1:\(port)/")!
        let capped = try sink(
            url,
            options: fastOptions {
                $0.maxQueuedReports = 5; $0.maxStoredBytes = 16_384
            })
        for n in 1...40 { capped.receive(makeReport(n)) }
        capped.receive(makeReport(1, occurrences: 10))  // a count update of a queued report is never dropped
        XCTAssertEqual(capped.statistics.droppedReports, 35)
        XCTAssertTrue(
            (5...6).contains(capped.statistics.queuedReports),
            "5, plus the update when report 1 was already in a batch in flight: \(capped.statistics)")
        capped.close()

        let roomy = try sink(
            url,
            options: fastOptions {
                $0.maxQueuedReports = 100_000; $0.maxStoredBytes = 16_384
            })
        for n in 1...400 { roomy.receive(makeReport(1000 + n)) }
        XCTAssertLessThanOrEqual(try folderBytes(), 16_384 + 4096, "the unsent file compacts at half the cap")
        roomy.close()
    }

    private func folderBytes() throws -> Int {
        let enumerator = FileManager.default.enumerator(
            at: folder.appendingPathComponent("sink"), includingPropertiesForKeys: [.fileSizeKey])
        var total = 0
        while let url = enumerator?.nextObject() as? URL {
            total += (try url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        return total
    }

    func testASendAfterTheTransportWasInvalidatedFailsInsteadOfStoppingTheProcess() throws {
        let server = try server()
        let transport = URLSessionUploadTransport()
        transport.invalidate()  // what close() does while the sender may be about to send
        let done = expectation(description: "completion")
        transport.send(URLRequest(url: server.url)) { result in
            if case .failure(let error as URLError) = result {
                XCTAssertEqual(error.code, .cancelled)
            } else {
                XCTFail("\(result)")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testTheUserAgentCarriesCrashShieldsVersion() throws {
        let server = try server()
        let sink = try sink(server.url)
        sink.receive(makeReport(1))
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        XCTAssertEqual(server.requests.first?.header("User-Agent"), "CrashShield/\(CrashShield.version)")
    }

    func testRefusedCredentialsKeepTheBatchForTheNextLaunchWithNewCredentials() throws {
        let refusing = try server(["401"])
        let logs = InMemoryLogHandler()
        let first = try sink(
            refusing.url, options: fastOptions { $0.headers = ["Authorization": "Bearer expired"] }, logs: logs)
        let reports = (1...2).map { makeReport($0) }
        reports.forEach(first.receive)
        let deadline = Date().addingTimeInterval(5)
        while refusing.requests.isEmpty && Date() < deadline { usleep(10_000) }
        usleep(300_000)
        XCTAssertEqual(refusing.requests.map(\.behaviour), ["401"], "not retried at once")
        XCTAssertEqual(first.statistics.rejectedBatches, 0, "\(first.statistics)")
        XCTAssertEqual(first.statistics.queuedReports, 2, "kept while the credentials may be fixed")
        let line = logs.entries.filter { $0.level >= .error }.map(\.message.description).joined(separator: "\n")
        XCTAssertTrue(
            line.contains("HTTP 401") && line.contains("refused the credentials") && line.contains("kept"), line)
        first.close()

        // The next launch, with a renewed token: the same batch (same idempotency key) goes out.
        let accepting = try server()
        let second = try sink(accepting.url, options: fastOptions { $0.headers = ["Authorization": "Bearer renewed"] })
        XCTAssertTrue(second.waitUntilIdle(timeout: 10))
        XCTAssertEqual(accepting.requests.first?.idempotencyKey, refusing.requests.first?.idempotencyKey)
        XCTAssertEqual(accepting.requests.first?.header("Authorization"), "Bearer renewed")
        try assertEachArrivesOnce(reports, accepting)
    }

    func testNewHeadersSendABatchHeldForCredentialsAtOnce() throws {
        let server = try server(["403"])
        let sink = try sink(server.url, options: fastOptions { $0.headers = ["Authorization": "Bearer expired"] })
        sink.receive(makeReport(1))
        XCTAssertFalse(sink.waitUntilIdle(timeout: 1), "a batch held for credentials is still to be sent")
        XCTAssertEqual(sink.statistics.credentialRefusals, 1)
        XCTAssertEqual(server.requests.count, 1, "the next try waits credentialRetryDelay (an hour by default)")
        sink.setHeaders(["Authorization": "Bearer renewed"])
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        XCTAssertEqual(server.requests.map { $0.header("Authorization") }, ["Bearer expired", "Bearer renewed"])
        XCTAssertEqual(sink.statistics.deliveredReports, 1)
        XCTAssertEqual(sink.statistics.rejectedBatches, 0)
    }

    func testABatchRefusedForCredentialsPastTheHoldLimitIsDropped() throws {
        let server = try server(Array(repeating: "401", count: 100))
        let logs = InMemoryLogHandler()
        let sink = try sink(
            server.url,
            options: fastOptions {
                $0.credentialRetryDelay = 0.1; $0.credentialHoldLimit = 0.5
            },
            logs: logs)
        sink.receive(makeReport(1))
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        XCTAssertEqual(sink.statistics.rejectedBatches, 1)
        XCTAssertEqual(sink.statistics.queuedReports, 0)
        XCTAssertTrue(
            (2...10).contains(server.requests.count), "retried every credentialRetryDelay: \(server.requests.count)")
        XCTAssertTrue(logs.entries.contains { $0.message.description.contains("credentialHoldLimit") })
    }

    func testNotFoundAndOtherClientErrorsDropTheBatchAndSaySo() throws {
        let server = try server(["404", "413"])
        let logs = InMemoryLogHandler()
        let sink = try sink(server.url, logs: logs)
        for n in 1...2 {
            sink.receive(makeReport(n))
            XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
        }
        XCTAssertEqual(sink.statistics.rejectedBatches, 2)
        let lines = logs.entries.filter { $0.level >= .error }.map(\.message.description)
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(
            lines[0].contains("HTTP 404") && lines[0].contains("does not exist") && lines[0].contains("dropped"),
            lines[0])
        XCTAssertTrue(
            lines[1].contains("HTTP 413") && lines[1].contains("maxBatchSize") && lines[1].contains("dropped"), lines[1]
        )
    }

    func testARealStoppedCrashReachesTheServerOffTheAppThread() throws {
        let server = try server(["500"])
        let sink = try sink(server.url)
        try stopARealCrash(into: sink)
        let report = try XCTUnwrap(try deliveredReports(server).first?.reports.first)
        XCTAssertEqual(report.selector, "objectAtIndex:")
        XCTAssertEqual(report.callerFrame?.symbol, "css_test_call_objectAtIndex")
    }
}
#endif
