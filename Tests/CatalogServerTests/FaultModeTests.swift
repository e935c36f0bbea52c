@testable import DemoCatalog
@testable import Crawl
@testable import Fetch
import Foundation
import WarmTestSupport
import XCTest

/// The catalog server's fault mode (`warm serve --faults`): the spec, which
/// URLs it picks, and what each kind looks like to the real HTTP client.
final class FaultModeTests: XCTestCase {
    func testSpecParsesSharesTransientCountsAndStatuses() throws {
        let plan = try FaultPlan(parsing: "image-503=5%, image-429=0.03x2,image-stall,page-garbage=10%", seed: 9)
        XCTAssertEqual(plan.rules.map(\.scope), [.image, .image, .image, .page])
        XCTAssertEqual(plan.rules.map(\.kind), [.status(503), .status(429, retryAfter: "1"), .stalledBody, .garbage])
        XCTAssertEqual(plan.rules.map(\.share), [0.05, 0.03, 1, 0.1])
        XCTAssertEqual(plan.rules.map(\.times), [nil, 2, nil, nil])
        XCTAssertEqual(plan.description, "image-503=5%,image-429=3%x2,image-stall=100%,page-garbage=10%")
        XCTAssertEqual(try FaultPlan(parsing: plan.description, seed: 9), plan)
    }

    func testBadSpecsAreRefusedWithTheItemNamed() {
        for (spec, expected) in [("image-999=5%", FaultSpecError.unknownKind("image-999=5%")),
                                 ("thumb-503", .unknownKind("thumb-503")), ("=", .unknownKind("=")),
                                 ("image-garbage=5%", .pagesOnly("image-garbage=5%")),
                                 ("image-503=150%", .badShare("image-503=150%")),
                                 ("image-503=5%x0", .badShare("image-503=5%x0")), (" , ", .empty)] {
            XCTAssertThrowsError(try FaultPlan(parsing: spec)) { error in
                XCTAssertEqual(error as? FaultSpecError, expected, spec)
            }
        }
    }

    func testChoiceDependsOnlyOnSeedKindAndURLAndLargerSharesContainSmaller() throws {
        let paths = (0..<2000).map { "/thumbnails/20230323/\($0)_thumb" }
        let five = try FaultPlan(parsing: "image-503=5%", seed: 3)
        let ten = try FaultPlan(parsing: "image-503=10%", seed: 3)
        let chosen5 = Set(paths.filter { five.rule(forImagePath: $0) != nil })
        let chosen10 = Set(paths.filter { ten.rule(forImagePath: $0) != nil })
        XCTAssertTrue((60...140).contains(chosen5.count), "\(chosen5.count) of 2000 at 5%")
        XCTAssertTrue(chosen5.isSubset(of: chosen10))
        XCTAssertEqual(chosen5, Set(paths.filter { try! FaultPlan(parsing: "image-503=5%", seed: 3).rule(forImagePath: $0) != nil }))
        let otherSeed = try FaultPlan(parsing: "image-503=5%", seed: 4)
        XCTAssertNotEqual(chosen5, Set(paths.filter { otherSeed.rule(forImagePath: $0) != nil }))
        XCTAssertNil(try FaultPlan(parsing: "page-503").rule(forPage: 1), "page 1 is never chosen")
        XCTAssertNotNil(try FaultPlan(parsing: "page-503").rule(forPage: 2))
    }

    /// Every image kind, as the real client meets it, with the reason it reports.
    func testEachImageFaultReachesTheClientAsItsKind() async throws {
        let cases: [(spec: String, reason: String?)] = [
            ("image-503", "http-5xx"), ("image-429", "http-429"), ("image-404", "http-404"),
            ("image-stall", "timeout"), ("image-short", "connection"), ("image-reset", "connection"),
            ("image-redirect-loop", "too-many-redirects"), ("image-endless", "too-large"),
            ("image-slow", nil), ("image-html", nil),
        ]
        let fetch = TestSettings.fetch(maxAttempts: 1, maxBodyBytes: 4 * 1024 * 1024, maxRedirects: 3,
                                       requestTimeoutSeconds: 2.5, maxRetryAfterSeconds: 1)
        try await withCatalog(TestCatalog.configuration(products: 10), fetch: fetch) { server, fetcher in
            let url = try await firstThumbnail(server)
            let image = try await fetched(fetcher, url).body
            for (spec, reason) in cases {
                await server.setFaultPlan(try FaultPlan(parsing: spec))
                do {
                    let body = try await fetched(fetcher, url).body
                    XCTAssertNil(reason, "\(spec) should have failed")
                    if spec == "image-slow" { XCTAssertEqual(body, image, "a slow body arrives whole") }
                    if spec == "image-html" { XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("<html>"), spec) }
                } catch let error as FetchError {
                    XCTAssertEqual(error.reasonCode, reason, "\(spec): \(error)")
                }
            }
            // Transient: the first request of each chosen URL fails, the next one passes.
            await server.setFaultPlan(try FaultPlan(parsing: "image-503=100%x1"))
            let first = await caught(FetchError.self) { _ = try await fetcher.get(url) }
            XCTAssertEqual(first?.reasonCode, "http-5xx")
            let second = try await fetched(fetcher, url).body
            XCTAssertEqual(second, image)
        }
    }

    func testRepeatedAndUnparseablePagesAsTheClientSeesThem() async throws {
        try await withCatalog(TestCatalog.configuration(products: 30)) { server, fetcher in
            let configuration = CrawlConfiguration(apiBaseURL: server.baseURL, itemsPerPage: 10)
            await server.setFaultPlan(try FaultPlan(parsing: "page-repeat"))
            let page2 = try ProductPage.decode(from: try await fetched(fetcher, configuration.pageURL(pageNo: 2)).body)
            let page1 = try ProductPage.decode(from: try await fetched(fetcher, configuration.pageURL(pageNo: 1)).body)
            XCTAssertEqual(page2.pageNo, 2)
            XCTAssertEqual(page2.products.map(\.id), page1.products.map(\.id), "page 2 repeats page 1")
            await server.setFaultPlan(try FaultPlan(parsing: "page-garbage"))
            let body = try await fetched(fetcher, configuration.pageURL(pageNo: 3)).body
            XCTAssertThrowsError(try ProductPage.decode(from: body))
        }
    }
}
