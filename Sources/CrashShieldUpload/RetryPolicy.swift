import CrashShieldGzip
import CrashShield
import Foundation

/// What to do with a batch after the server answered (or did not).
enum UploadOutcome: Equatable {
    /// Accepted (2xx): forget the batch.
    case delivered
    /// Try again after this many seconds.
    case retry(after: TimeInterval)
    /// The server refused the batch and retrying it cannot help (`why` says what the status means): drop it.
    case rejected(status: Int, why: String)
    /// The server refused the credentials (401, 403): keep the batch and try again after this many seconds.
    case credentialsRefused(status: Int, retryAfter: TimeInterval)
}

/// Which server's rules a sink follows.
enum UploadRules: Sendable {
    /// `HTTPUploadSink`: 429/503 with `Retry-After`, 408 and 5xx retried with backoff; 401/403 kept for new
    /// credentials; any other 4xx dropped.
    case http
    /// `SentrySink`, Sentry's SDK rules (develop.sentry.dev/sdk/expected-features, "Dealing With Network Failures",
    /// and /sdk/rate-limiting): 2xx delivered; any 4xx or 5xx discards the envelope, 429 included (its rate limit
    /// applies to what follows); only network errors are retried; `X-Sentry-Rate-Limits` (any response) or a 429's
    /// `Retry-After` (60 s without one) stops sending for the `error` category until it expires.
    case sentry
}

/// Retry decisions: exponential backoff with jitter, the server's `Retry-After`, Sentry's rate limits.
struct RetryPolicy {
    var initialBackoff: TimeInterval
    var maxBackoff: TimeInterval
    var maxRetryAfter: TimeInterval
    var credentialRetryDelay: TimeInterval = 3600
    var rules: UploadRules = .http

    /// Sentry's wait after a 429 that names none (develop.sentry.dev/sdk/rate-limiting).
    static let sentryDefaultRetryAfter: TimeInterval = 60
    /// The Sentry data category of the events CrashShield sends.
    static let sentryCategory = "error"

    /// The outcome of `attempt` (1 for the first failure of a batch).
    func outcome(of result: Result<UploadResponse, Error>, attempt: Int, now: Date = Date()) -> UploadOutcome {
        guard case .success(let response) = result else { return .retry(after: backoff(attempt: attempt)) }
        let status = response.statusCode
        if case .sentry = rules {
            switch status {
            case 200..<300: return .delivered
            case 429: return .rejected(status: status, why: "rate limited: Sentry drops it and asks to wait")
            default: return .rejected(status: status, why: Self.meaning(of: status))
            }
        }
        switch status {
        case 200..<300:
            return .delivered
        case 429, 503:
            if let header = response.retryAfter, let seconds = Self.retryAfterSeconds(header, now: now) {
                return .retry(after: min(seconds, maxRetryAfter))
            }
            return .retry(after: backoff(attempt: attempt))
        case 408, 500..<600:
            return .retry(after: backoff(attempt: attempt))
        case 401, 403:
            return .credentialsRefused(status: status, retryAfter: credentialRetryDelay)
        case 400..<500:
            return .rejected(status: status, why: Self.meaning(of: status))
        default:  // 1xx/3xx reaching here: the endpoint is misconfigured or redirected oddly; try later
            return .retry(after: backoff(attempt: attempt))
        }
    }

    /// What a status that drops a batch means, for its log line.
    static func meaning(of status: Int) -> String {
        switch status {
        case 400, 422: return "the server found the request malformed"
        case 401, 403: return "the server refused the credentials"
        case 404, 410: return "the endpoint does not exist: check its URL"
        case 405: return "the endpoint does not take POST: check its URL"
        case 413: return "the request is too large for the server: lower UploadOptions.maxBatchSize"
        case 415: return "the server does not take this content type or encoding"
        case 500..<600: return "the server failed"
        case 400..<500: return "the server refused the request"
        default: return "the server gave an unexpected answer"
        }
    }

    /// Sentry: how long, from now, nothing more of CrashShield's category may be sent after `response`, if at all.
    /// `X-Sentry-Rate-Limits` takes precedence (the longest limit naming the `error` category or all categories); a
    /// 429 without it waits its `Retry-After`, or 60 s. Capped at `maxRetryAfter`. nil for the HTTP rules.
    func rateLimit(of response: UploadResponse, now: Date = Date()) -> TimeInterval? {
        guard case .sentry = rules else { return nil }
        if let header = response.rateLimits, !header.trimmingCharacters(in: .whitespaces).isEmpty {
            return Self.sentryRateLimit(header, category: Self.sentryCategory).map { min($0, maxRetryAfter) }
        }
        guard response.statusCode == 429 else { return nil }
        let seconds =
            response.retryAfter.flatMap { Self.retryAfterSeconds($0, now: now) } ?? Self.sentryDefaultRetryAfter
        return min(seconds, maxRetryAfter)
    }

    /// `X-Sentry-Rate-Limits: <quota_limit>, <quota_limit>, ...`, each `retry_after:categories:scope:reason_code:...`
    /// (categories `;`-separated, empty for all; scope, reason code and later fields ignored; spaces ignored): the
    /// longest limit that applies to `category`, in seconds. nil when none does.
    static func sentryRateLimit(_ header: String, category: String) -> TimeInterval? {
        var longest: TimeInterval?
        for limit in header.split(separator: ",") {
            let fields = limit.split(separator: ":", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard let seconds = fields.first.flatMap({ TimeInterval($0) }), seconds.isFinite, seconds >= 0 else {
                continue
            }
            let categories =
                fields.count > 1 ? fields[1].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } : []
            guard categories.allSatisfy(\.isEmpty) || categories.contains(category) else { continue }
            longest = max(longest ?? 0, seconds)
        }
        return longest
    }

    /// `initialBackoff * 2^(attempt-1)`, capped at `maxBackoff`, then jittered into [half, full].
    func backoff(attempt: Int, random: Double = Double.random(in: 0...1)) -> TimeInterval {
        let exponent = Double(min(max(attempt - 1, 0), 30))
        let full = min(maxBackoff, initialBackoff * pow(2, exponent))
        return full / 2 + full / 2 * random
    }

    /// `Retry-After` as seconds from `now`: delta-seconds ("120") or an HTTP-date ("Wed, 21 Oct 2015 07:28:00 GMT",
    /// also the obsolete RFC 850 and asctime forms). nil when unparseable; a date in the past gives 0.
    static func retryAfterSeconds(_ header: String, now: Date) -> TimeInterval? {
        let text = header.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text) { return TimeInterval(max(0, seconds)) }
        for format in httpDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// RFC 9110 §5.6.7: IMF-fixdate, RFC 850, asctime.
    private static let httpDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ]
}

/// gzip through zlib (CrashShieldGzip's CSRGzip.c). SPI for the report tool (Tools), which reads gzipped bodies.
@_spi(CrashShieldTools) public enum Gzip {
    public static func compress(_ data: Data) -> Data? {
        data.withUnsafeBytes { raw -> Data? in
            var length = 0
            guard let output = csr_gzip(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &length) else {
                return nil
            }
            return Data(bytesNoCopy: output, count: length, deallocator: .free)
        }
    }

    /// The bytes of a gzip (or zlib) stream; nil when it is not a whole stream or holds more than `limit` bytes.
    public static func decompress(_ bytes: [UInt8], limit: Int) -> [UInt8]? {
        var length = 0
        guard let output = bytes.withUnsafeBufferPointer({ csr_gunzip($0.baseAddress, $0.count, limit, &length) })
        else { return nil }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
