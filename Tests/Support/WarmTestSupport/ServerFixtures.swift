import DemoCatalog
import Servers
import Crawl
import Fetch
import Foundation
import Hummingbird
import Logging
import XCTest

/// A server of the test's own (a Hummingbird router on loopback): an
/// OpenMarket-style API that is not `CatalogServer`, or odd HTTP behaviour.
public typealias FixtureServer = RunningServer

extension RunningServer {
    /// The port bound.
    public var port: Int { baseURL.port ?? 0 }

    /// `pathAndQuery` such as `/api/products?page_no=1`.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery) ?? baseURL
    }

    public static func start(_ router: Router<BasicRequestContext>) async throws -> RunningServer {
        try await start(router: router)
    }
}

public enum TestSettings {
    /// Fast retries so failure tests take milliseconds.
    public static func fetch(maxAttempts: Int = 3, maxBodyBytes: Int = 32 * 1024 * 1024, maxRedirects: Int = 5,
                             requestTimeoutSeconds: Double = 5, deadlineSeconds: Double = 20,
                             maxRetryAfterSeconds: Double = 5) -> FetchConfiguration {
        FetchConfiguration(connectTimeoutSeconds: 2, readTimeoutSeconds: 5, requestTimeoutSeconds: requestTimeoutSeconds,
                           deadlineSeconds: deadlineSeconds, maxAttempts: maxAttempts, backoffBaseSeconds: 0.005,
                           backoffCapSeconds: 0.02, maxRetryAfterSeconds: maxRetryAfterSeconds,
                           maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
    }
}

/// A loopback server a test starts and must shut down.
public protocol ShutDownServer: Sendable {
    func shutdown() async
}

extension CatalogServer: ShutDownServer {}
extension RunningServer: ShutDownServer {}

/// Runs `body` with a started catalog server and fetcher, and shuts both down
/// whatever happens.
/// `logger`: the fetcher's (nil: its default).
public func withCatalog(_ configuration: CatalogConfiguration = TestCatalog.configuration(),
                        fetch: FetchConfiguration = TestSettings.fetch(), logger: Logger? = nil,
                        _ body: (CatalogServer, HTTPFetcher) async throws -> Void) async throws {
    let server = try await CatalogServer.start(configuration: configuration, hooks: CatalogTestHooks())
    try await serving(server, fetch: fetch, logger: logger, body)
}

/// Runs `body` with a fixture server and a fetcher, shutting both down.
public func withFixture(_ router: Router<BasicRequestContext>, fetch: FetchConfiguration = TestSettings.fetch(),
                        _ body: (FixtureServer, HTTPFetcher) async throws -> Void) async throws {
    try await serving(try await FixtureServer.start(router), fetch: fetch, body)
}

/// Runs `body` with `server` and a new fetcher, then shuts both down, also when `body` throws.
private func serving<Server: ShutDownServer>(_ server: Server, fetch: FetchConfiguration, logger: Logger? = nil,
                                          _ body: (Server, HTTPFetcher) async throws -> Void) async throws {
    let fetcher = HTTPFetcher(configuration: fetch, logger: logger)
    do {
        try await body(server, fetcher)
    } catch {
        try? await fetcher.shutdown()
        await server.shutdown()
        throw error
    }
    try await fetcher.shutdown()
    await server.shutdown()
}

/// The error a throwing call threw, failing the test when it did not throw.
public func caught<E: Error>(_ type: E.Type, file: StaticString = #filePath, line: UInt = #line,
                             _ body: () async throws -> Void) async -> E? {
    do {
        try await body()
        XCTFail("expected \(E.self) but nothing was thrown", file: file, line: line)
    } catch let error as E {
        return error
    } catch {
        XCTFail("expected \(E.self) but got \(error)", file: file, line: line)
    }
    return nil
}

/// The first thumbnail URL of the catalog.
public func firstThumbnail(_ server: CatalogServer) async throws -> URL {
    let products = await server.products()
    return try XCTUnwrap(products.lazy.compactMap(\.thumbnailURL).first)
}

/// The downloaded resource, failing when the answer was 304.
public func fetched(_ fetcher: some Fetching, _ url: URL, validators: Validators? = nil) async throws -> FetchedResource {
    let outcome = try await fetcher.get(url, validators: validators)
    return try XCTUnwrap(outcome.resource, "expected a body, got 304")
}

extension FetchError {
    /// The URL concerned (nil only for an invalid URL).
    public var url: URL? {
        switch self {
        case .invalidURL: return nil
        case .httpStatus(let url, _, _), .timeout(let url, _, _), .tooLarge(let url, _, _),
             .connection(let url, _, _), .tooManyRedirects(let url, _), .redirectCycle(let url),
             .deadlineExceeded(let url, _, _, _), .cancelled(let url), .hostNotAllowed(let url, _, _, _):
            return url
        }
    }
}
