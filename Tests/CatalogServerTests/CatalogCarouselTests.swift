@testable import DemoCatalog
import Crawl
@testable import Fetch
import Foundation
import WarmTestSupport
import XCTest

/// The demo catalog's product details: carousels like a real listing's, read as `warm` reads them (`DetailReader`).
final class CatalogCarouselTests: XCTestCase {
    /// Every product's carousel, read over loopback; fails the test on any product's failure.
    private func carousels(_ server: CatalogServer, _ fetcher: some Fetching) async throws -> [Int: ProductCarousel] {
        var carousels: [Int: ProductCarousel] = [:]
        let ids = await server.products().map(\.id)
        try await DetailReader(apiBaseURL: server.baseURL, fetcher: fetcher).read(ids) { result in
            let carousel = try result.get()
            XCTAssertTrue(carousel.skipped.isEmpty, "product \(carousel.productID): \(carousel.skipped.kept)")
            carousels[carousel.productID] = carousel
        }
        XCTAssertEqual(carousels.count, ids.count)
        return carousels
    }

    func testCarouselsHoldOneToEightPhotosMostlyThreeToFive() async throws {
        try await withCatalog(TestCatalog.configuration(products: 200)) { server, fetcher in
            let counts = try await carousels(server, fetcher).values.map(\.images.count)
            XCTAssertEqual(counts.count, 200)
            XCTAssertEqual(counts.min(), 1)
            XCTAssertEqual(counts.max(), 8)
            let mean = Double(counts.reduce(0, +)) / Double(counts.count)
            XCTAssertTrue((3.0...5.0).contains(mean), "mean photos per product: \(mean)")
            let threeToFive = counts.filter { (3...5).contains($0) }.count
            XCTAssertGreaterThan(threeToFive, counts.count / 2, "most products show 3 to 5 photos")
        }
    }

    func testAboutAThirdOfCarouselsOpenWithTheListThumbnailAndTheOtherPhotosAreTheirOwn() async throws {
        try await withCatalog(TestCatalog.configuration(products: 200, shared: 0)) { server, fetcher in
            let thumbnails = Dictionary(uniqueKeysWithValues: await server.products().map { ($0.id, $0.thumbnailURL) })
            let carousels = try await carousels(server, fetcher)
            let opening = carousels.values.filter { $0.images.first?.url == thumbnails[$0.productID] ?? nil }
            XCTAssertTrue((40...100).contains(opening.count), "\(opening.count) of 200 open with the thumbnail")

            let others = carousels.values.flatMap { carousel in
                carousel.images.dropFirst(opening.contains(carousel) ? 1 : 0).map(\.url)
            }
            XCTAssertEqual(Set(others).count, others.count, "each other photo is listed once in the catalog")
            XCTAssertTrue(Set(others).isDisjoint(with: thumbnails.values.compactMap { $0 }))
            XCTAssertTrue(others.allSatisfy { $0.lastPathComponent.hasSuffix("_origin") }, "full-size photos")
        }
    }

    func testEveryKindOfCarouselImageIsServed() async throws {
        try await withCatalog(TestCatalog.configuration(products: 12)) { server, fetcher in
            let thumbnails = Set(await server.products().compactMap(\.thumbnailURL))
            let carousels = try await carousels(server, fetcher).values.sorted { $0.productID < $1.productID }
            // A handful (making images is slow in debug builds): a thumbnail shared by a carousel, and first and
            // last photos of their own.
            let shared = carousels.compactMap(\.images.first?.url).first { thumbnails.contains($0) }
            let own = carousels.flatMap { $0.images.filter { !thumbnails.contains($0.url) } }.map(\.url)
            let handful = [try XCTUnwrap(shared, "no carousel opens with its thumbnail")] + own.prefix(3) + own.suffix(2)
            for url in handful {
                let resource = try await fetched(fetcher, url)
                XCTAssertEqual(resource.status, 200, url.absoluteString)
                XCTAssertTrue(resource.contentType?.hasPrefix("image/") == true, "\(url): \(resource.contentType ?? "none")")
                XCTAssertGreaterThan(resource.body.count, 0)
            }
            // A photo of its own is a seller's upload: a phone photo halved (2016x1512; an eighth of that in the
            // miniature mix), what a full-width carousel decodes.
            for url in own.prefix(3) + own.suffix(2) {
                let made = try await server.image(atPath: url.path)
                let image = try XCTUnwrap(made)
                XCTAssertTrue(image.spec.kind.hasPrefix("phone-photo"), "\(url): \(image.spec.kind)")
                XCTAssertEqual(Set([image.spec.uprightSize.width, image.spec.uprightSize.height]), [252, 189], "\(url)")
            }
        }
    }

    func testTheListAndItsThumbnailsDoNotDependOnTheCarousels() async throws {
        var never = TestCatalog.configuration(products: 60), always = never
        never.carouselOpensWithThumbnailFraction = 0
        always.carouselOpensWithThumbnailFraction = 1
        let a = try await CatalogServer.start(configuration: never), b = try await CatalogServer.start(configuration: always)
        let listA = await a.products(), listB = await b.products()
        await a.shutdown()
        await b.shutdown()
        XCTAssertEqual(listA.map(\.id), listB.map(\.id))
        XCTAssertEqual(listA.map { $0.thumbnailURL?.path }, listB.map { $0.thumbnailURL?.path })
        // The default catalog's first three products, newest first, as reports/baseline.json names them: the
        // committed report and baseline were measured on these thumbnails.
        let defaults = try await CatalogServer.start(configuration: CatalogConfiguration(productCount: 3, photoDirectory: nil))
        let paths = await defaults.products().map { $0.thumbnailURL?.path }
        await defaults.shutdown()
        XCTAssertEqual(paths, ["/thumbnails/20230101/82e785455ee4af878f2f287565c45c8d_thumb",
                               "/thumbnails/20230101/a3f09bf38a677effdc70deeb3a7de5b6_thumb",
                               "/thumbnails/20230101/fdb15dd975183e072fd936b87ff645e4_thumb"])
    }
}
