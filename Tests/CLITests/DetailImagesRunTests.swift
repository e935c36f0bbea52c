@testable import Cache
import Crawl
@testable import Downsample
import Foundation
@testable import Pipeline
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run --detail-images`, the real binary: against the demo catalog it caches every `images[].url` of every
/// product's detail at `--detail-size` once, and a second run downloads none; against Python's http.server, a carousel
/// image a product no longer shows is pruned under the usual rule, and a detail that fails is a counted, named failure
/// of its product that prunes nothing.
final class DetailImagesRunTests: XCTestCase {
    func testTheDemoCatalogsCarouselsAreCachedAtTheDetailSizeOnceAndASecondRunDownloadsNone() async throws {
        try await withCatalog(TestCatalog.configuration(products: 24, without: 0.15)) { server, fetcher in
            let cache = try makeTemporaryDirectory().appendingPathComponent("cache").path
            let arguments = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64",
                             "--detail-images", "--detail-size", "160", "--no-progress", "--items-per-page", "10"]
            let first = try WarmBinary.run(arguments)
            XCTAssertEqual(first.status, 0, first.stderr)

            // What the app shows: each listed product's thumbnail, and every image of its detail's carousel (a product
            // without a list thumbnail has one too).
            let products = await server.products()
            XCTAssertTrue(products.contains { $0.thumbnailURL == nil }, "the catalog must hold products without a thumbnail")
            let thumbnails = Set(products.compactMap { $0.thumbnailURL?.absoluteString })
            var carousel = Set<String>()
            try await DetailReader(apiBaseURL: server.baseURL, fetcher: fetcher).read(products.map(\.id)) { result in
                carousel.formUnion(try result.get().images.map(\.url.absoluteString))
            }
            XCTAssertGreaterThan(carousel.count, products.count * 2, "the demo's carousels hold several photos a product")
            XCTAssertFalse(carousel.isDisjoint(with: thumbnails), "some carousels open with their thumbnail")

            let sizes = try cachedSizes(cache)
            XCTAssertEqual(Set(sizes.keys), thumbnails.union(carousel), "every image the app shows, and nothing else")
            for url in carousel { XCTAssertTrue(sizes[url]?.contains(160) == true, "\(url) at the detail size: \(sizes[url] ?? [])") }
            for url in thumbnails { XCTAssertTrue(sizes[url]?.contains(64) == true, "\(url) at the list size") }
            for url in carousel.subtracting(thumbnails) { XCTAssertEqual(sizes[url], [160], "a carousel image only at its size") }
            let summary = try decodeSummary(cache)
            XCTAssertEqual(summary.imagesDownloaded, thumbnails.union(carousel).count, "each image downloaded once")
            XCTAssertEqual(summary.detailsRead, products.count)
            XCTAssertEqual(summary.detailsFailed, 0)

            let second = try WarmBinary.run(arguments)
            XCTAssertEqual(second.status, 0, second.stderr)
            XCTAssertEqual(try decodeSummary(cache).imagesDownloaded, 0, "a second run downloads none")
            XCTAssertEqual(try decodeSummary(cache).imagesFresh, thumbnails.union(carousel).count)
        }
    }

    func testACarouselImageNoLongerShownIsPrunedAndAFailedDetailIsNamedAndPrunesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let files = try (0..<6).map { index in
            ("p\(index)", try ImageComposer.encode(pixels: ImageComposer.pattern(width: 120, height: 90, seed: UInt64(index + 1)),
                                                   width: 120, height: 90, bands: 3, as: CompositionEncoding(format: .jpeg)))
        }
        // Products 1000, 1001, 1002 show p0, p1, p2 in the list; p3 is in two carousels.
        let server = try StaticCatalogServer(files: files, products: ["p0", "p1", "p2"], directory: directory)
        addTeardownBlock { server.stop() }
        try server.setDetails([0: ["p0", "p3"], 1: ["p4"], 2: ["p5", "p3"]])
        let cache = directory.appendingPathComponent("cache").path
        let arguments = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64", "--detail-images",
                         "--detail-size", "100", "--no-progress", "--prune-after", "0s", "--max-failed", "5", "--max-attempts", "1"]
        let first = try WarmBinary.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(Set(try cachedSizes(cache).keys), Set((0..<6).map { server.url(of: "p\($0)") }))
        XCTAssertEqual(try cachedSizes(cache)[server.url(of: "p0")], [64, 100], "a cover photo that opens its carousel: both sizes")
        XCTAssertEqual(try productIds(cache)[server.url(of: "p3")], [1000, 1002], "both carousels showing it")
        let carousels = try placements(cache)
        XCTAssertEqual(carousels[server.url(of: "p3")], [.init(productId: 1000, position: 1), .init(productId: 1002, position: 1)])
        XCTAssertEqual(carousels[server.url(of: "p0")], [.init(productId: 1000, position: 0)])
        XCTAssertEqual(carousels[server.url(of: "p1")], [], "a list thumbnail only")

        // Product 1001 took its photo down: p4 goes (--prune-after 0s); p1, still its list thumbnail, stays.
        try server.setDetails([0: ["p0", "p3"], 1: [], 2: ["p5", "p3"]])
        let removed = try WarmBinary.run(arguments)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(Set(try cachedSizes(cache).keys), Set([0, 1, 2, 3, 5].map { server.url(of: "p\($0)") }))
        // Product 1000 reorders its photos.
        try server.setDetails([0: ["p3", "p0"], 1: [], 2: ["p5", "p3"]])
        XCTAssertEqual(try WarmBinary.run(arguments).status, 0)
        XCTAssertEqual(try placements(cache)[server.url(of: "p0")], [.init(productId: 1000, position: 1)])
        XCTAssertEqual(try placements(cache)[server.url(of: "p3")], [.init(productId: 1000, position: 0), .init(productId: 1002, position: 1)])

        // Product 1002's detail answers 404: a failure of that product, named; its carousel is not pruned.
        try server.setDetails([0: ["p0"], 1: [], 2: nil])
        let failed = try WarmBinary.run(arguments)
        XCTAssertEqual(failed.status, 0, "within --max-failed 5: " + failed.stderr)
        let summary = try decodeSummary(cache)
        XCTAssertEqual(summary.detailsFailed, 1)
        XCTAssertEqual(summary.failedImages.map(\.url), [server.baseURL.absoluteString + "/api/products/1002"])
        XCTAssertEqual(summary.failedImages.first?.productIds, [1002])
        XCTAssertTrue(summary.failedImages.first?.reasonCode.hasPrefix("detail-") == true, "\(summary.failedImages)")
        XCTAssertNotNil(summary.pruneSkippedReason)
        XCTAssertEqual(Set(try cachedSizes(cache).keys), Set([0, 1, 2, 3, 5].map { server.url(of: "p\($0)") }), "nothing pruned")
        XCTAssertEqual(try placements(cache)[server.url(of: "p5")], [.init(productId: 1002, position: 0)],
                       "the failed product's carousel is kept as last seen")

        // Over the budget, the run fails (exit 2) and says how many details failed.
        let strict = try WarmBinary.run(arguments.dropLast(4) + ["--max-failed", "0", "--max-attempts", "1"])
        XCTAssertEqual(strict.status, 2, strict.stderr)
        XCTAssertTrue(strict.stderr.contains("1 of 3 product details"), strict.stderr)
    }

    func testTheDemoWarmsAndReportsItsCarouselsWithNoOptionsOfItsOwn() throws {
        let directory = try makeTemporaryDirectory()
        let port = try Socket.ephemeralPort()
        let demo = try WarmBinary.run(["demo", "--products", "4", "--port", "\(port)", "--dir", directory.path, "--no-progress"]
                                      + WarmBinary.patient)
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let summary = try decodeSummary(directory.appendingPathComponent("cache").path)
        XCTAssertEqual(summary.detailsRead, 4)
        XCTAssertGreaterThan(summary.carouselImages, 4, "the demo's carousels hold several photos")
        let metrics = try String(contentsOf: directory.appendingPathComponent("metrics.jsonl"), encoding: .utf8)
        XCTAssertTrue(metrics.contains(#""role":"carousel""#) && metrics.contains(#""targetLongestSide":1080"#))
        let report = try String(contentsOf: directory.appendingPathComponent("report/memory-comparison.md"), encoding: .utf8)
        XCTAssertTrue(report.contains("## Memory-cache use for the catalog"), report)
        XCTAssertTrue(report.contains("## Detail carousel at 1080 px"), report)
        XCTAssertTrue(report.contains("| carousel images |"), report)
        XCTAssertTrue(demo.stdout.contains("carousel: "), demo.stdout)
    }

    func testACarouselImageOnAHostTheAllowListDoesNotNameFailsAndTheOthersAreWarmed() throws {
        let directory = try makeTemporaryDirectory()
        let files = try (0..<2).map { index in
            ("p\(index)", try ImageComposer.encode(pixels: ImageComposer.pattern(width: 96, height: 72, seed: UInt64(index + 1)),
                                                   width: 96, height: 72, bands: 3, as: CompositionEncoding(format: .jpeg)))
        }
        let server = try StaticCatalogServer(files: files, products: ["p0"], directory: directory)
        addTeardownBlock { server.stop() }
        // The same server under another name: "localhost" is not the API's host and resolves to a loopback address.
        let elsewhere = "localhost:\(server.baseURL.port ?? 80)"
        try server.setDetails([0: ["p0", "http://\(elsewhere)/img/p1"]])
        let cache = directory.appendingPathComponent("cache").path
        let arguments = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64", "--detail-images",
                         "--detail-size", "80", "--no-progress", "--max-failed", "5", "--max-attempts", "1"]
        let refused = try WarmBinary.run(arguments)
        XCTAssertEqual(refused.status, 0, refused.stderr)
        XCTAssertEqual(try decodeSummary(cache).failedByReason, ["host-not-allowed": 1])
        XCTAssertEqual(Set(try cachedSizes(cache).keys), [server.url(of: "p0")])

        let allowed = try WarmBinary.run(arguments + ["--allow-host", elsewhere])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(try cachedSizes(cache)["http://\(elsewhere)/img/p1"], [80], "allowed by name, it is warmed")
    }

    func testDetailImagesNeedAnAPI() throws {
        let run = try WarmBinary.run(["run", "--urls", "-", "--cache-dir", "/nonexistent", "--detail-images"])
        XCTAssertEqual(run.status, 64, run.stderr)
        XCTAssertTrue(run.stderr.contains("--detail-images reads OpenMarket product details"), run.stderr)
    }

    // MARK: - Helpers

    private func decodeSummary(_ cache: String) throws -> WarmSummary {
        try GracefulStopTests.decodeSummary(cache + "/last-run.json")
    }

    /// Each cached URL's variant sizes, ascending.
    private func cachedSizes(_ cache: String) throws -> [String: [Int]] {
        var sizes: [String: [Int]] = [:]
        try export(cache) { sizes[$0.url] = Array(Set($0.variants.map(\.size))).sorted() }
        return sizes
    }

    private func productIds(_ cache: String) throws -> [String: [Int]] {
        var ids: [String: [Int]] = [:]
        try export(cache) { ids[$0.url] = $0.productIds.sorted() }
        return ids
    }

    private func placements(_ cache: String) throws -> [String: [CarouselPlacement]] {
        var placements: [String: [CarouselPlacement]] = [:]
        try export(cache) { placements[$0.url] = $0.carousel }
        return placements
    }

    private func export(_ cache: String, _ each: (AppManifestImage) -> Void) throws {
        let disk = try DiskCache.open(root: cache, readOnly: true)
        defer { try? disk.close() }
        try disk.maintenance.exportAppManifest(each)
    }
}
