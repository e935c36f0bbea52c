@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
@testable import Downsample
import Foundation
@testable import Pipeline
import WarmTestSupport
import XCTest

/// The main job against a real catalog server on loopback, a real HTTP client
/// and a real SQLite manifest.
final class WarmPipelineTests: XCTestCase {
    func testFullRunWarmsEveryDistinctThumbnailOnceAndTheCacheVerifies() async throws {
        let server = try await TestCatalog.start(products: 90)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let distinct = await TestCatalog.distinctThumbnails(server)
        let listed = await server.products()
        XCTAssertLessThan(distinct.count, listed.compactMap(\.thumbnailURL).count, "the catalog has shared thumbnails")

        let summary = try await WarmPipeline.run(TestCatalog.configuration(server, cache: cacheDirectory), progressBar: false)
        let served = await server.stats.snapshot()
        await server.shutdown()

        XCTAssertEqual(summary.imagesScheduled, distinct.count)
        XCTAssertEqual(summary.imagesDownloaded, distinct.count)
        XCTAssertEqual(summary.imagesFailed, 0)
        XCTAssertEqual(summary.productsWithoutThumbnail, listed.count - listed.compactMap(\.thumbnailURL).count)
        XCTAssertEqual(served.requests(route: "thumbnail"), distinct.count, "shared thumbnail URLs are downloaded once")
        XCTAssertTrue(summary.success)
        XCTAssertEqual(summary.reasonCode, .ok)

        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        XCTAssertEqual(try cache.maintenance.stats().entryCount, distinct.count)
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
        // A product that shares its thumbnail is listed on the cached entry.
        for url in distinct {
            let entry = try XCTUnwrap(try cache.lookup(url: url, variant: CacheVariant(longestSide: 64, format: .jpeg)))
            let ids = Set(listed.filter { $0.thumbnailURL?.absoluteString == url }.map(\.id))
            XCTAssertEqual(Set(entry.productIds), ids, url)
            XCTAssertEqual(max(entry.outputWidth ?? 0, entry.outputHeight ?? 0), 64, url)
        }
    }

    func testSecondRunDownloadsNothingAndDecodesNothing() async throws {
        let server = try await TestCatalog.start(products: 60)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let configuration = TestCatalog.configuration(server, cache: cacheDirectory)
        let first = try await WarmPipeline.run(configuration, progressBar: false)
        await server.stats.reset()
        let second = try await WarmPipeline.run(configuration, progressBar: false)
        let served = await server.stats.snapshot()
        await server.shutdown()

        XCTAssertGreaterThan(first.imagesDownloaded, 0)
        XCTAssertEqual(second.imagesFresh, first.imagesDownloaded)
        XCTAssertEqual(second.imagesDownloaded, 0)
        XCTAssertEqual(second.decodeSeconds, 0)
        XCTAssertEqual(second.bytesDownloaded, 0)
        XCTAssertEqual(served.requests(route: "thumbnail"), 0, "fresh entries cost no request at all")
    }

    func testStaleEntriesAreRevalidatedAnd304CostsNoDownload() async throws {
        let server = try await TestCatalog.start(products: 50)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let first = try await WarmPipeline.run(TestCatalog.configuration(server, cache: cacheDirectory), progressBar: false)
        await server.stats.reset()
        // A shorter --max-age than the entries were stored with makes them stale now.
        let secondStarted = Date().timeIntervalSince1970
        let stale = TestCatalog.configuration(server, cache: cacheDirectory, maxAgeSeconds: 60)
        let second = try await WarmPipeline.run(stale, progressBar: false)
        let secondEnded = Date().timeIntervalSince1970
        let served = await server.stats.snapshot()
        await server.shutdown()

        XCTAssertEqual(second.imagesNotModified, first.imagesDownloaded)
        XCTAssertEqual(second.imagesDownloaded, 0)
        XCTAssertEqual(second.bytesDownloaded, 0)
        XCTAssertEqual(second.decodeSeconds, 0)
        XCTAssertEqual(served.notModifiedResponses, first.imagesDownloaded)
        XCTAssertEqual(served.okResponses - served.requests(route: "products"), 0, "no thumbnail body was sent")
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        let stats = try cache.maintenance.stats()
        XCTAssertEqual(stats.entryCount, first.imagesDownloaded, "a 304 keeps the entry")
        XCTAssertEqual(stats.expiredCount, 0)
        for url in await TestCatalog.distinctThumbnails(server) {
            let entry = try XCTUnwrap(try cache.lookup(url: url, variant: CacheVariant(longestSide: 64, format: .jpeg)))
            let expiresAt = try XCTUnwrap(entry.expiresAt)
            XCTAssertGreaterThanOrEqual(expiresAt, secondStarted + 60 - 1, "the 304 set a new expiry")
            XCTAssertLessThanOrEqual(expiresAt, secondEnded + 60 + 1)
        }
    }

    func testServerErrorsAreRetriedAndTheImageStillArrives() async throws {
        let server = try await TestCatalog.start(products: 30, shared: 0, without: 0)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let firstProduct = await server.products().first
        let victim = try XCTUnwrap(firstProduct?.thumbnailURL)
        await server.failNext(path: victim.path, count: 2, status: 503)
        var configuration = TestCatalog.configuration(server, cache: cacheDirectory)
        configuration.fetching.http = TestCatalog.quickRetries
        let summary = try await WarmPipeline.run(configuration, progressBar: false)
        let served = await server.stats.snapshot()
        await server.shutdown()
        XCTAssertEqual(summary.imagesFailed, 0)
        XCTAssertEqual(served.requests(path: victim.path), 3, "two 503s, then the image")
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        XCTAssertNotNil(try cache.path(for: victim.absoluteString, longestSide: 64))
    }

    func testFailedImageIsRecordedWithItsReasonAndARerunFetchesOnlyIt() async throws {
        let server = try await TestCatalog.start(products: 40, shared: 0, without: 0)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let products = await server.products()
        let missing = try XCTUnwrap(products[3].thumbnailURL)
        let html = try XCTUnwrap(products[7].thumbnailURL)
        await server.failNext(path: missing.path, count: 1, status: 404)
        await server.injectFault(.body("<html><body>Service Unavailable</body></html>", contentType: "text/html"), path: html.path)
        var configuration = TestCatalog.configuration(server, cache: cacheDirectory)
        configuration.maxFailed = .count(0) // the point: a failure is reported and fails the run
        configuration.fetching.http = TestCatalog.quickRetries
        let first = try await WarmPipeline.run(configuration, progressBar: false)
        XCTAssertEqual(first.imagesFailed, 2)
        XCTAssertEqual(first.failedByReason["http-404"], 1)
        XCTAssertEqual(first.failedByReason["not-an-image"], 1)
        XCTAssertFalse(first.success)
        XCTAssertEqual(first.reasonCode, .overFailureBudget)
        XCTAssertEqual(Set(first.failedImages.map(\.url)), [missing.absoluteString, html.absoluteString])
        do {
            let cache = try DiskCache.open(root: cacheDirectory.path)
            defer { try? cache.close() }
            let entry = try XCTUnwrap(try cache.lookup(url: html.absoluteString, variant: CacheVariant(longestSide: 64, format: .jpeg)))
            XCTAssertNil(entry.absolutePath)
            XCTAssertTrue(entry.lastError?.contains("HTML") == true, entry.lastError ?? "no error recorded")
        }

        await server.stats.reset()
        let second = try await WarmPipeline.run(configuration, progressBar: false)
        let served = await server.stats.snapshot()
        await server.shutdown()
        XCTAssertEqual(second.imagesDownloaded, 2)
        XCTAssertEqual(second.imagesFailed, 0)
        XCTAssertEqual(served.requests(route: "thumbnail"), 2, "only the two that failed are fetched again")
    }

    func testProductListThatShiftsMidCrawlMissesNothing() async throws {
        let server = try await TestCatalog.start(products: 60, shared: 0, without: 0)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        // After page 1 is served, 7 new products push every old one 7 places back.
        await server.insertNewestProducts(count: 7, afterServingPage: 1)
        let summary = try await WarmPipeline.run(TestCatalog.configuration(server, cache: cacheDirectory, itemsPerPage: 10),
                                                 progressBar: false)
        let everything = await TestCatalog.distinctThumbnails(server)
        await server.shutdown()
        XCTAssertEqual(everything.count, 67)
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        for url in everything {
            XCTAssertNotNil(try cache.path(for: url, longestSide: 64), "missed \(url)")
        }
        XCTAssertEqual(summary.imagesScheduled, 67, "no image scheduled twice")
    }

    func testCacheSizeLimitEvictsLeastRecentlyUsedAfterTheRun() async throws {
        let server = try await TestCatalog.start(products: 40, shared: 0, without: 0)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        var configuration = TestCatalog.configuration(server, cache: cacheDirectory)
        let unlimited = try await WarmPipeline.run(configuration, progressBar: false)
        XCTAssertEqual(unlimited.evictedEntries, 0)
        configuration.freshness.maxCacheBytes = unlimited.bytesWritten / 2
        let limited = try await WarmPipeline.run(configuration, progressBar: false)
        await server.shutdown()
        XCTAssertGreaterThan(limited.evictedEntries, 0)
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        XCTAssertLessThanOrEqual(try cache.maintenance.stats().totalBytes, unlimited.bytesWritten / 2)
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
    }

    func testSecondConcurrentRunOnTheSameCacheIsRefusedAtOnce() async throws {
        let server = try await TestCatalog.start(products: 10)
        let cacheDirectory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: cacheDirectory) }
        let held = try CacheLock.acquire(root: cacheDirectory.path)
        defer { held.release() }
        do {
            _ = try await WarmPipeline.run(TestCatalog.configuration(server, cache: cacheDirectory), progressBar: false)
            XCTFail("a second run must not start")
        } catch {
            guard case .locked = error else { return XCTFail("\(error)") }
        }
        await server.shutdown()
    }

    static let validator = CachedImageValidator.decodesCompletely
}
