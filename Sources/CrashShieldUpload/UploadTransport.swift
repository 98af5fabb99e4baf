import CrashShield
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession on Linux
#endif

/// What the server answered to one upload request.
struct UploadResponse: Sendable, Equatable {
    public var statusCode: Int
    /// The `Retry-After` header, as sent (seconds or an HTTP-date), when there was one.
    public var retryAfter: String?
    /// Sentry's `X-Sentry-Rate-Limits` header, as sent, when there was one.
    public var rateLimits: String?

    public init(statusCode: Int, retryAfter: String? = nil, rateLimits: String? = nil) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.rateLimits = rateLimits
    }
}

/// Sends one HTTP request and reports the server's status, or why no answer came (refused, timed out, cut off).
/// `URLSessionUploadTransport` is the real one; tests may wrap it to observe requests.
protocol UploadTransport: AnyObject, Sendable {
    /// Sends `request`; calls `completion` once, on any thread, with the response or the transport error.
    func send(_ request: URLRequest, completion: @escaping @Sendable (Result<UploadResponse, Error>) -> Void)
    /// Cancels what is in flight and releases the transport's resources. Later sends fail.
    func invalidate()
}

/// `UploadTransport` over an ephemeral `URLSession` of its own (no cookies, no cache, no credentials on disk).
final class URLSessionUploadTransport: UploadTransport, @unchecked Sendable {
    private let session: URLSession
    /// Set by `invalidate()`. FoundationNetworking stops the process (fatalError "Session invalidated") when a task is
    /// made on an invalidated session, so making tasks and invalidating take turns under this lock.
    private let invalidated = Locked(false)

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: URLRequest, completion: @escaping @Sendable (Result<UploadResponse, Error>) -> Void) {
        let task = invalidated.withLock { invalidated in
            invalidated
                ? nil
                : session.dataTask(with: request) { _, response, error in
                    completion(Self.result(response, error))
                }
        }
        guard let task else { return completion(.failure(URLError(.cancelled))) }
        task.resume()
        // The whole request must finish within its timeout. URLSession's own timeout is an idle timeout, and on
        // Linux (FoundationNetworking) a server that took the body and then stays silent was waited for past it
        // (measured: 2.5 s with a 1 s timeout); cancelling completes the task with URLError.cancelled.
        DispatchQueue.global().asyncAfter(deadline: .now() + request.timeoutInterval) { [weak task] in task?.cancel() }
    }

    private static func result(_ response: URLResponse?, _ error: Error?) -> Result<UploadResponse, Error> {
        if let error { return .failure(error) }
        guard let http = response as? HTTPURLResponse else { return .failure(URLError(.badServerResponse)) }
        return .success(
            UploadResponse(
                statusCode: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"),
                rateLimits: http.value(forHTTPHeaderField: "X-Sentry-Rate-Limits")))
    }

    public func invalidate() {
        invalidated.withLock { invalidated in
            guard !invalidated else { return }
            invalidated = true
            session.invalidateAndCancel()
        }
    }
}
