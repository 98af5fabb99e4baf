import Dispatch
import CrashShield
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLRequest on Linux
#endif

/// What an upload sink did so far (since it was created).
public struct UploadStatistics: Sendable, Equatable {
    /// Reports the server accepted (2xx).
    public var deliveredReports = 0
    /// Batches the server refused for good, dropped with one log line each: `HTTPUploadSink`, a 4xx other than
    /// 401/403/408/429 (or a batch refused for its credentials past `UploadOptions.credentialHoldLimit`);
    /// `SentrySink`, any 4xx or 5xx (Sentry's rules).
    public var rejectedBatches = 0
    /// Reports dropped by the memory or disk cap.
    public var droppedReports = 0
    /// Requests that got an answer or failed (each retry counts).
    public var requests = 0
    /// Reports waiting: persisted, not yet accepted.
    public var queuedReports = 0
    /// `HTTPUploadSink`: answers 401/403 (credentials refused); the batch was kept for a retry.
    public var credentialRefusals = 0
    /// `SentrySink`: reports not sent because a Sentry rate limit was in effect (Sentry's rules discard them).
    public var rateLimitedReports = 0
    /// `SentrySink`: count updates not sent (Docs/Reports.md "Counting"): Sentry counts events, so a call site is one
    /// event per launch, with the count it had when it was sent; a later update of it would be a second event for the
    /// same bug and launch, against the project's quota.
    public var coalescedUpdates = 0

    public init(
        deliveredReports: Int = 0, rejectedBatches: Int = 0, droppedReports: Int = 0, requests: Int = 0,
        queuedReports: Int = 0, credentialRefusals: Int = 0, rateLimitedReports: Int = 0,
        coalescedUpdates: Int = 0
    ) {
        self.deliveredReports = deliveredReports
        self.rejectedBatches = rejectedBatches
        self.droppedReports = droppedReports
        self.requests = requests
        self.queuedReports = queuedReports
        self.credentialRefusals = credentialRefusals
        self.rateLimitedReports = rateLimitedReports
        self.coalescedUpdates = coalescedUpdates
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
/// init, batch files and unsent reports left by an earlier launch are loaded and sent. One sink per folder in a process
/// (`UploadFolders`): two would send and delete each other's files.
///
/// Threads: `enqueue` (on CrashShield's delivery queue) appends one line under a lock and returns; requests, retry
/// timers and batch formation run on `queue`; one batch is in flight at a time, oldest first.
final class UploadQueue: @unchecked Sendable {
    /// Builds the body and the body-specific headers (content type, authentication) of one batch.
    typealias RequestBody =
        @Sendable (_ reports: [CrashReport], _ key: String) throws -> (body: Data, headers: [String: String])

    struct Batch {
        let key: String
        let fileURL: URL
        var reports: [CrashReport]
        var bytes: Int
        /// When the batch was formed (its file name says it, across launches).
        var created: Date
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
        /// `options.headers`, or what `setHeaders` gave since, and how many times it did.
        var headers: [String: String] = [:]
        var headersVersion = 0
        /// `batches[0]` waits for new credentials (401/403).
        var heldForCredentials = false
        /// Counts scheduled retries: a retry timer whose number is no longer current does nothing.
        var retryGeneration = 0
        /// Sentry: nothing is sent before this (a rate limit).
        var rateLimitedUntil: Date?

        var queuedCount: Int { unsent.count + batches.reduce(0) { $0 + $1.reports.count } }
        var batchBytes: Int { batches.reduce(0) { $0 + $1.bytes } }
    }

    let endpoint: URL
    let options: UploadOptions
    /// The folder the sink owns.
    let folder: URL
    /// The sink's folder, as registered in `UploadFolders`.
    private let folderClaim: UploadFolders.Claim
    private let rules: UploadRules
    private let batchSize: Int
    private let transport: UploadTransport
    let body: RequestBody
    private let logger: Logger
    private let retry: RetryPolicy
    private let unsentStore: JSONLinesReportStore
    private let batchFolder: URL
    private let storeBytes: Int
    private let queue: DispatchQueue
    private let state = Locked(State())

    static let idempotencyHeader = "Idempotency-Key"
    /// `CrashShield/<version>` on every request.
    static let userAgent = "CrashShield/\(CrashShield.version)"

    /// - Throws: `UploadError` for a non-http(s) endpoint, an unusable folder or one another sink of this process
    ///   uses; `CrashShieldError.invalidConfiguration` for options out of range; `ReportStoreError` for its files.
    init(
        endpoint: URL, folder: URL, options: UploadOptions, batchSize: Int, rules: UploadRules = .http,
        transport: UploadTransport, logger: Logger, body: @escaping RequestBody
    ) throws {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https", endpoint.host != nil
        else {
            throw UploadError.invalidEndpoint(endpoint.absoluteString)
        }
        try options.validate()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw UploadError.folder(folder.path, "\(error)")
        }
        let folderClaim = try UploadFolders.claim(folder)
        do {
            self.endpoint = endpoint
            self.options = options
            self.folder = folder
            self.folderClaim = folderClaim
            self.rules = rules
            self.batchSize = max(1, batchSize)
            self.transport = transport
            self.body = body
            self.logger = logger
            retry = RetryPolicy(
                initialBackoff: options.initialBackoff, maxBackoff: options.maxBackoff,
                maxRetryAfter: options.maxRetryAfter, credentialRetryDelay: options.credentialRetryDelay,
                rules: rules)
            storeBytes = max(JSONLinesReportStore.minimumMaxBytes, options.maxStoredBytes / 2)
            unsentStore = try JSONLinesReportStore(
                fileURL: folder.appendingPathComponent("unsent.jsonl"),
                maxBytes: storeBytes, logger: logger)
            batchFolder = folder.appendingPathComponent("batches", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: batchFolder, withIntermediateDirectories: true)
            } catch {
                throw UploadError.folder(batchFolder.path, "\(error)")
            }
        } catch {
            UploadFolders.release(folderClaim)
            throw error
        }
        queue = DispatchQueue(label: "CrashShield.upload")
        state.withLock { $0.headers = options.headers }
        recover()
        queue.async { [weak self] in self?.pump() }
    }

    deinit {
        transport.invalidate()
        UploadFolders.release(folderClaim)
    }

    /// Replaces `options.headers` for every later request (a renewed token); a batch held because the server refused
    /// the old credentials is sent again at once.
    func setHeaders(_ headers: [String: String]) {
        let resume = state.withLock { state -> Bool in
            state.headers = headers
            state.headersVersion += 1
            guard state.heldForCredentials, !state.closed else { return false }
            state.heldForCredentials = false
            state.retryGeneration += 1  // the pending credential retry does nothing
            state.attempt = 0
            state.busy = false
            return true
        }
        if resume { queue.async { [weak self] in self?.pump() } }
    }

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
            if rules == .sentry, state.queuedCounts[report.signature] != nil,
                !state.unsent.contains(where: { $0.signature == report.signature })
            {
                // Sentry counts events: one per call site and launch (this process). Already batched or sent, the
                // report is not sent again for a count update (`UploadStatistics.coalescedUpdates`).
                state.statistics.coalescedUpdates += 1
                state.queuedCounts[report.signature] = report.occurrences
                return (false, false)
            }
            if let index = state.unsent.firstIndex(where: { $0.signature == report.signature }) {
                state.unsent[index] = report
            } else if state.queuedCount >= options.maxQueuedReports
                && !state.batches.contains(where: { $0.reports.contains { $0.signature == report.signature } })
            {
                state.statistics.droppedReports += 1
                defer { state.loggedDrop = true }
                return (false, !state.loggedDrop)
            } else {
                state.unsent.append(report)
            }
            if state.queuedCounts.count >= 10_000 { state.queuedCounts.removeAll() }
            state.queuedCounts[report.signature] = report.occurrences
            unsentStore.receive(report)  // under the lock: file and memory change together with batch formation
            return (true, false)
        }
        if outcome.logDrop {
            logger.warning(
                "upload queue full (\(options.maxQueuedReports) reports): new reports are dropped until the server takes some"
            )
        }
        // A short wait lets a burst of reports go out in one request.
        if outcome.accepted { queue.asyncAfter(deadline: .now() + options.batchDelay) { [weak self] in self?.pump() } }
    }

    /// Stops sending: cancels the request in flight and pending retries. What is unsent stays on disk for the next
    /// launch. Reports received afterwards are ignored.
    func close() {
        state.withLock { $0.closed = true }
        transport.invalidate()
        UploadFolders.release(folderClaim)
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
        let next = state.withLock { state -> (batch: Batch, limited: Bool, headers: [String: String], version: Int)? in
            guard !state.closed, !state.busy else { return nil }
            if state.batches.isEmpty { formBatches(&state) }
            guard let first = state.batches.first else { return nil }
            state.busy = true
            if let until = state.rateLimitedUntil, until <= Date() { state.rateLimitedUntil = nil }
            return (first, state.rateLimitedUntil != nil, state.headers, state.headersVersion)
        }
        guard let (batch, limited, headers, version) = next else { return }
        if limited {
            // Sentry's rules: what a rate limit covers is discarded, not sent later.
            logger.debug(
                "upload: a Sentry rate limit is in effect; batch \(batch.key) (\(batch.reports.count) reports) discarded"
            )
            finish(batch, statistics: { $0.rateLimitedReports += batch.reports.count })
            return
        }
        let request: URLRequest
        do {
            request = try makeRequest(for: batch, headers: headers)
        } catch {
            logger.error(
                "upload: batch \(batch.key) (\(batch.reports.count) reports) could not be encoded (\(error)); dropped")
            finish(batch, statistics: { $0.droppedReports += batch.reports.count })
            return
        }
        transport.send(request) { [weak self] result in
            guard let self else { return }
            self.queue.async { self.handle(result, for: batch, headersVersion: version) }
        }
    }

    private func makeRequest(for batch: Batch, headers: [String: String]) throws -> URLRequest {
        let encoded = try body(batch.reports, batch.key)
        var request = URLRequest(url: endpoint, timeoutInterval: options.requestTimeout)
        request.httpMethod = "POST"
        request.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue(batch.key, forHTTPHeaderField: Self.idempotencyHeader)
        for (name, value) in encoded.headers.merging(headers, uniquingKeysWith: { _, user in user }) {
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

    private func handle(_ result: Result<UploadResponse, Error>, for batch: Batch, headersVersion: Int) {
        let limit = (try? result.get()).flatMap { retry.rateLimit(of: $0) }
        let attempt = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.statistics.requests += 1
            state.attempt += 1
            if let limit, limit > 0 {
                let until = Date().addingTimeInterval(limit)
                state.rateLimitedUntil = max(state.rateLimitedUntil ?? until, until)
            }
            return state.attempt
        }
        guard let attempt else { return }
        if let limit, limit > 0 {
            logger.warning(
                "upload: Sentry asks for no more events for \(limit) s (rate limit); reports until then are discarded")
        }
        switch retry.outcome(of: result, attempt: attempt) {
        case .delivered:
            finish(batch, statistics: { $0.deliveredReports += batch.reports.count })
        case .rejected(let status, let why):
            logger.error(
                "upload: HTTP \(status) for batch \(batch.key) (\(batch.reports.count) reports) from \(endpoint.absoluteString): \(why); the batch is dropped, not retried"
            )
            finish(batch, statistics: { $0.rejectedBatches += 1 })
        case .credentialsRefused(let status, let delay):
            let age = Date().timeIntervalSince(batch.created)
            if age > options.credentialHoldLimit {
                logger.error(
                    "upload: HTTP \(status) for batch \(batch.key) (\(batch.reports.count) reports): the server has refused the credentials for \(Int(age / 3600)) h, longer than UploadOptions.credentialHoldLimit; the batch is dropped"
                )
                finish(
                    batch,
                    statistics: {
                        $0.credentialRefusals += 1; $0.rejectedBatches += 1
                    })
                return
            }
            logger.error(
                "upload: HTTP \(status) for batch \(batch.key) (\(batch.reports.count) reports): the server refused the credentials (UploadOptions.headers); the batch is kept and sent again in \(Int(delay)) s or at once after setHeaders(_:) (dropped once older than \(Int(options.credentialHoldLimit / 3600)) h)"
            )
            let (generation, renewed) = state.withLock { state -> (Int, Bool) in
                state.statistics.credentialRefusals += 1
                state.heldForCredentials = true
                state.retryGeneration += 1
                return (state.retryGeneration, state.headersVersion != headersVersion)
            }
            // Headers set while the request was under way are tried at once.
            scheduleRetry(after: renewed ? 0 : delay, generation: generation)
        case .retry(let delay):
            logger.debug(
                "upload: batch \(batch.key) attempt \(attempt) failed (\(Self.describe(result))); retry in \(delay) s")
            scheduleRetry(
                after: delay,
                generation: state.withLock { state in
                    state.retryGeneration += 1
                    return state.retryGeneration
                })
        }
    }

    /// Sends `batches[0]` again after `delay`, unless another retry was scheduled (or `setHeaders` resumed) since.
    private func scheduleRetry(after delay: TimeInterval, generation: Int) {
        queue.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            let current = self.state.withLock { state -> Bool in
                guard state.retryGeneration == generation else { return false }
                state.heldForCredentials = false
                state.busy = false
                return true
            }
            if current { self.pump() }
        }
    }

    /// Forgets `batch` (its file too) and goes on with the next one.
    private func finish(_ batch: Batch, statistics update: (inout UploadStatistics) -> Void) {
        state.withLock { state in
            if state.batches.first?.key == batch.key { state.batches.removeFirst() }
            update(&state.statistics)
            state.attempt = 0
            state.busy = false
            state.heldForCredentials = false
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
            let created = Date()
            let millis = String(format: "%013.0f", created.timeIntervalSince1970 * 1000)
            let name = "batch-\(millis)-\(String(format: "%06d", state.sequence))-\(key).jsonl"
            guard
                let batch = writeBatch(
                    reports, key: key, created: created, to: batchFolder.appendingPathComponent(name))
            else {
                return  // could not write: keep the reports unsent (memory and file) and try again later
            }
            state.batches.append(batch)
        }
        state.unsent.removeAll()
        do {
            try unsentStore.removeAll()
        } catch {
            logger.error(
                "upload: could not empty \(unsentStore.fileURL.path) (\(error)); its reports may be sent twice")
        }
        enforceDiskCap(&state)
    }

    private func writeBatch(_ reports: [CrashReport], key: String, created: Date, to url: URL) -> Batch? {
        do {
            let store = try JSONLinesReportStore(fileURL: url, maxBytes: storeBytes, logger: logger)
            for report in reports { store.receive(report) }
            guard store.writeFailures == 0 else {
                JSONLinesReportStore.removeFiles(of: url)
                return nil
            }
            // The store may have compacted an oversized batch: what is on disk is the batch. Nothing there (the file
            // was removed meanwhile): not a batch; its reports stay unsent and are batched again later.
            let written = try store.load().reports
            guard !written.isEmpty else {
                JSONLinesReportStore.removeFiles(of: url)
                return nil
            }
            return Batch(key: key, fileURL: url, reports: written, bytes: Self.size(of: url), created: created)
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
            let parts = name.dropLast(".jsonl".count).split(separator: "-")
            let key = String(parts.last ?? "")
            // batch-<milliseconds since 1970>-<n>-<key>.jsonl
            let created = parts.count > 1 ? Double(parts[1]).map { Date(timeIntervalSince1970: $0 / 1000) } : nil
            do {
                let reports = try JSONLinesReportStore(fileURL: url, maxBytes: storeBytes, logger: logger).load()
                    .reports
                if reports.isEmpty || key.isEmpty { JSONLinesReportStore.removeFiles(of: url); continue }
                batches.append(
                    Batch(
                        key: key, fileURL: url, reports: reports, bytes: Self.size(of: url),
                        created: created ?? Date()))
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
        unsent.removeAll { batched.contains($0) }  // a kill between writing batches and emptying the file
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
    /// Another upload sink of this process uses the folder (or one inside it, or one it is inside): two sinks on one
    /// folder send and delete each other's files.
    case folderInUse(String)

    public var description: String {
        switch self {
        case .invalidEndpoint(let url):
            return
                "'\(url)' is not an http or https URL with a host; pass the full endpoint, such as https://reports.example.com/v1/crashes"
        case .invalidDSN(let dsn, let reason):
            return
                "'\(dsn)' is not a Sentry DSN (\(reason)); copy it from Sentry's project settings (Client Keys): https://<key>@<host>/<project>"
        case .folder(let path, let reason):
            return
                "could not create the upload folder '\(path)' (\(reason)); choose a folder the app can write, such as its caches folder"
        case .folderInUse(let path):
            return
                "the upload folder '\(path)' is used by another upload sink of this process (or lies inside its folder, or holds it); give each sink a folder of its own, or close() the other sink first"
        }
    }
}

/// The folders upload sinks of this process use: one sink per folder. Paths are compared standardized, with symbolic
/// links resolved; a folder inside another sink's folder is refused too.
enum UploadFolders {
    /// Folder -> the claim that holds it.
    private static let inUse = Locked((claims: [String: Int](), next: 0))

    /// A folder held by one sink.
    struct Claim: Sendable {
        let path: String
        let token: Int
    }

    /// Registers `folder` (which exists) for one sink.
    static func claim(_ folder: URL) throws -> Claim {
        let path = folder.standardizedFileURL.resolvingSymlinksInPath().path
        return try inUse.withLock { registry in
            let inside = { (inner: String, outer: String) in inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
            }
            if registry.claims.keys.contains(where: { $0 == path || inside(path, $0) || inside($0, path) }) {
                throw UploadError.folderInUse(path)
            }
            registry.next += 1
            registry.claims[path] = registry.next
            return Claim(path: path, token: registry.next)
        }
    }

    /// Frees the folder (its sink closed or went away); nothing when another sink holds it by now.
    static func release(_ claim: Claim) {
        inUse.withLock { registry in
            if registry.claims[claim.path] == claim.token { registry.claims[claim.path] = nil }
        }
    }
}
