@testable import CrashShield
@testable import CrashShieldUpload
import CrashShieldScenarios
import Foundation
import XCTest

#if os(macOS) || os(Linux)  // child processes (Foundation's Process): not on iOS
/// A folder of its own per test, removed afterwards.
class UploadTestCase: ShieldTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("upload-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
        try super.tearDownWithError()
    }

    func server(_ plan: [String] = [], port: Int = 0, name: String = "server") throws -> LoopbackServer {
        try LoopbackServer(
            plan: plan, port: port, recordURL: folder.appendingPathComponent("\(name)-\(UUID().uuidString).jsonl"))
    }

    /// Starts CrashShield with `sink`, makes one real out-of-range `objectAtIndex:` call, and waits until the sink
    /// has sent it.
    func stopARealCrash(into sink: UploadSink) throws {
        var configuration = Configuration(guards: .container)
        configuration.sinks = [sink]
        try CrashShield.start(configuration)
        defer { CrashShield.stop() }
        withAutoreleasePool { XCTAssertNil(css_test_call_objectAtIndex(css_test_array(), 5)) }
        XCTAssertTrue(CrashShield.flush(timeout: 5))
        XCTAssertTrue(sink.waitUntilIdle(timeout: 10))
    }

    /// Short delays, so that retries take milliseconds.
    func fastOptions(_ change: (inout UploadOptions) -> Void = { _ in }) -> UploadOptions {
        var options = UploadOptions(
            maxBatchSize: 3, batchDelay: 0.1, requestTimeout: 1, initialBackoff: 0.05, maxBackoff: 1)
        change(&options)
        return options
    }

    func makeReport(
        _ n: Int, category: GuardCategory = .container, occurrences: Int = 1, uuid: String? = nil
    ) -> CrashReport {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // Innermost first: CrashShield's replacement, the caller (app), more app code, a system library.
        let images = ["/app/CrashShield", "/app/MyApp", "/app/MyApp", "/usr/lib/libSystem.dylib"]
        var stack: [StackFrame] = []
        for (i, image) in images.enumerated() {
            let isApp = image.hasPrefix("/app/")
            stack.append(
                StackFrame(
                    address: 0x40_1000 + UInt64(i) * 16, image: image,
                    imageBase: isApp ? 0x40_0000 : 0x7f00_0000, symbol: i == 1 ? "_$s5MyApp4loadyyF" : nil,
                    imageUUID: isApp ? uuid : nil))
        }
        return CrashReport(
            signature: "\(category.name)|GSInlineArray|objectAtIndex:|caller-\(n)", category: category,
            exceptionName: "NSRangeException", reason: "Index \(n) is out of range 2 (in 'objectAtIndex:')",
            className: "GSInlineArray", selector: "objectAtIndex:", isClassMethod: false,
            hint: "check the index against count", action: .recovered, details: ["index": "\(n)"],
            thread: ThreadInfo(id: 7, name: "worker", isMain: false), callStack: stack, callerFrameIndex: 1,
            firstSeen: base.addingTimeInterval(Double(n)), lastSeen: base.addingTimeInterval(Double(n) + 0.5),
            occurrences: occurrences)
    }

    /// The reports in the processed requests' bodies (`{"reports": [...]}`), with each request's idempotency key.
    func deliveredReports(_ server: LoopbackServer) throws -> [(key: String, reports: [CrashReport])] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            guard let date = formatter.date(from: text) else { throw CocoaError(.coderInvalidValue) }
            return date
        }
        struct Body: Decodable { var schemaVersion: Int?; var reports: [CrashReport] }
        return try server.requests.filter(\.processed).map { request in
            let body = try decoder.decode(Body.self, from: request.body)
            // Sentry's envelopes carry no schema version; every HTTP body does (Docs/Reports.md "The HTTP body").
            if request.header("Content-Type") == "application/json" { XCTAssertEqual(body.schemaVersion, 1) }
            return (request.idempotencyKey ?? "", body.reports)
        }
    }
}
#endif
