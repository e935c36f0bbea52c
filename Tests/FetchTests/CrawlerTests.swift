@testable import DemoCatalog
@testable import Crawl
@testable import Fetch
import Foundation
import Hummingbird
import WarmTestSupport
import XCTest

final class CrawlerTests: XCTestCase {
    private func crawl(_ server: CatalogServer, _ fetcher: HTTPFetcher, itemsPerPage: Int = 20,
                       pageConcurrency: Int = 4, maxPasses: Int = 4) async throws -> (CrawlReport, Delivered) {
        let configuration = CrawlConfiguration(apiBaseURL: server.baseURL, itemsPerPage: itemsPerPage,
                                               pageConcurrency: pageConcurrency, maxPasses: maxPasses)
        let delivered = Delivered()
        let report = try await Crawler(configuration: configuration, fetcher: fetcher).run { batch in
            await delivered.add(batch)
        }
        return (report, delivered)
    }

    func testFullCrawlSeesEveryProductOnce() async throws {
        try await withCatalog(TestCatalog.configuration(products: 250, without: 0.04)) { server, fetcher in
            let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 20)
            let products = await server.products()
            let expected = Set(products.filter { $0.thumbnailURL != nil }.map(\.id))
            let withoutThumbnail = products.count - expected.count
            XCTAssertGreaterThan(withoutThumbnail, 0, "the catalog must hold products without a thumbnail")

            let ids = await delivered.ids
            XCTAssertEqual(ids.count, Set(ids).count, "no product is delivered twice")
            XCTAssertEqual(Set(ids), expected)
            XCTAssertEqual(report.uniqueProducts, 250)
            XCTAssertEqual(report.delivered, expected.count)
            XCTAssertEqual(report.withoutThumbnail, withoutThumbnail)
            XCTAssertEqual(report.duplicates, 0)
            XCTAssertEqual(report.pagesFetched, 13)
            XCTAssertEqual(report.passes, 1)
            XCTAssertTrue(report.failedPages.isEmpty)
            XCTAssertEqual(report.uncoveredPositions, 0)
            let pageRequests = await server.stats.snapshot().requests(route: "products")
            XCTAssertEqual(pageRequests, 13)
        }
    }

    func testSeedSizedCatalogCrawlsInOnePassWithDefaults() async throws {
        // The default catalog (1,336 products), synthetic images to keep it quick.
        let configuration = CatalogConfiguration(photoDirectory: nil, imagePoolSize: 8, imageMix: .miniature)
        try await withCatalog(configuration) { server, fetcher in
            let delivered = Delivered()
            let report = try await Crawler(configuration: CrawlConfiguration(apiBaseURL: server.baseURL),
                                           fetcher: fetcher).run { await delivered.add($0) }
            XCTAssertEqual(report.uniqueProducts, 1336)
            XCTAssertEqual(report.pagesFetched, 14)
            XCTAssertEqual(report.passes, 1)
            XCTAssertTrue((5...30).contains(report.withoutThumbnail), "about 1% without: \(report.withoutThumbnail)")
            let urls = await delivered.products.compactMap(\.thumbnailURL)
            let sharing = urls.count - Set(urls).count
            XCTAssertTrue((10...50).contains(sharing), "about 2% share a URL: \(sharing)")
            XCTAssertEqual(report.delivered, 1336 - report.withoutThumbnail)
        }
    }

    func testSnakeCasePagesParseLikeCamelCase() async throws {
        var results: [PageShape: [Product]] = [:]
        for shape in PageShape.allCases {
            try await withCatalog(TestCatalog.configuration(products: 60, shape: shape)) { server, fetcher in
                let page = try ProductPage.decode(from: try await fetched(fetcher, server.baseURL
                    .appendingPathComponent("api/products")).body)
                XCTAssertEqual(page.shape, shape)
                let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 25)
                XCTAssertEqual(report.uniqueProducts, 60)
                results[shape] = await delivered.products.sorted { $0.id < $1.id }
            }
        }
        let camel = try XCTUnwrap(results[.camelCase])
        let snake = try XCTUnwrap(results[.snakeCase])
        XCTAssertFalse(camel.isEmpty)
        // Same seed, different ports: compare everything but the thumbnail's host.
        XCTAssertEqual(camel.map(\.id), snake.map(\.id))
        XCTAssertEqual(camel.map(\.name), snake.map(\.name))
        XCTAssertEqual(camel.map(\.price), snake.map(\.price))
        XCTAssertEqual(camel.map { $0.thumbnailURL?.path }, snake.map { $0.thumbnailURL?.path })
    }

    func testProductListThatShiftsMidCrawlMissesNothing() async throws {
        try await withCatalog(TestCatalog.configuration(products: 200)) { server, fetcher in
            let original = await server.products()
            // New listings arrive right after page 3 is served: every later page moves by 15.
            await server.insertNewestProducts(count: 15, afterServingPage: 3)
            let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 10, pageConcurrency: 4)

            let now = await server.products()
            XCTAssertEqual(now.count, 215, "the shift must have happened")
            let ids = await delivered.ids
            XCTAssertEqual(ids.count, Set(ids).count, "no product is delivered twice")
            let originalIDs = Set(original.filter { $0.thumbnailURL != nil }.map(\.id))
            XCTAssertTrue(originalIDs.isSubset(of: Set(ids)),
                          "missed: \(originalIDs.subtracting(ids).sorted())")
            let allIDs = Set(now.filter { $0.thumbnailURL != nil }.map(\.id))
            let difference = Set(ids).symmetricDifference(allIDs).sorted()
            XCTAssertTrue(difference.isEmpty, "products listed during the crawl are picked up too; differing: \(difference)")
            XCTAssertGreaterThan(report.duplicates, 0, "shifted pages overlap")
            XCTAssertGreaterThanOrEqual(report.passes, 2)
            XCTAssertEqual(report.uncoveredPositions, 0)
            XCTAssertEqual(report.totalCountAtStart, 200)
            XCTAssertEqual(report.totalCountAtEnd, 215)
        }
    }

    func testSinglePassMissesProductsPushedPastTheLastPage() async throws {
        // Pins why the crawler makes more passes: one pass in page order loses the tail.
        try await withCatalog(TestCatalog.configuration(products: 100, without: 0)) { server, fetcher in
            let original = await server.products()
            await server.insertNewestProducts(count: 7, afterServingPage: 2)
            let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 10, pageConcurrency: 1, maxPasses: 1)
            let ids = await delivered.ids
            let missed = Set(original.map(\.id)).subtracting(ids)
            XCTAssertEqual(missed, Set(original.suffix(7).map(\.id)), "the oldest 7 were pushed onto page 11")
            XCTAssertEqual(report.uncoveredPositions, 7 + 7, "the 7 pushed out, and the 7 new ones in front")
        }
    }

    func testSlowConsumerHoldsTheCrawlerBack() async throws {
        try await withCatalog(TestCatalog.configuration(products: 200)) { server, fetcher in
            let configuration = CrawlConfiguration(apiBaseURL: server.baseURL, itemsPerPage: 10, pageConcurrency: 3)
            let calls = Counter()
            let overshoot = Counter()
            let report = try await Crawler(configuration: configuration, fetcher: fetcher).run { _ in
                let consumed = await calls.increment()
                let requested = await server.stats.snapshot().requests(route: "products")
                if requested - consumed > 3 { await overshoot.increment() }
                try await Task.sleep(for: .milliseconds(30))
            }
            XCTAssertEqual(report.pagesFetched, 20)
            let consumerCalls = await calls.count()
            XCTAssertEqual(consumerCalls, 20)
            let overshoots = await overshoot.count()
            XCTAssertEqual(overshoots, 0, "more than pageConcurrency pages ran ahead of the consumer")
        }
    }

    func testConsumerErrorStopsTheCrawl() async throws {
        struct Full: Error {}
        try await withCatalog(TestCatalog.configuration(products: 200)) { server, fetcher in
            let configuration = CrawlConfiguration(apiBaseURL: server.baseURL, itemsPerPage: 10, pageConcurrency: 2)
            let calls = Counter()
            let error = await caught(Full.self) {
                _ = try await Crawler(configuration: configuration, fetcher: fetcher).run { _ in
                    if await calls.increment() == 3 { throw Full() }
                }
            }
            XCTAssertNotNil(error)
            let requested = await server.stats.snapshot().requests(route: "products")
            XCTAssertLessThanOrEqual(requested, 3 + 2, "no pages are requested after the consumer failed")
        }
    }

    func testPageThatDoesNotParseIsReportedAndCrawlGoesOn() async throws {
        try await withCatalog(TestCatalog.configuration(products: 100, without: 0)) { server, fetcher in
            await server.injectFault(.body("<html><body>Bad gateway</body></html>", contentType: "text/html"),
                                     path: "/api/products", query: ["page_no": "3"], count: 100)
            let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 10, maxPasses: 3)
            let products = await server.products()
            let onPage3 = Set(products[20..<30].map(\.id))
            let ids = await delivered.ids
            XCTAssertEqual(Set(ids), Set(products.map(\.id)).subtracting(onPage3))

            XCTAssertEqual(report.failedPages.count, 1)
            let failure = try XCTUnwrap(report.failedPages.first)
            XCTAssertEqual(failure.pageNo, 3)
            XCTAssertEqual(failure.reasonCode, "unparseable-page")
            XCTAssertTrue(failure.description.hasPrefix("Product page 3 ("), failure.description)
            XCTAssertTrue(failure.description.contains("page_no=3"), failure.description)
            XCTAssertTrue(failure.description.contains("not valid JSON"), failure.description)
            XCTAssertEqual(report.uncoveredPositions, 10)
            XCTAssertEqual(report.pagesFetched, 9)
            XCTAssertLessThanOrEqual(report.passes, 3)
        }
    }

    func testPageThatFailsOnceIsFetchedAgainInTheNextPass() async throws {
        let fetch = TestSettings.fetch(maxAttempts: 2)
        try await withCatalog(TestCatalog.configuration(products: 100, without: 0), fetch: fetch) { server, fetcher in
            // Both attempts of the first pass fail; the second pass gets through.
            await server.failNext(path: "/api/products", query: ["page_no": "4"], count: 2, status: 502)
            let (report, delivered) = try await crawl(server, fetcher, itemsPerPage: 10)
            let ids = await delivered.ids
            XCTAssertEqual(Set(ids).count, 100)
            XCTAssertTrue(report.failedPages.isEmpty, "\(report.failedPages)")
            XCTAssertEqual(report.recoveredPageFailures, 1)
            XCTAssertEqual(report.passes, 2)
        }
    }

    func testFirstPageFailureEndsTheCrawlWithAClearError() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 2)) { server, fetcher in
            await server.failNext(path: "/api/products", query: ["page_no": "1"], count: 5, status: 404)
            let error = await caught(CrawlError.self) { _ = try await self.crawl(server, fetcher) }
            XCTAssertEqual(error?.pageNo, 1)
            XCTAssertEqual(error?.reasonCode, "http-404")
            XCTAssertTrue(error?.description.hasPrefix("Product page 1 could not be fetched:") == true)
        }
    }

    func testCrawlOfAnotherOpenMarketStyleServer() async throws {
        // A hand-written catalog in the older snake_case shape, with the quirks
        // a real API shows: ids and prices as strings, thumbnails missing, null
        // or empty, unknown fields, an entry without an id, no last_page.
        let pages = [
            """
            {"page_no": 1, "items_per_page": 4, "total_count": 10, "has_next": true, "has_prev": false,
             "pages": [
              {"id": 30, "vendor_id": 2, "vendorName": "odong", "name": "Lamp", "thumbnail": "THUMB/30_thumb",
               "currency": "KRW", "price": 12000, "bargain_price": 11000, "discounted_price": 1000, "stock": 3,
               "created_at": "2023-03-23T00:00:00.00", "issued_at": "2023-03-23T00:00:00.00", "badge": "new"},
              {"id": "29", "name": "Mug", "thumbnail": "THUMB/29_thumb", "price": "3500.5"},
              {"id": 28, "name": "No picture"},
              {"id": 27, "name": "Null picture", "thumbnail": null}
             ]}
            """,
            """
            {"page_no": 2, "items_per_page": 4, "total_count": 10,
             "pages": [
              {"id": 26, "name": "Empty picture", "thumbnail": ""},
              {"name": "No id at all", "thumbnail": "THUMB/x_thumb"},
              {"id": 24, "name": "Desk", "thumbnail": "THUMB/24_thumb", "price": null, "stock": "many"},
              {"id": 23, "name": "Chair", "thumbnail": "THUMB/23_thumb"}
             ]}
            """,
            """
            {"page_no": 3, "items_per_page": 4, "total_count": 10,
             "pages": [
              {"id": 22, "thumbnail": "THUMB/22_thumb"},
              {"id": 21, "name": "Rug", "thumbnail": "not a url"}
             ]}
            """,
        ]
        let router = Router()
        let baseHolder = BaseHolder()
        router.get("market/api/products") { request, _ in
            let pageNo = request.uri.queryParameters["page_no"].flatMap { Int($0) } ?? 1
            let base = await baseHolder.base
            let text = pageNo <= pages.count ? pages[pageNo - 1] : #"{"page_no": \#(pageNo), "items_per_page": 4, "total_count": 10, "pages": []}"#
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: text.replacingOccurrences(of: "THUMB", with: base))))
        }
        try await withFixture(router) { server, fetcher in
            await baseHolder.set(server.baseURL.absoluteString + "/img")
            let configuration = CrawlConfiguration(apiBaseURL: server.url("/market"), itemsPerPage: 4, pageConcurrency: 2)
            let delivered = Delivered()
            let report = try await Crawler(configuration: configuration, fetcher: fetcher).run { await delivered.add($0) }

            let products = await delivered.products.sorted { $0.id > $1.id }
            XCTAssertEqual(products.map(\.id), [30, 29, 24, 23, 22])
            XCTAssertEqual(products.first?.vendorName, "odong")
            XCTAssertEqual(products.first?.bargainPrice, 11000)
            XCTAssertEqual(products[1].price, 3500.5)
            XCTAssertEqual(products[1].thumbnailURL?.absoluteString, server.baseURL.absoluteString + "/img/29_thumb")
            XCTAssertNil(products[2].price)
            XCTAssertNil(products[2].stock)
            XCTAssertEqual(report.uniqueProducts, 9)
            XCTAssertEqual(report.withoutThumbnail, 4, "missing, null, empty and not-a-URL thumbnails")
            XCTAssertEqual(report.rejectedEntries, 1)
            XCTAssertEqual(report.pagesFetched, 3)
            XCTAssertEqual(report.uncoveredPositions, 0)
            XCTAssertTrue(report.failedPages.isEmpty)
        }
    }
}

/// The fixture server's own address, known only once it listens.
private actor BaseHolder {
    var base = ""
    func set(_ value: String) { base = value }
}
