import CrashShield
import Foundation

/// How an upload sink batches, retries and bounds what it keeps. The defaults suit an app; tests shorten the delays.
///
/// A sink validates its options when it is created (`validate()`) and throws `CrashShieldError.invalidConfiguration`,
/// naming the field and its range, for a value that would make it flood the server or never send: a batch size,
/// queue or disk cap below 1, a delay or timeout that is zero, negative, NaN or infinite, a backoff below
/// `minimumBackoff`.
public struct UploadOptions: Sendable {
    /// Extra request headers, for authentication (`["Authorization": "Bearer ..."]`, an API key header).
    public var headers: [String: String]
    /// Guards whose reports are uploaded. Default: all but `.mainThreadUI`, whose volume would flood a server; its
    /// reports still reach the other sinks (log, store). A report with an unknown category name is uploaded.
    public var uploadedGuards: GuardCategory
    /// Reports per request (1 to `maximumBatchSize`).
    public var maxBatchSize: Int
    /// Seconds a new report waits before it is sent, so that a burst goes out in one request (more than 0, at most
    /// an hour).
    public var batchDelay: TimeInterval
    /// Seconds a request may wait for the server before it counts as failed and is retried (`minimumRequestTimeout`
    /// to an hour).
    public var requestTimeout: TimeInterval
    /// First retry delay; each further failure of the same batch doubles it, up to `maxBackoff`. Each delay is
    /// jittered down to half its value at random so that many devices do not retry in step. At least
    /// `minimumBackoff`.
    public var initialBackoff: TimeInterval
    /// The longest retry delay: at least `minimumMaxBackoff` and `initialBackoff`, at most a day. It bounds how often
    /// a sink asks a failing server: at most one request per `maxBackoff / 2` once the backoff has grown.
    public var maxBackoff: TimeInterval
    /// The longest `Retry-After` (or Sentry rate limit) honoured; a server asking for more gets this (1 s to a day).
    public var maxRetryAfter: TimeInterval
    /// `HTTPUploadSink`: after the server refused the credentials (401, 403), the batch is kept and tried again after
    /// this many seconds (a token may be renewed; `UploadSink.setHeaders(_:)` retries at once). At least
    /// `initialBackoff`, at most a day.
    public var credentialRetryDelay: TimeInterval
    /// `HTTPUploadSink`: a batch the server keeps refusing for credentials is dropped, with one log line, once it is
    /// older than this many seconds (default 7 days; from `credentialRetryDelay` to 90 days).
    public var credentialHoldLimit: TimeInterval
    /// Memory cap: reports queued (not yet accepted by the server) beyond which new reports are dropped and counted
    /// (1 to 1,000,000). A count update of a queued report is never dropped (it replaces the unsent one, or follows
    /// the batch in flight).
    public var maxQueuedReports: Int
    /// Disk cap, bytes, for the sink's folder: the unsent-report file compacts itself at half of it (oldest reports
    /// go first) and the oldest batches are dropped when the batch files pass the other half. At least
    /// `minimumStoredBytes`.
    public var maxStoredBytes: Int
    /// Compress bodies with gzip (`Content-Encoding: gzip`).
    public var gzip: Bool

    /// The shortest `initialBackoff` accepted (10 ms): no shorter retry loop can be configured.
    public static let minimumBackoff: TimeInterval = 0.01
    /// The shortest `maxBackoff` accepted (1 s): a server that keeps failing gets at most about two requests a second.
    public static let minimumMaxBackoff: TimeInterval = 1
    /// The shortest `requestTimeout` accepted (100 ms).
    public static let minimumRequestTimeout: TimeInterval = 0.1
    /// The largest `maxBatchSize` accepted.
    public static let maximumBatchSize = 1000
    /// The smallest `maxStoredBytes` accepted: two of the smallest report files.
    public static let minimumStoredBytes = 2 * JSONLinesReportStore.minimumMaxBytes

    public init(
        headers: [String: String] = [:], uploadedGuards: GuardCategory = GuardCategory.all.subtracting(.mainThreadUI),
        maxBatchSize: Int = 50, batchDelay: TimeInterval = 1, requestTimeout: TimeInterval = 30,
        initialBackoff: TimeInterval = 2,
        maxBackoff: TimeInterval = 600, maxRetryAfter: TimeInterval = 3600, maxQueuedReports: Int = 1000,
        maxStoredBytes: Int = 2 << 20, gzip: Bool = true, credentialRetryDelay: TimeInterval = 3600,
        credentialHoldLimit: TimeInterval = 7 * 86_400
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
        self.credentialRetryDelay = credentialRetryDelay
        self.credentialHoldLimit = credentialHoldLimit
    }

    /// Throws `CrashShieldError.invalidConfiguration` naming the first value out of range and what to set instead.
    /// Upload sinks call it when they are created.
    public func validate() throws {
        func fail(_ text: String) -> CrashShieldError { .invalidConfiguration("UploadOptions.\(text)") }
        func seconds(_ name: String, _ value: TimeInterval, _ range: ClosedRange<TimeInterval>, _ why: String) throws {
            guard value.isFinite, range.contains(value), value > 0 else {
                throw fail("\(name) must be \(Self.describe(range)) seconds (\(why)), got \(value)")
            }
        }
        guard (1...Self.maximumBatchSize).contains(maxBatchSize) else {
            throw fail("maxBatchSize must be 1...\(Self.maximumBatchSize) reports per request, got \(maxBatchSize)")
        }
        try seconds(
            "batchDelay", batchDelay, Double.leastNonzeroMagnitude...3600, "how long a new report waits for others")
        try seconds("requestTimeout", requestTimeout, Self.minimumRequestTimeout...3600, "how long a request may take")
        try seconds(
            "initialBackoff", initialBackoff, Self.minimumBackoff...86_400,
            "the first retry delay; zero would retry a failing server in a tight loop")
        try seconds(
            "maxBackoff", maxBackoff, max(Self.minimumMaxBackoff, initialBackoff)...86_400,
            "the longest retry delay, at least initialBackoff")
        try seconds("maxRetryAfter", maxRetryAfter, 1...86_400, "the longest Retry-After honoured")
        try seconds(
            "credentialRetryDelay", credentialRetryDelay, initialBackoff...86_400,
            "the wait after the server refused the credentials, at least initialBackoff")
        try seconds(
            "credentialHoldLimit", credentialHoldLimit, credentialRetryDelay...(90 * 86_400),
            "how long a batch refused for its credentials is kept, at least credentialRetryDelay")
        guard (1...1_000_000).contains(maxQueuedReports) else {
            throw fail("maxQueuedReports must be 1...1000000, got \(maxQueuedReports)")
        }
        guard maxStoredBytes >= Self.minimumStoredBytes else {
            throw fail("maxStoredBytes must be at least \(Self.minimumStoredBytes) bytes, got \(maxStoredBytes)")
        }
        let unknown = uploadedGuards.subtracting(.all)
        guard unknown.isEmpty else {
            throw fail(
                "uploadedGuards: bits 0x\(String(unknown.rawValue, radix: 16)) name no guard (known: \(GuardCategory.all.name))"
            )
        }
    }

    private static func describe(_ range: ClosedRange<TimeInterval>) -> String {
        range.lowerBound == .leastNonzeroMagnitude
            ? "more than 0 and at most \(Self.text(range.upperBound))"
            : "\(Self.text(range.lowerBound))...\(Self.text(range.upperBound))"
    }

    private static func text(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : "\(value)"
    }

    /// Whether a report of this category is uploaded.
    func uploads(_ report: CrashReport) -> Bool { uploadedGuards.contains(report.category) }
}
