@testable import CrashShield
@testable import CrashShieldUpload
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // an UploadTestCase (UploadTestServer.swift): child processes, not on iOS
/// What an upload sink refuses when it is made: options that would flood a server or never send, DSNs that would make
/// a broken endpoint, a folder another sink uses.
final class UploadConfigurationTests: UploadTestCase {
    private let endpoint = URL(string: "http://127.0.0.1:9/v1/reports")!

    private func assertRefused(
        _ change: (inout UploadOptions) -> Void, mentioning field: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var options = fastOptions()
        change(&options)
        XCTAssertThrowsError(
            try HTTPUploadSink(endpoint: endpoint, folder: folder.appendingPathComponent("http"), options: options),
            field, file: file, line: line
        ) { error in
            XCTAssertTrue("\(error)".contains(field), "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains("must be"), "says what to change: \(error)", file: file, line: line)
        }
        XCTAssertThrowsError(
            try SentrySink(
                dsn: "http://k@127.0.0.1:9/1", folder: folder.appendingPathComponent("sentry"),
                options: options), field, file: file, line: line)
    }

    func testOptionsThatWouldFloodTheServerOrNeverSendAreRefusedWhenTheSinkIsMade() throws {
        for bad in [0, -1, .nan, .infinity, -.infinity, 0.001] {
            assertRefused({ $0.initialBackoff = bad }, mentioning: "initialBackoff")
        }
        for bad in [0, -5] { assertRefused({ $0.maxBatchSize = bad }, mentioning: "maxBatchSize") }
        for bad in [0, -1, .nan] { assertRefused({ $0.batchDelay = bad }, mentioning: "batchDelay") }
        for bad in [0, -1, .infinity] { assertRefused({ $0.requestTimeout = bad }, mentioning: "requestTimeout") }
        for bad in [0, -1, .nan, 0.5] { assertRefused({ $0.maxBackoff = bad }, mentioning: "maxBackoff") }
        for bad in [0, -1, .infinity] { assertRefused({ $0.maxRetryAfter = bad }, mentioning: "maxRetryAfter") }
        for bad in [0, -1] { assertRefused({ $0.maxQueuedReports = bad }, mentioning: "maxQueuedReports") }
        for bad in [0, -1, 100] { assertRefused({ $0.maxStoredBytes = bad }, mentioning: "maxStoredBytes") }
        XCTAssertNoThrow(
            try HTTPUploadSink(endpoint: endpoint, folder: folder.appendingPathComponent("ok"), options: fastOptions()))
        XCTAssertNoThrow(try UploadOptions().validate(), "the defaults are valid")
    }

    func testDSNsFromAFileOrTheEnvironmentAreTrimmedAndBrokenOnesAreRefused() throws {
        for padded in [
            "https://k3y@o1.ingest.sentry.io/123\n", " https://k3y@o1.ingest.sentry.io/123 ",
            "\thttps://k3y@o1.ingest.sentry.io/123\r\n",
        ] {
            let dsn = try SentryDSN(padded)
            XCTAssertEqual(
                dsn.envelopeURL.absoluteString, "https://o1.ingest.sentry.io/api/123/envelope/", padded.debugDescription
            )
            XCTAssertEqual(dsn.dsn, "https://k3y@o1.ingest.sentry.io/123")
            XCTAssertEqual(dsn.projectID, "123")
        }
        let refused = [
            ("https://k3y@o1.ingest.sentry.io/12a", "not a number"),
            ("https://k3y@o1.ingest.sentry.io/1%0A", "not a number"),
            ("https://k3y@o1.ingest.sentry.io/project", "not a number"),
            ("https://k3y@o1.ingest.sentry.io:99999/1", "99999"),
            ("https://k3y@o1.ingest.sentry.io:0/1", "port"),
            ("https://k 3y@o1.ingest.sentry.io/1", "spaces"),
            ("https://k%203y@o1.ingest.sentry.io/1", "public key"),
            ("https://k3y@o1.ingest.sentry.io/1\n/2", "spaces"),
        ]
        for (dsn, reason) in refused {
            XCTAssertThrowsError(try SentryDSN(dsn), dsn.debugDescription) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(dsn.debugDescription): \(error)")
                XCTAssertTrue("\(error)".contains("Client Keys"), "\(error)")
            }
        }
    }

    func testTwoSinksCannotShareAFolderInOneProcess() throws {
        let folder: URL = self.folder
        let shared = folder.appendingPathComponent("shared")
        let first = try HTTPUploadSink(endpoint: endpoint, folder: shared, options: fastOptions())
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link"), withDestinationURL: shared)
        let sameFolder = [
            shared, URL(fileURLWithPath: shared.path + "/"), shared.appendingPathComponent("."),
            folder.appendingPathComponent("other/../shared"), folder.appendingPathComponent("link"),
            shared.appendingPathComponent("inner"), folder,
        ]
        for other in sameFolder {
            XCTAssertThrowsError(
                try HTTPUploadSink(endpoint: endpoint, folder: other, options: fastOptions()), other.path
            ) { error in
                XCTAssertTrue("\(error)".contains("used by another upload sink"), "\(other.path): \(error)")
            }
            XCTAssertThrowsError(
                try SentrySink(dsn: "http://k@127.0.0.1:9/1", folder: other, options: fastOptions()), other.path)
        }
        XCTAssertNoThrow(
            try HTTPUploadSink(
                endpoint: endpoint, folder: folder.appendingPathComponent("sharedX"), options: fastOptions()),
            "a sibling whose name starts the same is another folder")
        first.close()  // the next sink takes over the folder
        var second: HTTPUploadSink? = try HTTPUploadSink(
            endpoint: endpoint, folder: folder.appendingPathComponent("link"),
            options: fastOptions())
        XCTAssertNotNil(second)
        XCTAssertThrowsError(try HTTPUploadSink(endpoint: endpoint, folder: shared, options: fastOptions()))
        second = nil  // released: the folder is free again
        XCTAssertNoThrow(try HTTPUploadSink(endpoint: endpoint, folder: shared, options: fastOptions()))
    }
}
#endif
