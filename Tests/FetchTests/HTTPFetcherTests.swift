@testable import DemoCatalog
@testable import Servers
@testable import Fetch
import Foundation
import Hummingbird
import WarmTestSupport
import XCTest

final class HTTPFetcherTests: XCTestCase {
    func testThumbnailIsFetchedWithValidatorsAndContentType() async throws {
        try await withCatalog { server, fetcher in
            let url = try await firstThumbnail(server)
            let resource = try await fetched(fetcher, url)
            XCTAssertEqual(resource.status, 200)
            XCTAssertEqual(resource.attempts, 1)
            XCTAssertNotNil(resource.etag)
            XCTAssertNotNil(resource.lastModified)
            XCTAssertTrue(resource.contentType?.hasPrefix("image/") == true, "\(resource.contentType ?? "nil")")
            XCTAssertGreaterThan(resource.body.count, 100)
            XCTAssertTrue(resource.etag?.hasPrefix("\"") == true, "a strong ETag is quoted")
        }
    }

    func testNotModifiedOn304WithStoredETag() async throws {
        try await withCatalog { server, fetcher in
            let url = try await firstThumbnail(server)
            let first = try await fetched(fetcher, url)
            let etagOnly = Validators(etag: first.etag)
            guard case .notModified(_, let validators, let attempts) = try await fetcher.get(url, validators: etagOnly) else {
                return XCTFail("a matching ETag must give 304")
            }
            XCTAssertEqual(validators.etag, first.etag)
            XCTAssertEqual(attempts, 1)

            let dateOnly = Validators(lastModified: first.lastModified)
            guard case .notModified = try await fetcher.get(url, validators: dateOnly) else {
                return XCTFail("If-Modified-Since at Last-Modified must give 304")
            }
            let stale = Validators(etag: "\"0000000000000000\"")
            let refreshed = try await fetcher.get(url, validators: stale)
            XCTAssertNotNil(refreshed.resource, "a stale ETag must get the body")

            let stats = await server.stats.snapshot()
            XCTAssertEqual(stats.notModifiedResponses, 2)
            XCTAssertEqual(stats.requests(path: url.path), 4)
        }
    }

    func testServerErrorIsRetriedThenSucceeds() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 4)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.failNext(path: url.path, count: 2, status: 503)
            let resource = try await fetched(fetcher, url)
            XCTAssertEqual(resource.attempts, 3)
            let stats = await server.stats.snapshot()
            XCTAssertEqual(stats.requests(path: url.path), 3)
            XCTAssertEqual(stats.faultsServed, 2)
        }
    }

    func testServerErrorThatPersistsFailsAfterMaxAttempts() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 3)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.failNext(path: url.path, count: 10, status: 500)
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error, .httpStatus(url: url, status: 500, attempts: 3))
            XCTAssertEqual(error?.reasonCode, "http-5xx")
            XCTAssertEqual(error?.description, "\(url.absoluteString) answered HTTP 500 after 3 attempts.")
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 3)
        }
    }

    func testNotFoundIsNotRetried() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 4)) { server, fetcher in
            let url = server.baseURL.appendingPathComponent("thumbnails/20230323/00000000000000000000000000000000_thumb")
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error, .httpStatus(url: url, status: 404, attempts: 1))
            XCTAssertEqual(error?.reasonCode, "http-404")
            XCTAssertEqual(error?.isRetryable, false)
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 1)
        }
    }

    func testTooManyRequestsIsRetried() async throws {
        try await withCatalog { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.failNext(path: url.path, count: 1, status: 429)
            let outcome = try await fetcher.get(url)
            XCTAssertEqual(outcome.attempts, 2)
        }
    }

    /// The waits the fetcher chose before its retries (its debug line "Retrying after a failed attempt"), in seconds.
    private static func retryWaits(_ log: CapturedLog) -> [Double] {
        log.entries.filter { $0.message == "Retrying after a failed attempt" }.compactMap { $0.metadata["waitSeconds"].flatMap(Double.init) }
    }

    func testRetryAfterIsHonoured() async throws {
        let log = CapturedLog(level: .debug)
        try await withCatalog(logger: log.logger) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.failNext(path: url.path, count: 1, status: 503, retryAfter: "1")
            let outcome = try await fetcher.get(url)
            XCTAssertEqual(outcome.attempts, 2)
            // Backoff alone would wait at most 20 ms.
            XCTAssertEqual(Self.retryWaits(log), [1], "the wait is the server's Retry-After")
        }
    }

    func testRetryAfterAsHTTPDateIsCapped() async throws {
        let log = CapturedLog(level: .debug)
        try await withCatalog(fetch: TestSettings.fetch(maxRetryAfterSeconds: 0.4), logger: log.logger) { server, fetcher in
            let url = try await firstThumbnail(server)
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let inAnHour = formatter.string(from: Date().addingTimeInterval(3600))
            await server.failNext(path: url.path, count: 1, status: 503, retryAfter: inAnHour)
            let outcome = try await fetcher.get(url)
            XCTAssertEqual(outcome.attempts, 2)
            XCTAssertEqual(Self.retryWaits(log), [0.4], "the date must be understood (an hour away), then capped")
        }
    }

    func testDeadlineBoundsTheWholeFetch() async throws {
        let settings = TestSettings.fetch(maxAttempts: 10, deadlineSeconds: 0.5, maxRetryAfterSeconds: 5)
        let log = CapturedLog(level: .debug)
        try await withCatalog(fetch: settings, logger: log.logger) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.failNext(path: url.path, count: 10, status: 503, retryAfter: "2")
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error?.reasonCode, "deadline")
            // A wait of 2 s cannot end before a deadline of 0.5 s: the fetch gives up at once instead of sleeping.
            XCTAssertEqual(Self.retryWaits(log), [], "no retry was waited for")
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 1, "one attempt, no retry")
            XCTAssertTrue(error?.description.contains("after 1 attempt;") == true, error?.description ?? "")
            XCTAssertTrue(error?.description.contains("HTTP 503") == true, error?.description ?? "")
        }
    }

    func testSlowResponseTimesOutAndIsRetried() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 2, requestTimeoutSeconds: 0.3)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.injectFault(.delay(seconds: 1), path: url.path, count: 1)
            let outcome = try await fetcher.get(url)
            XCTAssertEqual(outcome.attempts, 2)
        }
    }

    func testSlowResponseFailsAsTimeout() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 1, requestTimeoutSeconds: 0.3)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.injectFault(.delay(seconds: 1), path: url.path, count: 1)
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error, .timeout(url: url, timeoutSeconds: 0.3, attempts: 1))
        }
    }

    func testBodyOverLimitIsRefused() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxBodyBytes: 1000)) { server, fetcher in
            let url = try await firstThumbnail(server)
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            guard case .tooLarge(_, let limit, let declared)? = error else {
                return XCTFail("expected tooLarge, got \(String(describing: error))")
            }
            XCTAssertEqual(limit, 1000)
            XCTAssertGreaterThan(declared ?? 0, 1000)
            XCTAssertEqual(error?.reasonCode, "too-large")
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 1, "a body that is too large is not retried")
        }
    }

    func testStreamedBodyOverLimitIsCutOff() async throws {
        let router = Router()
        let chunk = ByteBuffer(repeating: 0x41, count: 16 * 1024)
        let events = Counter()
        router.get("endless") { _, _ in
            // No Content-Length, so the client only finds out by counting; 32 MiB
            // at a few ms a chunk would take seconds if the client read it all.
            Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody { writer in
                do {
                    for _ in 0..<2048 {
                        try await writer.write(chunk)
                        await events.increment("written")
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    try await writer.finish(nil)
                } catch {
                    await events.increment("closed")
                    throw error
                }
            })
        }
        try await withFixture(router, fetch: TestSettings.fetch(maxBodyBytes: 100_000)) { server, fetcher in
            let url = server.url("/endless")
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error, .tooLarge(url: url, limitBytes: 100_000, declaredBytes: nil))
            for _ in 0..<100 where await events.count("closed") == 0 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let closed = await events.count("closed")
            let written = await events.count("written")
            XCTAssertEqual(closed, 1, "the client must drop the connection, not read on")
            XCTAssertLessThan(written, 2048)
        }
    }

    func testRedirectIsFollowedAndFinalURLReported() async throws {
        let router = Router()
        router.get("moved") { _, _ in Response.redirect(to: "/final", type: .permanent) }
        router.get("final") { _, _ in "here" }
        try await withFixture(router) { server, fetcher in
            let resource = try await fetched(fetcher, server.url("/moved"))
            XCTAssertEqual(resource.finalURL.path, "/final")
            XCTAssertEqual(resource.url.path, "/moved")
            XCTAssertEqual(resource.redirects, 1)
            XCTAssertEqual(String(decoding: resource.body, as: UTF8.self), "here")
        }
    }

    func testRedirectLoopStopsAtTheCap() async throws {
        let router = Router()
        let hits = Counter()
        router.get("loop/:n") { _, context in
            await hits.increment()
            let n = context.parameters.get("n", as: Int.self) ?? 0
            return Response.redirect(to: "/loop/\(n + 1)")
        }
        try await withFixture(router, fetch: TestSettings.fetch(maxRedirects: 3)) { server, fetcher in
            let url = server.url("/loop/0")
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error, .tooManyRedirects(url: url, maxRedirects: 3))
            XCTAssertEqual(error?.reasonCode, "too-many-redirects")
            let requests = await hits.count()
            XCTAssertEqual(requests, 4, "the first request and three redirects, then stop")
        }
    }

    func testRedirectCycleIsDetected() async throws {
        let router = Router()
        router.get("ping") { _, _ in Response.redirect(to: "/pong") }
        router.get("pong") { _, _ in Response.redirect(to: "/ping") }
        try await withFixture(router) { server, fetcher in
            let url = server.url("/ping")
            let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(error?.reasonCode, "redirect-cycle")
        }
    }

    func testConnectionRefusedIsRetriedThenReported() async throws {
        // A port that was just free: start a server, note its port, stop it.
        let router = Router()
        let closed = try await FixtureServer.start(router)
        let url = closed.url("/anything")
        await closed.shutdown()
        let fetcher = HTTPFetcher(configuration: TestSettings.fetch(maxAttempts: 2))
        let error = await caught(FetchError.self) { _ = try await fetcher.get(url) }
        try await fetcher.shutdown()
        guard case .connection(_, _, let attempts)? = error else {
            return XCTFail("expected a connection error, got \(String(describing: error))")
        }
        XCTAssertEqual(attempts, 2)
        XCTAssertTrue(error?.description.hasPrefix("The connection to \(url.absoluteString) failed") == true)
    }

    func testInvalidURLIsRefusedBeforeAnyRequest() async throws {
        let fetcher = HTTPFetcher()
        let error = await caught(FetchError.self) { _ = try await fetcher.get(URL(string: "ftp://example.com/file")!) }
        try await fetcher.shutdown()
        XCTAssertEqual(error, .invalidURL("ftp://example.com/file"))
        XCTAssertEqual(error?.reasonCode, "invalid-url")
    }

    /// Full jitter: each wait is drawn from 0..<ceiling, the ceiling doubles per
    /// attempt up to the cap. Over 400 seeded draws per attempt the waits stay
    /// under the ceiling, reach into its bottom and top tenths and average half
    /// of it, so a back-off that waited 0, a constant or the ceiling would fail.
    func testBackoffWaitsSpreadOverAFullJitterRangeThatDoublesUpToTheCap() throws {
        let configuration = FetchConfiguration(backoffBaseSeconds: 0.5, backoffCapSeconds: 4)
        var random = SplitMix64(seed: 14)
        let draws = 400
        var means: [Double] = []
        for attempt in 1...8 {
            let ceiling = min(4, 0.5 * Double(1 << (attempt - 1)))
            let waits = (0..<draws).map { _ in configuration.backoffSeconds(afterAttempt: attempt, using: &random) }
            let label = "attempt \(attempt), ceiling \(ceiling) s"
            XCTAssertTrue(waits.allSatisfy { $0 >= 0 && $0 < ceiling }, "\(label): a wait outside 0..<ceiling")
            XCTAssertLessThan(try XCTUnwrap(waits.min()), ceiling * 0.1, label)
            XCTAssertGreaterThan(try XCTUnwrap(waits.max()), ceiling * 0.9, label)
            let mean = waits.reduce(0, +) / Double(draws)
            XCTAssertEqual(mean, ceiling / 2, accuracy: ceiling * 0.1, label)
            means.append(mean)
        }
        // 0.5, 1, 2, then the 4 s cap: each mean about double the one before, until the cap.
        for attempt in 1...3 {
            XCTAssertEqual(means[attempt] / means[attempt - 1], 2, accuracy: 0.4, "attempt \(attempt + 1) against \(attempt)")
        }
        XCTAssertEqual(means[7] / means[3], 1, accuracy: 0.2, "capped from attempt 4 on")
    }
}

extension FetchOutcome {
    var attempts: Int {
        switch self {
        case .fetched(let resource): return resource.attempts
        case .notModified(_, _, let attempts): return attempts
        }
    }
}
