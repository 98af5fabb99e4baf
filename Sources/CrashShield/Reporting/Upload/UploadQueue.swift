import Dispatch
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking   // URLRequest on Linux
#endif

/// What an upload sink did so far (since it was created).
public struct UploadStatistics: Sendable, Equatable {
    /// Reports the server accepted (2xx).
    public var deliveredReports = 0
    /// Batches the server rejected as malformed (4xx other than 408/429), dropped with one log line each.
    public var rejectedBatches = 0
    /// Reports dropped by the memory or disk cap.
    public var droppedReports = 0
    /// Requests that got an answer or failed (each retry counts).
    public var requests = 0
    /// Reports waiting: persisted, not yet accepted.
    public var queuedReports = 0

    public init(deliveredReports: Int = 0, rejectedBatches: Int = 0, droppedReports: Int = 0, requests: Int = 0,
                queuedReports: Int = 0) {
        self.deliveredReports = deliveredReports
        self.rejectedBatches = rejectedBatches
        self.droppedReports = droppedReports
        self.requests = requests
        self.queuedReports = queuedReports
    }
}

/// The upload machinery shared by `HTTPUploadSink` and `SentrySink`: persistence, batching, sending on a queue of its
/// own, retries.
///
/// Files, in the sink's folder: `unsent.jsonl` (a `JSONLinesReportStore`) takes each report as it arrives;
/// `batches/batch-<time>-<n>-<key>.jsonl` holds one formed batch, named by its idempotency key so that the key stays
/// the same across retries and launches. Forming batches writes every unsent report into batch files, then empties
/// `unsent.jsonl`: a process killed in between leaves a report in both, and the next launch drops the copy in
/// `unsent.jsonl` (identical report). A batch file is removed when the server accepted or rejected the batch. At
/// init, batch files and unsent reports left by an earlier launch are loaded and sent.
///
/// Threads: `enqueue` (on CrashShield's delivery queue) appends one line under a lock and returns; requests, retry
/// timers and batch formation run on `queue`; one batch is in flight at a time, oldest first.
final class UploadQueue: @unchecked Sendable {
    /// Builds the body and the body-specific headers (content type, authentication) of one batch.
    typealias RequestBody = @Sendable (_ reports: [CrashReport], _ key: String) throws -> (body: Data, headers: [String: String])

    struct Batch {
        let key: String
        let fileURL: URL
        var reports: [CrashReport]
        var bytes: Int
    }

    private struct State {
        var unsent: [CrashReport] = []
        var batches: [Batch] = []
        /// A request is in flight or a retry timer is pending for `batches[0]`.
        var busy = false
        var closed = false
        var attempt = 0
        var sequence = 0
        var statistics = UploadStatistics()
        var loggedDrop = false
        /// Highest occurrence count queued per signature: a re-delivery with no new occurrences (`flush()`) is skipped.
        var queuedCounts: [String: Int] = [:]

        var queuedCount: Int { unsent.count + batches.reduce(0) { $0 + $1.reports.count } }
        var batchBytes: Int { batches.reduce(0) { $0 + $1.bytes } }
    }

    let endpoint: URL
    let options: UploadOptions
    private let batchSize: Int
    private let transport: UploadTransport
    private let body: RequestBody
    private let logger: Logger
    private let retry: RetryPolicy
    private let unsentStore: JSONLinesReportStore
    private let batchFolder: URL
    private let storeBytes: Int
    private let queue: DispatchQueue
    private let state = Locked(State())

    static let idempotencyHeader = "Idempotency-Key"

    init(endpoint: URL, folder: URL, options: UploadOptions, batchSize: Int, transport: UploadTransport,
         logger: Logger, body: @escaping RequestBody) throws {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https", endpoint.host != nil else {
            throw UploadError.invalidEndpoint(endpoint.absoluteString)
        }
        self.endpoint = endpoint
        self.options = options
        self.batchSize = max(1, batchSize)
        self.transport = transport
        self.body = body
        self.logger = logger
        retry = RetryPolicy(initialBackoff: options.initialBackoff, maxBackoff: options.maxBackoff,
                            maxRetryAfter: options.maxRetryAfter)
        storeBytes = max(JSONLinesReportStore.minimumMaxBytes, options.maxStoredBytes / 2)
        unsentStore = try JSONLinesReportStore(fileURL: folder.appendingPathComponent("unsent.jsonl"),
                                               maxBytes: storeBytes, logger: logger)
        batchFolder = folder.appendingPathComponent("batches", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: batchFolder, withIntermediateDirectories: true)
        } catch {
            throw UploadError.folder(batchFolder.path, "\(error)")
        }
        queue = DispatchQueue(label: "CrashShield.upload")
        recover()
        queue.async { [weak self] in self?.pump() }
    }

    deinit { transport.invalidate() }

    var statistics: UploadStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.queuedReports = state.queuedCount
            return statistics
        }
    }

    // MARK: - Taking reports

    /// Persists `report` and wakes the sender. A count update replaces the queued report of the same signature.
    func enqueue(_ report: CrashReport) {
        let outcome = state.withLock { state -> (accepted: Bool, logDrop: Bool) in
            guard !state.closed, report.occurrences > state.queuedCounts[report.signature, default: 0] else {
                return (false, false)
            }
            if let index = state.unsent.firstIndex(where: { $0.signature == report.signature }) {
                state.unsent[index] = report
            } else if state.queuedCount >= options.maxQueuedReports
                        && !state.batches.contains(where: { $0.reports.contains { $0.signature == report.signature } }) {
                state.statistics.droppedReports += 1
                defer { state.loggedDrop = true }
                return (false, !state.loggedDrop)
            } else {
                state.unsent.append(report)
            }
            if state.queuedCounts.count >= 10_000 { state.queuedCounts.removeAll() }
            state.queuedCounts[report.signature] = report.occurrences
            unsentStore.receive(report)   // under the lock: file and memory change together with batch formation
            return (true, false)
        }
        if outcome.logDrop {
            logger.warning("upload queue full (\(options.maxQueuedReports) reports): new reports are dropped until the server takes some")
        }
        // A short wait lets a burst of reports go out in one request.
        if outcome.accepted { queue.asyncAfter(deadline: .now() + options.batchDelay) { [weak self] in self?.pump() } }
    }

    /// Stops sending: cancels the request in flight and pending retries. What is unsent stays on disk for the next
    /// launch. Reports received afterwards are ignored.
    func close() {
        state.withLock { $0.closed = true }
        transport.invalidate()
    }

    /// Waits until nothing is queued (every report accepted, rejected or dropped), at most `timeout` seconds.
    func waitUntilIdle(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while state.withLock({ $0.queuedCount > 0 && !$0.closed }) {
            if Date() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }

    // MARK: - Sending (on `queue`)

    private func pump() {
        let next = state.withLock { state -> Batch? in
            guard !state.closed, !state.busy else { return nil }
            if state.batches.isEmpty { formBatches(&state) }
            guard let first = state.batches.first else { return nil }
            state.busy = true
            return first
        }
        guard let batch = next else { return }
        let request: URLRequest
        do {
            request = try makeRequest(for: batch)
        } catch {
            logger.error("upload: batch \(batch.key) (\(batch.reports.count) reports) could not be encoded (\(error)); dropped")
            finish(batch, statistics: { $0.droppedReports += batch.reports.count })
            return
        }
        transport.send(request) { [weak self] result in
            guard let self else { return }
            self.queue.async { self.handle(result, for: batch) }
        }
    }

    private func makeRequest(for batch: Batch) throws -> URLRequest {
        let encoded = try body(batch.reports, batch.key)
        var request = URLRequest(url: endpoint, timeoutInterval: options.requestTimeout)
        request.httpMethod = "POST"
        request.setValue("CrashShield", forHTTPHeaderField: "User-Agent")
        request.setValue(batch.key, forHTTPHeaderField: Self.idempotencyHeader)
        for (name, value) in encoded.headers.merging(options.headers, uniquingKeysWith: { _, user in user }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if options.gzip, let compressed = Gzip.compress(encoded.body) {
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
            request.httpBody = compressed
        } else {
            request.httpBody = encoded.body
        }
        return request
    }

    private func handle(_ result: Result<UploadResponse, Error>, for batch: Batch) {
        let attempt = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.statistics.requests += 1
            state.attempt += 1
            return state.attempt
        }
        guard let attempt else { return }
        switch retry.outcome(of: result, attempt: attempt) {
        case .delivered:
            finish(batch, statistics: { $0.deliveredReports += batch.reports.count })
        case .rejected(let status):
            logger.error("upload: the server rejected batch \(batch.key) (\(batch.reports.count) reports) with HTTP \(status); dropped, not retried")
            finish(batch, statistics: { $0.rejectedBatches += 1 })
        case .retry(let delay):
            logger.debug("upload: batch \(batch.key) attempt \(attempt) failed (\(Self.describe(result))); retry in \(delay) s")
            queue.asyncAfter(deadline: .now() + delay) { [weak self] in
                self?.state.withLock { $0.busy = false }
                self?.pump()
            }
        }
    }

    /// Forgets `batch` (its file too) and goes on with the next one.
    private func finish(_ batch: Batch, statistics update: (inout UploadStatistics) -> Void) {
        state.withLock { state in
            if state.batches.first?.key == batch.key { state.batches.removeFirst() }
            update(&state.statistics)
            state.attempt = 0
            state.busy = false
        }
        JSONLinesReportStore.removeFiles(of: batch.fileURL)
        pump()
    }

    private static func describe(_ result: Result<UploadResponse, Error>) -> String {
        switch result {
        case .success(let response): return "HTTP \(response.statusCode)"
        case .failure(let error): return "\(error)"
        }
    }

    // MARK: - Files

    /// Moves every unsent report into batch files, then empties the unsent file. Called under the lock.
    private func formBatches(_ state: inout State) {
        guard !state.unsent.isEmpty else { return }
        var start = 0
        while start < state.unsent.count {
            let reports = Array(state.unsent[start..<min(start + batchSize, state.unsent.count)])
            start += batchSize
            state.sequence += 1
            let key = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let millis = String(format: "%013.0f", Date().timeIntervalSince1970 * 1000)
            let name = "batch-\(millis)-\(String(format: "%06d", state.sequence))-\(key).jsonl"
            guard let batch = writeBatch(reports, key: key, to: batchFolder.appendingPathComponent(name)) else {
                return   // could not write: keep the reports unsent (memory and file) and try again later
            }
            state.batches.append(batch)
        }
        state.unsent.removeAll()
        do {
            try unsentStore.removeAll()
        } catch {
            logger.error("upload: could not empty \(unsentStore.fileURL.path) (\(error)); its reports may be sent twice")
        }
        enforceDiskCap(&state)
    }

    private func writeBatch(_ reports: [CrashReport], key: String, to url: URL) -> Batch? {
        do {
            let store = try JSONLinesReportStore(fileURL: url, maxBytes: storeBytes, logger: logger)
            for report in reports { store.receive(report) }
            guard store.writeFailures == 0 else {
                JSONLinesReportStore.removeFiles(of: url)
                return nil
            }
            // The store may have compacted an oversized batch: what is on disk is the batch.
            return Batch(key: key, fileURL: url, reports: try store.load().reports, bytes: Self.size(of: url))
        } catch {
            logger.error("upload: could not write batch file \(url.path): \(error)")
            JSONLinesReportStore.removeFiles(of: url)
            return nil
        }
    }

    /// Drops the oldest batches not in flight while the batch files take more than their half of `maxStoredBytes`.
    private func enforceDiskCap(_ state: inout State) {
        let first = state.busy ? 1 : 0
        while state.batchBytes > storeBytes, state.batches.count > first + 1 {
            let dropped = state.batches.remove(at: first)
            JSONLinesReportStore.removeFiles(of: dropped.fileURL)
            state.statistics.droppedReports += dropped.reports.count
            logger.warning("upload: disk cap reached; dropped batch \(dropped.key) (\(dropped.reports.count) reports)")
        }
    }

    /// Loads the batches and unsent reports an earlier launch left.
    private func recover() {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: batchFolder.path)) ?? [])
            .filter { $0.hasPrefix("batch-") && $0.hasSuffix(".jsonl") }.sorted()
        var batches: [Batch] = []
        for name in names {
            let url = batchFolder.appendingPathComponent(name)
            let key = String(name.dropLast(".jsonl".count).split(separator: "-").last ?? "")
            do {
                let reports = try JSONLinesReportStore(fileURL: url, maxBytes: storeBytes, logger: logger).load().reports
                if reports.isEmpty || key.isEmpty { JSONLinesReportStore.removeFiles(of: url); continue }
                batches.append(Batch(key: key, fileURL: url, reports: reports, bytes: Self.size(of: url)))
            } catch {
                logger.error("upload: batch file \(url.path) is unreadable (\(error)); removed")
                JSONLinesReportStore.removeFiles(of: url)
            }
        }
        var unsent: [CrashReport] = []
        do {
            unsent = try unsentStore.load().reports
        } catch {
            logger.error("upload: \(unsentStore.fileURL.path) is unreadable (\(error)); its reports are not sent")
        }
        let batched = batches.flatMap(\.reports)
        unsent.removeAll { batched.contains($0) }   // a kill between writing batches and emptying the file
        state.withLock { state in
            state.batches = batches
            state.unsent = Array(unsent.prefix(max(0, options.maxQueuedReports - batched.count)))
            state.sequence = names.count
        }
    }

    private static func size(of url: URL) -> Int {
        (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
    }
}

/// Errors from creating an upload sink. Each says what to change.
public enum UploadError: Error, Equatable, CustomStringConvertible {
    /// The endpoint is not an http(s) URL with a host.
    case invalidEndpoint(String)
    /// The DSN is not `https://<key>@<host>/<project>`.
    case invalidDSN(String, reason: String)
    /// The sink's folder cannot be created.
    case folder(String, String)

    public var description: String {
        switch self {
        case .invalidEndpoint(let url):
            return "'\(url)' is not an http or https URL with a host; pass the full endpoint, such as https://reports.example.com/v1/crashes"
        case .invalidDSN(let dsn, let reason):
            return "'\(dsn)' is not a Sentry DSN (\(reason)); copy it from Sentry's project settings (Client Keys): https://<key>@<host>/<project>"
        case .folder(let path, let reason):
            return "could not create the upload folder '\(path)' (\(reason)); choose a folder the app can write, such as its caches folder"
        }
    }
}
