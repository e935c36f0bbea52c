import Foundation

/// Defaults suit a nightly crawl: a few patient retries, and a deadline so one stuck URL cannot hold a run.
public struct FetchConfiguration: Sendable, Hashable {
    public var connectTimeoutSeconds: Double
    /// Longest silence while waiting for the next bytes of a response.
    public var readTimeoutSeconds: Double
    /// One attempt, from sending the request to the last body byte.
    public var requestTimeoutSeconds: Double
    /// A whole fetch: every attempt, redirect and backoff wait.
    public var deadlineSeconds: Double
    /// The first one included (1 disables retries).
    public var maxAttempts: Int
    /// Attempt n waits a random time in 0..<min(cap, base * 2^(n-1)) ("full jitter").
    var backoffBaseSeconds: Double
    var backoffCapSeconds: Double
    /// A longer `Retry-After` is shortened to this.
    var maxRetryAfterSeconds: Double
    /// 0 refuses every redirect.
    var maxRedirects: Int
    /// A download stops as soon as it goes past this.
    public var maxBodyBytes: Int
    /// Sent with every request.
    public var userAgent: String
    /// Soft limit of pooled HTTP/1 connections.
    var maxConnectionsPerHost: Int

    public init(
        connectTimeoutSeconds: Double = 5,
        readTimeoutSeconds: Double = 15,
        requestTimeoutSeconds: Double = 30,
        deadlineSeconds: Double = 90,
        maxAttempts: Int = 4,
        backoffBaseSeconds: Double = 0.25,
        backoffCapSeconds: Double = 8,
        maxRetryAfterSeconds: Double = 30,
        maxRedirects: Int = 5,
        maxBodyBytes: Int = 32 * 1024 * 1024,
        userAgent: String = "warm/1.0 (thumbnail cache warmer)",
        maxConnectionsPerHost: Int = 8
    ) {
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.readTimeoutSeconds = readTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.deadlineSeconds = deadlineSeconds
        self.maxAttempts = max(1, maxAttempts)
        self.backoffBaseSeconds = max(0, backoffBaseSeconds)
        self.backoffCapSeconds = max(0, backoffCapSeconds)
        self.maxRetryAfterSeconds = max(0, maxRetryAfterSeconds)
        self.maxRedirects = max(0, maxRedirects)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.userAgent = userAgent
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
    }

    /// The wait after attempt `attempt` (1-based) failed in a retryable way.
    func backoffSeconds<R: RandomNumberGenerator>(afterAttempt attempt: Int, using generator: inout R) -> Double {
        let exponent = min(max(0, attempt - 1), 30)
        let ceiling = min(backoffCapSeconds, backoffBaseSeconds * Double(1 << exponent))
        guard ceiling > 0 else { return 0 }
        return Double.random(in: 0..<ceiling, using: &generator)
    }
}
