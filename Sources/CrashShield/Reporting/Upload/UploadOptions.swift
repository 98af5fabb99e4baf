import Foundation

/// How an upload sink batches, retries and bounds what it keeps. The defaults suit an app; tests shorten the delays.
public struct UploadOptions: Sendable {
    /// Extra request headers, for authentication (`["Authorization": "Bearer ..."]`, an API key header).
    public var headers: [String: String]
    /// Guards whose reports are uploaded. Default: all but `.mainThreadUI`, whose volume would flood a server; its
    /// reports still reach the other sinks (log, store). A report with an unknown category name is uploaded.
    public var uploadedGuards: GuardCategory
    /// Reports per request (at least 1).
    public var maxBatchSize: Int
    /// Seconds a new report waits before it is sent, so that a burst goes out in one request.
    public var batchDelay: TimeInterval
    /// Seconds a request may wait for the server before it counts as failed and is retried.
    public var requestTimeout: TimeInterval
    /// First retry delay; each further failure of the same batch doubles it, up to `maxBackoff`. Each delay is
    /// jittered down to half its value at random so that many devices do not retry in step.
    public var initialBackoff: TimeInterval
    public var maxBackoff: TimeInterval
    /// The longest `Retry-After` honoured; a server asking for more gets this.
    public var maxRetryAfter: TimeInterval
    /// Memory cap: reports queued (not yet accepted by the server) beyond which new reports are dropped and counted.
    /// A count update of a queued report is never dropped (it replaces the unsent one, or follows the batch in flight).
    public var maxQueuedReports: Int
    /// Disk cap, bytes, for the sink's folder: the unsent-report file compacts itself at half of it (oldest reports
    /// go first) and the oldest batches are dropped when the batch files pass the other half.
    public var maxStoredBytes: Int
    /// Compress bodies with gzip (`Content-Encoding: gzip`).
    public var gzip: Bool

    public init(
        headers: [String: String] = [:], uploadedGuards: GuardCategory = GuardCategory.all.subtracting(.mainThreadUI),
        maxBatchSize: Int = 50, batchDelay: TimeInterval = 1, requestTimeout: TimeInterval = 30, initialBackoff: TimeInterval = 2,
        maxBackoff: TimeInterval = 600, maxRetryAfter: TimeInterval = 3600, maxQueuedReports: Int = 1000,
        maxStoredBytes: Int = 2 << 20, gzip: Bool = true
    ) {
        self.headers = headers
        self.uploadedGuards = uploadedGuards
        self.maxBatchSize = maxBatchSize
        self.batchDelay = batchDelay
        self.requestTimeout = requestTimeout
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
        self.maxQueuedReports = maxQueuedReports
        self.maxStoredBytes = maxStoredBytes
        self.gzip = gzip
    }

    /// Whether a report of this category is uploaded.
    func uploads(_ report: CrashReport) -> Bool {
        guard let category = GuardCategory(name: report.category) else { return true }
        return uploadedGuards.contains(category)
    }
}
