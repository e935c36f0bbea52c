import Foundation

/// Why a fetch failed for good (after any retries it was allowed).
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL(String)
    /// Not 2xx or 304.
    case httpStatus(url: URL, status: Int, attempts: Int)
    /// Connect, read silence or the whole attempt.
    case timeout(url: URL, timeoutSeconds: Double, attempts: Int)
    /// `declaredBytes`: the server's Content-Length when it sent one.
    case tooLarge(url: URL, limitBytes: Int, declaredBytes: Int?)
    /// Refused, reset, closed early, malformed response.
    case connection(url: URL, reason: String, attempts: Int)
    case tooManyRedirects(url: URL, maxRedirects: Int)
    case redirectCycle(url: URL)
    /// The whole fetch, retries included.
    case deadlineExceeded(url: URL, deadlineSeconds: Double, attempts: Int, lastFailure: String)
    case cancelled(url: URL)
    /// The host (or a redirect target's) is not allowed by the run's `HostGate`; no request was made to it.
    case hostNotAllowed(url: URL, host: String, reason: String, redirectedTo: URL?)

    /// A short stable code for reports and metrics ("http-404", "http-5xx", "timeout"...).
    public var reasonCode: String {
        switch self {
        case .invalidURL: return "invalid-url"
        case .httpStatus(_, let status, _): return (500...599).contains(status) ? "http-5xx" : "http-\(status)"
        case .timeout: return "timeout"
        case .tooLarge: return "too-large"
        case .connection: return "connection"
        case .tooManyRedirects: return "too-many-redirects"
        case .redirectCycle: return "redirect-cycle"
        case .deadlineExceeded: return "deadline"
        case .cancelled: return "cancelled"
        case .hostNotAllowed: return "host-not-allowed"
        }
    }

    var isRetryable: Bool {
        switch self {
        case .timeout, .connection: return true
        case .httpStatus(_, let status, _): return status == 429 || (500...599).contains(status)
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let text):
            return "\"\(text)\" is not an http or https URL."
        case .httpStatus(let url, let status, let attempts):
            return "\(url.absoluteString) answered HTTP \(status)\(Self.afterAttempts(attempts))."
        case .timeout(let url, let seconds, let attempts):
            return "\(url.absoluteString) did not answer within \(Self.seconds(seconds))\(Self.afterAttempts(attempts))."
        case .tooLarge(let url, let limit, let declared):
            let size = declared.map { "declares \($0) bytes" } ?? "sent more bytes"
            return "\(url.absoluteString) \(size), over the limit of \(limit) bytes; the download was stopped."
        case .connection(let url, let reason, let attempts):
            return "The connection to \(url.absoluteString) failed\(Self.afterAttempts(attempts)): \(reason)."
        case .tooManyRedirects(let url, let max):
            return "\(url.absoluteString) redirected more than \(max) times."
        case .redirectCycle(let url):
            return "\(url.absoluteString) redirects in a circle."
        case .deadlineExceeded(let url, let seconds, let attempts, let last):
            return "Fetching \(url.absoluteString) ran past its \(Self.seconds(seconds)) deadline after \(attempts) attempt\(attempts == 1 ? "" : "s"); the last failure: \(last)"
        case .cancelled(let url):
            return "Fetching \(url.absoluteString) was cancelled."
        case .hostNotAllowed(let url, let host, let reason, let target):
            let via = target.map { " redirects to \($0.absoluteString), whose host" } ?? "'s host"
            return "\(url.absoluteString)\(via) \(host) is not allowed: \(reason); no request was made to it."
        }
    }

    private static func afterAttempts(_ attempts: Int) -> String {
        attempts > 1 ? " after \(attempts) attempts" : ""
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
