import CatalogServer
import Fetch
import Foundation
import WarmTestSupport
import XCTest

final class CoalescingFetcherTests: XCTestCase {
    func testSharedThumbnailURLIsDownloadedOnce() async throws {
        let configuration = TestCatalog.configuration(products: 150, shared: 0.25)
        try await withCatalog(configuration) { server, fetcher in
            let products = await server.products()
            let urls = products.compactMap(\.thumbnailURL)
            let distinct = Set(urls)
            XCTAssertLessThan(distinct.count, urls.count, "the catalog must share some thumbnail URLs")
            // Slow the shared downloads a little so concurrent requests for one URL overlap.
            let shared = Dictionary(grouping: urls, by: { $0 }).filter { $0.value.count > 1 }.keys
            for url in shared {
                await server.injectFault(.delay(seconds: 0.5), path: url.path, count: 1)
            }
            let coalescing = CoalescingFetcher(upstream: fetcher)
            let sizes = try await withThrowingTaskGroup(of: (URL, Int).self) { group in
                for url in urls {
                    group.addTask { (url, try await coalescing.get(url).resource?.body.count ?? -1) }
                }
                return try await group.reduce(into: [URL: Set<Int>]()) { $0[$1.0, default: []].insert($1.1) }
            }
            XCTAssertEqual(sizes.count, distinct.count)
            XCTAssertTrue(sizes.values.allSatisfy { $0.count == 1 && $0.first! > 0 }, "every caller gets the same body")
            let stats = await server.stats.snapshot()
            XCTAssertEqual(stats.requests(route: "thumbnail"), distinct.count, "one download per distinct URL")
        }
    }

    func testSequentialFetchesOfOneURLEachDownload() async throws {
        try await withCatalog { server, fetcher in
            let url = try await firstThumbnail(server)
            let coalescing = CoalescingFetcher(upstream: fetcher)
            _ = try await coalescing.get(url)
            _ = try await coalescing.get(url)
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 2, "only fetches in flight are shared; nothing is cached")
        }
    }

    func testFailureReachesEveryJoinedCaller() async throws {
        try await withCatalog(fetch: TestSettings.fetch(maxAttempts: 1)) { server, fetcher in
            let url = try await firstThumbnail(server)
            await server.injectFault(.delay(seconds: 0.2, then: .status(500)), path: url.path, count: 1)
            let coalescing = CoalescingFetcher(upstream: fetcher)
            let codes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        do {
                            _ = try await coalescing.get(url)
                            return "ok"
                        } catch let error as FetchError {
                            return error.reasonCode
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            XCTAssertEqual(codes, Array(repeating: "http-5xx", count: 5))
            let requests = await server.stats.snapshot().requests(path: url.path)
            XCTAssertEqual(requests, 1)
        }
    }
}
