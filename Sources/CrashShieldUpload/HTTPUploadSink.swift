import CrashShield
import Foundation
import Logging

/// Sends reports to an HTTP(S) endpoint as gzipped JSON batches: `POST endpoint` with body
/// `{"reports": [CrashReport, ...], "schemaVersion": 1}` (`ReportCodec`, the JSON Lines store's encoding: sorted keys,
/// ISO-8601 dates with milliseconds; Docs/Reports.md "The HTTP body"),
/// headers `Content-Type: application/json`, `Content-Encoding: gzip`, `Idempotency-Key: <32 hex digits>` (the same
/// for every retry of a batch, across launches too: a server that remembers keys drops duplicates),
/// `User-Agent: CrashShield/<version>` and `options.headers` (authentication).
///
/// `receive` only persists the report (one append to a file in `folder`) and wakes the sink's own queue, which sends;
/// neither the app's thread nor CrashShield's delivery queue waits for the network. Unsent reports survive the
/// process and are sent by the sink created at the next launch. Answers: 2xx accepted; 429/503 retried after
/// `Retry-After` (seconds or HTTP-date) when given; 408, 5xx and transport failures (refused, timed out, cut off)
/// retried with exponential backoff and jitter; 401/403 (credentials refused) keep the batch and retry it after
/// `options.credentialRetryDelay` or at once after `setHeaders(_:)`, until it is older than
/// `options.credentialHoldLimit`; any other 4xx (400, 404, 413, ...) drops the batch with one error log line that
/// says why. Memory and disk are capped (`UploadOptions.maxQueuedReports`, `maxStoredBytes`). Reports of guards
/// outside `options.uploadedGuards` (by default `.mainThreadUI`) are not uploaded.
public final class HTTPUploadSink: UploadSink, @unchecked Sendable {
    /// The URL batches are sent to.
    public var endpoint: URL { queue.endpoint }

    /// - Parameters:
    ///   - endpoint: the http(s) URL each batch is POSTed to.
    ///   - folder: a folder the sink owns (created if missing), for example `Caches/CrashShield/upload`. One sink
    ///     per folder: a folder (or one inside it, or around it) another sink of this process uses is refused until
    ///     that sink is closed or released.
    ///   - options: headers, retries, caps and which guards are uploaded.
    ///   - logger: where the sink logs rejected batches and dropped reports.
    /// - Throws: `UploadError` for a non-http(s) endpoint or an unusable or shared folder,
    ///   `CrashShieldError.invalidConfiguration` for options out of range (`UploadOptions.validate()`),
    ///   `ReportStoreError` for its files.
    public init(
        endpoint: URL, folder: URL, options: UploadOptions = UploadOptions(),
        logger: Logger = Logger(label: "CrashShield.Upload")
    ) throws {
        super.init(
            queue: try UploadQueue(
                endpoint: endpoint, folder: folder, options: options,
                batchSize: options.maxBatchSize, transport: URLSessionUploadTransport(), logger: logger
            ) { reports, _ in
                (try Self.body(reports), ["Content-Type": "application/json"])
            })
    }

    /// The version of the body's schema (Docs/Reports.md "The HTTP body"). It changes only when a field changes meaning
    /// or goes away; new fields may appear in any version.
    public static let schemaVersion = 1

    /// The body of one batch: `{"reports": [...], "schemaVersion": 1}`, every report in the one JSON form
    /// (`CrashReport.makeJSONEncoder()`, `ReportCodec`).
    static func body(_ reports: [CrashReport]) throws -> Data {
        try CrashReport.makeJSONEncoder().encode(Body(reports: reports, schemaVersion: schemaVersion))
    }

    private struct Body: Encodable {
        var reports: [CrashReport]
        var schemaVersion: Int
    }
}

/// What `HTTPUploadSink` and `SentrySink` share: the upload policy in `receive`, statistics, waiting, closing.
public class UploadSink: ReportSink, @unchecked Sendable {
    let queue: UploadQueue

    init(queue: UploadQueue) { self.queue = queue }

    deinit { queue.close() }

    public var options: UploadOptions { queue.options }

    /// Persists the report (one append) for the sink's own queue to send; reports of guards outside
    /// `options.uploadedGuards` are ignored.
    public func receive(_ report: CrashReport) {
        guard queue.options.uploads(report) else { return }
        queue.enqueue(report)
    }

    public var statistics: UploadStatistics { queue.statistics }

    /// Replaces `options.headers` for every later request, for example with a renewed token. A batch held because
    /// the server refused the old credentials (401/403) is sent again at once.
    public func setHeaders(_ headers: [String: String]) { queue.setHeaders(headers) }

    /// Waits until every report so far was accepted, rejected or dropped, at most `timeout` seconds (tests, shutdown).
    /// A batch kept for new credentials (401/403) is still waiting: false at the timeout.
    @discardableResult
    public func waitUntilIdle(timeout: TimeInterval) -> Bool { queue.waitUntilIdle(timeout: timeout) }

    /// Stops sending now; unsent reports stay on disk for the next launch. The folder is free for another sink.
    public func close() { queue.close() }
}
