import CrashShieldRuntime.Internal
import Foundation

/// What to do with a batch after the server answered (or did not).
enum UploadOutcome: Equatable {
    /// Accepted (2xx): forget the batch.
    case delivered
    /// Try again after this many seconds.
    case retry(after: TimeInterval)
    /// The server rejected the batch itself (4xx other than 408/429): retrying cannot help.
    case rejected(status: Int)
}

/// Retry decisions: exponential backoff with jitter, and the server's `Retry-After`.
struct RetryPolicy {
    var initialBackoff: TimeInterval
    var maxBackoff: TimeInterval
    var maxRetryAfter: TimeInterval

    /// The outcome of `attempt` (1 for the first failure of a batch).
    func outcome(of result: Result<UploadResponse, Error>, attempt: Int, now: Date = Date()) -> UploadOutcome {
        guard case .success(let response) = result else { return .retry(after: backoff(attempt: attempt)) }
        switch response.statusCode {
        case 200..<300:
            return .delivered
        case 429, 503:
            if let header = response.retryAfter, let seconds = Self.retryAfterSeconds(header, now: now) {
                return .retry(after: min(seconds, maxRetryAfter))
            }
            return .retry(after: backoff(attempt: attempt))
        case 408, 500..<600:
            return .retry(after: backoff(attempt: attempt))
        case 400..<500:
            return .rejected(status: response.statusCode)
        default:   // 1xx/3xx reaching here: the endpoint is misconfigured or redirected oddly; try later
            return .retry(after: backoff(attempt: attempt))
        }
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
    private static let httpDateFormats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz",
                                          "EEE MMM d HH:mm:ss yyyy"]
}

/// gzip through zlib (CSRGzip.c).
enum Gzip {
    static func compress(_ data: Data) -> Data? {
        data.withUnsafeBytes { raw -> Data? in
            var length = 0
            guard let output = csr_gzip(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &length) else { return nil }
            return Data(bytesNoCopy: output, count: length, deallocator: .free)
        }
    }
}
