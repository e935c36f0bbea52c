import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import WarmSupport

/// The one HTTP client (one per run; call `shutdown()`, AHC traps without it): full-jitter retries or `Retry-After`
/// within `deadlineSeconds`; redirects followed here so that `HostGate` checks and pins each target.
public final class HTTPFetcher: Fetching {
    public let configuration: FetchConfiguration
    let hostGate: HostGate?
    private let client: HTTPClient
    private let pinnedClients: PinnedClients
    private let logger: Logger

    /// Without a `hostGate`, every host may be fetched. Retries are logged at debug.
    public init(configuration: FetchConfiguration = FetchConfiguration(), hostGate: HostGate? = nil, logger: Logger? = nil) {
        self.configuration = configuration
        self.hostGate = hostGate
        self.logger = logger ?? {
            var logger = Logger(label: "warm.fetch")
            logger.logLevel = .warning
            return logger
        }()
        self.client = Self.makeClient(configuration, dnsOverride: [:])
        self.pinnedClients = PinnedClients { dnsOverride in Self.makeClient(configuration, dnsOverride: dnsOverride) }
    }

    static func makeClient(_ configuration: FetchConfiguration, dnsOverride: [String: String]) -> HTTPClient {
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maxConnectionsPerHost)
        // Our retry loop decides: AHC's would hide a refused connection until the connect timeout.
        pool.retryConnectionEstablishment = false
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, // followed in `perform`, each target checked by the host gate
            timeout: .init(connect: Self.amount(configuration.connectTimeoutSeconds),
                           read: Self.amount(configuration.readTimeoutSeconds)),
            connectionPool: pool,
            decompression: .disabled)
        clientConfiguration.httpVersion = .http1Only
        clientConfiguration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// Fetches still running fail; call once, at the end.
    public func shutdown() async throws {
        var firstError: (any Error)?
        do { try await pinnedClients.shutdown() } catch { firstError = error }
        do { try await client.shutdown() } catch { firstError = firstError ?? error }
        if let firstError { throw firstError }
    }

    public func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        guard url.isHTTP else { throw .invalidURL(url.absoluteString) }
        let pin = try await hostGate?.check(url, requested: url)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(configuration.deadlineSeconds)
        var random = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            attempt += 1
            let remaining = deadline - clock.now
            let attemptTimeout = min(.seconds(configuration.requestTimeoutSeconds), remaining)
            let failure: AttemptFailure
            do {
                return try await attemptOnce(url, pin: pin, validators: validators, attempt: attempt, timeout: attemptTimeout)
            } catch {
                failure = error
            }
            let pastDeadline = FetchError.deadlineExceeded(url: url, deadlineSeconds: configuration.deadlineSeconds,
                                                           attempts: attempt, lastFailure: failure.error.description)
            if case .timeout = failure.error, attemptTimeout < .seconds(configuration.requestTimeoutSeconds) {
                throw pastDeadline // the attempt was cut short by the overall deadline, not by its own limit
            }
            if Task.isCancelled { throw .cancelled(url: url) }
            guard failure.error.isRetryable, attempt < configuration.maxAttempts else { throw failure.error }
            let waitSeconds = failure.retryAfterSeconds.map { min($0, configuration.maxRetryAfterSeconds) }
                ?? configuration.backoffSeconds(afterAttempt: attempt, using: &random)
            guard clock.now + .seconds(waitSeconds) < deadline else { throw pastDeadline }
            logger.debug("Retrying after a failed attempt", metadata: [
                "url": "\(url.absoluteString)", "attempt": "\(attempt)",
                "reason": "\(failure.error.reasonCode)", "waitSeconds": "\(waitSeconds)",
            ])
            do {
                try await Task.sleep(for: .seconds(waitSeconds))
            } catch {
                throw .cancelled(url: url)
            }
        }
    }

    /// One attempt (redirects included), raced against its timeout: AHC's own deadline stops at the response head.
    private func attemptOnce(_ url: URL, pin: PinnedHost?, validators: Validators?, attempt: Int,
                             timeout: Duration) async throws(AttemptFailure) -> FetchOutcome {
        let timeoutSeconds = timeout.inSeconds
        do {
            return try await withThrowingTaskGroup(of: FetchOutcome.self) { group in
                group.addTask {
                    try await self.perform(url, pin: pin, validators: validators, attempt: attempt, timeout: timeout)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw AttemptFailure(error: .timeout(url: url, timeoutSeconds: timeoutSeconds, attempts: attempt))
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
        } catch let failure as AttemptFailure {
            throw failure
        } catch is CancellationError {
            throw AttemptFailure(error: .cancelled(url: url))
        } catch {
            throw AttemptFailure(error: classify(error, url: url, attempt: attempt, timeoutSeconds: timeoutSeconds))
        }
    }

    private func perform(_ url: URL, pin: PinnedHost?, validators: Validators?, attempt: Int,
                         timeout: Duration) async throws -> FetchOutcome {
        let (response, finalURL, redirects) = try await followRedirects(url, pin: pin, validators: validators,
                                                                        attempt: attempt, timeout: timeout)
        let status = Int(response.status.code)
        let headers = response.headers
        if status == 304 {
            try await Self.drain(response.body)
            let sent = validators ?? Validators()
            let refreshed = Validators(etag: headers.first(name: "ETag") ?? sent.etag,
                                       lastModified: headers.first(name: "Last-Modified") ?? sent.lastModified)
            return .notModified(url: url, validators: refreshed, attempts: attempt)
        }
        guard (200...299).contains(status) else {
            try? await Self.drain(response.body)
            let retryAfter = headers.first(name: "Retry-After").flatMap { AttemptFailure.seconds(retryAfter: $0) }
            throw AttemptFailure(error: .httpStatus(url: url, status: status, attempts: attempt),
                                 retryAfterSeconds: retryAfter)
        }
        let body = try await readBody(response, of: url)
        return .fetched(FetchedResource(
            url: url, finalURL: finalURL, status: status, body: body,
            etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"),
            contentType: headers.first(name: "Content-Type"), attempts: attempt, redirects: redirects))
    }

    /// The final response, its URL and the redirects taken.
    private func followRedirects(_ url: URL, pin: PinnedHost?, validators: Validators?, attempt: Int,
                                 timeout: Duration) async throws -> (HTTPClientResponse, URL, Int) {
        var current = url
        var currentPin = pin
        var visited: Set<String> = [url.absoluteString]
        var redirects = 0
        while true {
            let request = makeRequest(current, validators: validators)
            let response = try await execute(request, pin: currentPin, for: url, attempt: attempt, timeout: timeout)
            guard configuration.maxRedirects > 0, [301, 302, 303, 307, 308].contains(Int(response.status.code)),
                  let location = response.headers.first(name: "Location") else { return (response, current, redirects) }
            try? await Self.drain(response.body)
            redirects += 1
            guard redirects <= configuration.maxRedirects else {
                throw FetchError.tooManyRedirects(url: url, maxRedirects: configuration.maxRedirects)
            }
            guard let next = URL(string: location, relativeTo: current)?.absoluteURL, next.isHTTP else {
                throw FetchError.connection(url: url, reason: "it redirects to \"\(location)\", which is not an http(s) URL",
                                            attempts: attempt)
            }
            guard visited.insert(next.absoluteString).inserted else { throw FetchError.redirectCycle(url: url) }
            currentPin = try await hostGate?.check(next, requested: url)
            current = next
        }
    }

    private func makeRequest(_ url: URL, validators: Validators?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: "*/*")
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified {
            request.headers.add(name: "If-Modified-Since", value: lastModified)
        }
        return request
    }

    private func readBody(_ response: HTTPClientResponse, of url: URL) async throws -> Data {
        let limit = configuration.maxBodyBytes
        let declared = response.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let declared, declared > limit {
            throw AttemptFailure(error: .tooLarge(url: url, limitBytes: limit, declaredBytes: declared))
        }
        var body = Data()
        if let declared { body.reserveCapacity(declared) }
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= limit else {
                // Leaving the loop releases the stream, which cancels the download.
                throw AttemptFailure(error: .tooLarge(url: url, limitBytes: limit, declaredBytes: declared))
            }
            body.append(contentsOf: chunk.readableBytesView)
        }
        // A cancelled stream may end early without an error; never pass that off as a body.
        try Task.checkCancellation()
        return body
    }

    private func execute(_ request: HTTPClientRequest, pin: PinnedHost?, for url: URL, attempt: Int,
                         timeout: Duration) async throws -> HTTPClientResponse {
        let deadline = Self.amount(timeout.inSeconds)
        guard let pin else { return try await client.execute(request, timeout: deadline, logger: logger) }
        let address = pin.address(forAttempt: attempt)
        guard let pinned = await pinnedClients.client(host: pin.host, address: address) else {
            throw FetchError.cancelled(url: url)
        }
        do {
            return try await pinned.execute(request, timeout: deadline, logger: logger)
        } catch let error where !(error is CancellationError) {
            let failure = classify(error, url: url, attempt: attempt, timeoutSeconds: timeout.inSeconds)
            guard case .connection(let failedURL, let reason, let attempts) = failure else { throw error }
            throw FetchError.connection(
                url: failedURL, reason: "\(reason) (connecting to \(address.text), the address \(pin.host) was checked at)",
                attempts: attempts)
        }
    }

    /// A small body is read so the connection goes back to the pool; a large one is abandoned (closing it).
    private static func drain(_ body: HTTPClientResponse.Body) async throws {
        var drained = 0
        for try await chunk in body {
            drained += chunk.readableBytes
            if drained > 64 * 1024 { return }
        }
    }

    private func classify(_ error: any Error, url: URL, attempt: Int, timeoutSeconds: Double) -> FetchError {
        if let error = error as? FetchError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout:
                return .timeout(url: url, timeoutSeconds: configuration.connectTimeoutSeconds, attempts: attempt)
            case .readTimeout:
                return .timeout(url: url, timeoutSeconds: configuration.readTimeoutSeconds, attempts: attempt)
            case .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout:
                return .timeout(url: url, timeoutSeconds: timeoutSeconds, attempts: attempt)
            case .invalidURL, .emptyHost, .emptyScheme:
                return .invalidURL(url.absoluteString)
            default:
                return .connection(url: url, reason: error.description, attempts: attempt)
            }
        }
        return .connection(url: url, reason: String(describing: error), attempts: attempt)
    }

    private static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(max(0, seconds) * 1_000_000_000))
    }
}

struct AttemptFailure: Error {
    var error: FetchError
    var retryAfterSeconds: Double?

    /// `Retry-After`: delta-seconds or an HTTP date in any of its forms (IMF-fixdate, and the obsolete RFC 850 and
    /// asctime), as seconds from `now`.
    static func seconds(retryAfter value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds.isFinite { return max(0, seconds) }
        if let seconds = HTTPDateText.parse(trimmed) { return max(0, Double(seconds) - now.timeIntervalSince1970) }
        // DateFormatter is not Sendable; a fresh one per call is fine at the rate of Retry-After headers.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }
}
