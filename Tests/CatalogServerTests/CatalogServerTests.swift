@testable import DemoCatalog
@testable import Crawl
@testable import Fetch
import Foundation
import WarmTestSupport
import XCTest

final class CatalogServerTests: XCTestCase {
    func testHealthCheckerAnswersOK() async throws {
        try await withCatalog { server, fetcher in
            let resource = try await fetched(fetcher, server.baseURL.appendingPathComponent("healthChecker"))
            XCTAssertEqual(String(decoding: resource.body, as: UTF8.self), "\"OK\"")
        }
    }

    func testListPageCarriesEveryOpenMarketField() async throws {
        try await withCatalog(TestCatalog.configuration(products: 45)) { server, fetcher in
            let url = CrawlConfiguration(apiBaseURL: server.baseURL).pageURL(pageNo: 2, itemsPerPage: 20)
            let body = try await fetched(fetcher, url).body
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            for key in ["pageNo", "itemsPerPage", "totalCount", "offset", "limit", "lastPage", "hasNext", "hasPrev", "pages"] {
                XCTAssertNotNil(object[key], "missing \(key)")
            }
            XCTAssertEqual(object["totalCount"] as? Int, 45)
            XCTAssertEqual(object["lastPage"] as? Int, 3)
            XCTAssertEqual(object["offset"] as? Int, 20)
            let products = try XCTUnwrap(object["pages"] as? [[String: Any]])
            XCTAssertEqual(products.count, 20)
            let withThumbnail = try XCTUnwrap(products.first { ($0["thumbnail"] as? String)?.isEmpty == false })
            for key in ["id", "vendor_id", "vendorName", "name", "description", "thumbnail", "currency", "price",
                        "bargain_price", "discounted_price", "stock", "created_at", "issued_at"] {
                XCTAssertNotNil(withThumbnail[key], "missing \(key)")
            }
            let thumbnail = try XCTUnwrap(withThumbnail["thumbnail"] as? String)
            let pattern = #"^http://127\.0\.0\.1:\d+/thumbnails/\d{8}/[0-9a-f]{32}_thumb$"#
            XCTAssertNotNil(thumbnail.range(of: pattern, options: .regularExpression), thumbnail)

            let page = try ProductPage.decode(from: body)
            XCTAssertEqual(page.pageNo, 2)
            XCTAssertEqual(page.products.first?.id, 25, "newest first: ids 45...1")
        }
    }

    func testProductDetailListsImages() async throws {
        try await withCatalog(TestCatalog.configuration(products: 10)) { server, fetcher in
            let body = try await fetched(fetcher, server.baseURL.appendingPathComponent("api/products/7")).body
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            XCTAssertEqual(object["id"] as? Int, 7)
            let images = try XCTUnwrap(object["images"] as? [[String: Any]])
            XCTAssertFalse(images.isEmpty)
            let imageURL = try XCTUnwrap((images.first?["url"] as? String).flatMap(URL.init(string:)))
            XCTAssertNotNil(images.first?["thumbnail_url"])
            XCTAssertNotNil(images.first?["issued_at"])
            let image = try await fetched(fetcher, imageURL)
            XCTAssertGreaterThan(image.body.count, 0)

            let missing = await caught(FetchError.self) {
                _ = try await fetcher.get(server.baseURL.appendingPathComponent("api/products/9999"))
            }
            XCTAssertEqual(missing?.reasonCode, "http-404")
        }
    }

    func testPhoneMixHasEveryKindServedWithTheRightContentType() async throws {
        // Real photos (Debian's mate-backgrounds) when installed, synthetic otherwise.
        let configuration = CatalogConfiguration(productCount: 120, seed: 3, imageMix: .miniature)
        try await withCatalog(configuration) { server, fetcher in
            var seenTypes = Set<String>(), kinds = Set<String>()
            for url in Set(await server.products().compactMap(\.thumbnailURL)) {
                let served = try await server.image(atPath: url.path)
                let image = try XCTUnwrap(served, url.path)
                kinds.insert(image.spec.kind)
                if image.spec.kind == "phone-photo-exif6" { XCTAssertEqual(image.spec.encoding.orientationTag, 6) }
                let resource = try await fetched(fetcher, url)
                XCTAssertEqual(resource.etag, image.etag)
                let type = try XCTUnwrap(resource.contentType)
                let head = [UInt8](resource.body.prefix(12))
                switch type {
                case "image/jpeg": XCTAssertEqual(Array(head.prefix(3)), [0xFF, 0xD8, 0xFF])
                case "image/png": XCTAssertEqual(Array(head.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
                case "image/webp": XCTAssertEqual(Array(head[8..<12]), Array("WEBP".utf8))
                default: XCTFail("unexpected Content-Type \(type)")
                }
                seenTypes.insert(type)
            }
            XCTAssertTrue(kinds.isSuperset(of: ["phone-photo", "phone-photo-exif6", "phone-photo-progressive",
                                                "server-thumbnail", "screenshot-png", "webp"]), "\(kinds)")
            XCTAssertEqual(seenTypes, ["image/jpeg", "image/png", "image/webp"])
        }
    }

    func testEveryProductGetsADistinctImageAndTheSeedsMixAveragesNearTheSeedsNaiveBytes() async throws {
        // The default mix, cut from the real photos when installed.
        let configuration = CatalogConfiguration(productCount: 80, seed: 11, sharedThumbnailFraction: 0,
                                                 withoutThumbnailFraction: 0)
        XCTAssertEqual(configuration.imageMix, .seeds)
        try await withCatalog(configuration) { server, fetcher in
            let urls = await server.products().compactMap(\.thumbnailURL)
            XCTAssertEqual(urls.count, 80)
            var bodies = Set<Data>(), naiveBytes = 0, formats = Set<String>()
            for url in urls {
                let body = try await fetched(fetcher, url).body
                bodies.insert(body)
                let served = try await server.image(atPath: url.path)
                let image = try XCTUnwrap(served, url.path)
                naiveBytes += image.spec.uprightSize.width * image.spec.uprightSize.height * 4
                formats.insert(image.contentType)
            }
            XCTAssertEqual(bodies.count, urls.count, "every product's image has content of its own")
            let average = Double(naiveBytes) / Double(urls.count)
            // The seeds' catalog: 2.41 MB of naive decode per image on average.
            XCTAssertEqual(average, 2.41e6, accuracy: 0.25 * 2.41e6, "naive bytes per image: \(average)")
            XCTAssertEqual(formats, ["image/jpeg", "image/webp", "image/png"])
        }
    }

    func testSameSeedGivesTheSameCatalog() async throws {
        let configuration = TestCatalog.configuration(products: 30)
        let first = try await CatalogServer.start(configuration: configuration)
        let second = try await CatalogServer.start(configuration: configuration)
        let a = await first.products(), b = await second.products()
        await first.shutdown()
        await second.shutdown()
        XCTAssertEqual(a.map(\.id), b.map(\.id))
        XCTAssertEqual(a.map(\.name), b.map(\.name))
        XCTAssertEqual(a.map { $0.thumbnailURL?.path }, b.map { $0.thumbnailURL?.path })
        for path in a.compactMap({ $0.thumbnailURL?.path }).prefix(8) {
            let one = try await first.image(atPath: path), other = try await second.image(atPath: path)
            XCTAssertNotNil(one)
            XCTAssertEqual(one?.etag, other?.etag, path)
        }
    }

    func testStatisticsCountRoutesAndBytes() async throws {
        try await withCatalog { server, fetcher in
            let url = try await firstThumbnail(server)
            let resource = try await fetched(fetcher, url)
            _ = try await fetcher.get(url, validators: resource.validators)
            _ = try await fetcher.get(CrawlConfiguration(apiBaseURL: server.baseURL).pageURL(pageNo: 1))
            let stats = await server.stats.snapshot()
            XCTAssertEqual(stats.requests(route: "thumbnail"), 2)
            XCTAssertEqual(stats.requests(route: "products"), 1)
            XCTAssertEqual(stats.pageRequests[1], 1)
            XCTAssertEqual(stats.okResponses, 2)
            XCTAssertEqual(stats.notModifiedResponses, 1)
            XCTAssertGreaterThan(stats.bytesSent, resource.body.count)
        }
    }
}
