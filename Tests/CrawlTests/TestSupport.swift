import CatalogServer
import Crawl
import Fetch
import Foundation
import Hummingbird
import XCTest

/// A server of the test's own (a Hummingbird router on loopback): an
/// OpenMarket-style API that is not `CatalogServer`, or odd HTTP behaviour.
typealias FixtureServer = LoopbackServer

extension LoopbackServer {
    static func start(_ router: Router<BasicRequestContext>) async throws -> LoopbackServer {
        try await start(router: router)
    }
}

/// Counts calls from concurrent handlers.
actor Counter {
    private(set) var counts: [String: Int] = [:]
    @discardableResult
    func increment(_ key: String = "") -> Int {
        counts[key, default: 0] += 1
        return counts[key, default: 0]
    }
    func count(_ key: String = "") -> Int { counts[key, default: 0] }
}

/// Collects what a crawl delivers.
actor Delivered {
    private(set) var products: [Product] = []
    private(set) var batches = 0
    func add(_ batch: [Product]) {
        products += batch
        batches += 1
    }
    var ids: [Int] { products.map(\.id) }
}

enum TestSettings {
    /// Fast retries so failure tests take milliseconds.
    static func fetch(maxAttempts: Int = 3, maxBodyBytes: Int = 32 * 1024 * 1024, maxRedirects: Int = 5,
                      requestTimeoutSeconds: Double = 5, deadlineSeconds: Double = 20,
                      maxRetryAfterSeconds: Double = 5) -> FetchConfiguration {
        FetchConfiguration(connectTimeoutSeconds: 2, readTimeoutSeconds: 5, requestTimeoutSeconds: requestTimeoutSeconds,
                           deadlineSeconds: deadlineSeconds, maxAttempts: maxAttempts, backoffBaseSeconds: 0.005,
                           backoffCapSeconds: 0.02, maxRetryAfterSeconds: maxRetryAfterSeconds,
                           maxRedirects: maxRedirects, maxBodyBytes: maxBodyBytes)
    }

    /// A small catalog of small synthetic images: starts in a fraction of a
    /// second (cutting real photos costs about 0.2 s an image).
    static func catalog(productCount: Int = 120, shape: PageShape = .camelCase, shared: Double = 0.02,
                        withoutThumbnail: Double = 0.03, seed: UInt64 = 7) -> CatalogConfiguration {
        CatalogConfiguration(productCount: productCount, seed: seed, pageShape: shape,
                             sharedThumbnailFraction: shared, withoutThumbnailFraction: withoutThumbnail,
                             photoDirectory: nil, imagePoolSize: 8, imageMix: .miniature)
    }
}

/// Runs `body` with a started catalog server and fetcher, and shuts both down
/// whatever happens.
func withCatalog(_ configuration: CatalogConfiguration = TestSettings.catalog(),
                 fetch: FetchConfiguration = TestSettings.fetch(),
                 _ body: (CatalogServer, HTTPFetcher) async throws -> Void) async throws {
    let server = try await CatalogServer.start(configuration: configuration)
    let fetcher = HTTPFetcher(configuration: fetch)
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

/// Runs `body` with a fixture server and a fetcher, shutting both down.
func withFixture(_ router: Router<BasicRequestContext>, fetch: FetchConfiguration = TestSettings.fetch(),
                 _ body: (FixtureServer, HTTPFetcher) async throws -> Void) async throws {
    let server = try await FixtureServer.start(router)
    let fetcher = HTTPFetcher(configuration: fetch)
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
func caught<E: Error>(_ type: E.Type, file: StaticString = #filePath, line: UInt = #line,
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

/// The thumbnail path of a URL (`/thumbnails/...`).
func path(of url: URL) -> String { url.path }

/// The first thumbnail URL of the catalog.
func firstThumbnail(_ server: CatalogServer) async throws -> URL {
    let products = await server.products()
    return try XCTUnwrap(products.lazy.compactMap(\.thumbnailURL).first)
}

/// The downloaded resource, failing when the answer was 304.
func fetched(_ fetcher: some Fetching, _ url: URL, validators: Validators? = nil) async throws -> FetchedResource {
    let outcome = try await fetcher.get(url, validators: validators)
    return try XCTUnwrap(outcome.resource, "expected a body, got 304")
}
