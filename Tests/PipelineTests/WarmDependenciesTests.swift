@testable import Cache
import CacheTestSupport
@testable import Downsample
@testable import Fetch
import Foundation
import Logging
import NIOPosix
@testable import Pipeline
@testable import WarmSupport
import XCTest

/// Runs built from parts handed in (`WarmDependencies.init`): no HTTP, no
/// server, a clock the test sets. What the HTTP client does is pinned in the
/// Fetch and pipeline tests that start real servers.
final class WarmDependenciesTests: XCTestCase {
    private var directory: URL!
    private var pool: NIOThreadPool!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("warm-deps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
    }

    override func tearDown() async throws {
        try await pool.shutdownGracefully()
        try? FileManager.default.removeItem(at: directory)
    }

    private static let api = URL(string: "http://catalog.test")!
    private static func imageURL(_ name: String) -> String { "http://img.test/\(name).jpg" }

    private func configuration(pruneAfterSeconds: Double? = nil) -> WarmConfiguration {
        WarmConfiguration(source: .openMarket(api: Self.api), cacheDirectory: directory.path, thumbnails: .init(sizes: [64]),
                          freshness: .init(pruneAfterSeconds: pruneAfterSeconds),
                          fetching: .init(itemsPerPage: 2, concurrency: 3), decoding: .init(concurrency: 2))
    }

    /// One run with `fetcher` at `now`; returns its summary.
    private func run(_ configuration: WarmConfiguration, _ fetcher: InMemoryFetcher, cache: DiskCache,
                     now: Date = Date(), decoder: any ThumbnailDecoding = InProcessDecoder(concurrency: 2)) async throws -> WarmSummary {
        let dependencies = WarmDependencies(fetcher: fetcher, hostGate: nil, cache: CacheIO(cache: cache, pool: pool),
                                            decoder: decoder, now: { now }, release: { await decoder.shutdown() })
        let summary = try await WarmPipeline(configuration: configuration, dependencies: dependencies,
                                             logger: Logger(label: "test"), progressBar: false).run()
        await dependencies.close()
        return summary
    }

    func testAFakeFetcherRunWarmsEveryImageRecordsTheMissingOneAndMergesSharedProducts() async throws {
        let images = try ["a", "b", "c"].enumerated().reduce(into: [String: Data]()) { images, item in
            images[Self.imageURL(item.element)] = try Self.jpeg(seed: UInt64(item.offset + 1))
        }
        // Products 1 and 2 share a; 5's image is not there (404).
        let fetcher = InMemoryFetcher(api: Self.api, products: [
            (1, Self.imageURL("a")), (2, Self.imageURL("a")), (3, Self.imageURL("b")),
            (4, Self.imageURL("c")), (5, Self.imageURL("gone")),
        ], images: images)
        let cache = try DiskCache.open(root: directory.path)
        defer { try? cache.close() }

        let summary = try await run(configuration(), fetcher, cache: cache)

        XCTAssertEqual(summary.pagesFetched, 3)
        XCTAssertEqual(summary.imagesScheduled, 4)
        XCTAssertEqual(summary.imagesDownloaded, 3)
        XCTAssertEqual(summary.failedByReason, ["http-404": 1])
        XCTAssertEqual(summary.productsSharingAThumbnail, 2)
        let variant = CacheVariant(longestSide: 64, format: .jpeg)
        for url in images.keys {
            let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant, recordingAccess: false), url)
            XCTAssertTrue(entry.fileIsPresent, url)
            XCTAssertEqual(max(entry.outputWidth ?? 0, entry.outputHeight ?? 0), 64, url)
        }
        XCTAssertEqual(try cache.lookup(url: Self.imageURL("a"), variant: variant)?.productIds, [1, 2])
        let missing = try XCTUnwrap(try cache.lookup(url: Self.imageURL("gone"), variant: variant, recordingAccess: false))
        XCTAssertFalse(missing.fileIsPresent)
        XCTAssertNotNil(missing.lastError)
    }

    func testEachImageIsStoredUnderTheVariantOfItsFormatAndSizeWhateverOrderTheDecoderReturns() async throws {
        let url = Self.imageURL("a")
        let fetcher = InMemoryFetcher(api: Self.api, products: [(1, url)], images: [url: try Self.jpeg(seed: 1)])
        let cache = try DiskCache.open(root: directory.path)
        defer { try? cache.close() }
        var configuration = configuration()
        // The source is 320x240, so 400 is not upscaled; a repeated format is one variant.
        configuration.thumbnails.sizes = [64, 128, 400]
        configuration.thumbnails.formats = [.webp, .jpeg, .webp]

        let summary = try await run(configuration, fetcher, cache: cache, decoder: ReversingDecoder(concurrency: 2))

        XCTAssertEqual(summary.imagesDownloaded, 1)
        XCTAssertEqual(summary.imagesFailed, 0)
        for side in [64, 128, 400] {
            for format in [OutputFormat.webp, .jpeg] {
                let variant = CacheVariant(longestSide: side, format: format)
                let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant, recordingAccess: false), "\(variant)")
                let stored = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(entry.absolutePath, "\(variant)")))
                let header = try ImageSource(data: stored).header
                XCTAssertEqual(header.format.rawValue, format.rawValue, "\(variant) holds another format's image")
                XCTAssertEqual(max(header.width, header.height), min(side, 320), "\(variant) holds another size's image")
                XCTAssertEqual(max(entry.outputWidth ?? 0, entry.outputHeight ?? 0), min(side, 320), "\(variant)")
            }
        }
    }

    func testAnImageNoProductListsForLongerThanPruneAfterLeavesTheCacheByTheRunsClock() async throws {
        let images = [Self.imageURL("kept"): try Self.jpeg(seed: 7), Self.imageURL("dropped"): try Self.jpeg(seed: 8)]
        let cache = try DiskCache.open(root: directory.path)
        defer { try? cache.close() }
        let week = 7.0 * 86_400
        let first = InMemoryFetcher(api: Self.api, products: [(1, Self.imageURL("kept")), (2, Self.imageURL("dropped"))],
                                    images: images)
        _ = try await run(configuration(pruneAfterSeconds: week), first, cache: cache)
        let variant = CacheVariant(longestSide: 64, format: .jpeg)
        XCTAssertNotNil(try cache.lookup(url: Self.imageURL("dropped"), variant: variant, recordingAccess: false))

        // Product 2 left the catalog. Six days later nothing goes; eight days later its image does.
        let second = InMemoryFetcher(api: Self.api, products: [(1, Self.imageURL("kept"))], images: images)
        let sixDays = try await run(configuration(pruneAfterSeconds: week), second, cache: cache,
                                    now: Date().addingTimeInterval(6 * 86_400))
        XCTAssertEqual(sixDays.prunedEntries, 0)
        let eightDays = try await run(configuration(pruneAfterSeconds: week), second, cache: cache,
                                      now: Date().addingTimeInterval(8 * 86_400))
        XCTAssertEqual(eightDays.prunedEntries, 1)
        XCTAssertNil(try cache.lookup(url: Self.imageURL("dropped"), variant: variant, recordingAccess: false))
        XCTAssertNotNil(try cache.lookup(url: Self.imageURL("kept"), variant: variant, recordingAccess: false))
    }

    private static func jpeg(seed: UInt64) throws -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: 320, height: 240, seed: seed), width: 320, height: 240,
                                 bands: 3, as: CompositionEncoding(format: .jpeg))
    }
}

/// A `Fetching` that answers from memory: the product list in camelCase
/// pages (`?page_no=&items_per_page=`) and the images it holds; any other
/// URL is a 404.
actor InMemoryFetcher: Fetching {
    let api: URL
    let products: [(id: Int, thumbnail: String)]
    let images: [String: Data]

    init(api: URL, products: [(id: Int, thumbnail: String)], images: [String: Data]) {
        self.api = api
        self.products = products
        self.images = images
    }

    func get(_ url: URL, validators: Validators?) async throws(FetchError) -> FetchOutcome {
        let body: Data
        if url.host == api.host {
            body = page(url)
        } else if let image = images[url.absoluteString] {
            body = image
        } else {
            throw .httpStatus(url: url, status: 404, attempts: 1)
        }
        return .fetched(FetchedResource(url: url, finalURL: url, status: 200, body: body, etag: "\"\(body.count)\"",
                                        lastModified: nil, contentType: nil, attempts: 1, redirects: 0))
    }

    private func page(_ url: URL) -> Data {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let pageNo = query.first { $0.name == "page_no" }.flatMap { Int($0.value ?? "") } ?? 1
        let perPage = query.first { $0.name == "items_per_page" }.flatMap { Int($0.value ?? "") } ?? 100
        let slice = products.dropFirst((pageNo - 1) * perPage).prefix(perPage)
        let entries = slice.map { "{\"id\": \($0.id), \"thumbnail\": \"\($0.thumbnail)\"}" }.joined(separator: ",")
        return Data("{\"pageNo\": \(pageNo), \"itemsPerPage\": \(perPage), \"totalCount\": \(products.count), \"pages\": [\(entries)]}".utf8)
    }
}
