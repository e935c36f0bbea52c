@testable import Crawl
import Fetch
import Foundation
import XCTest

final class DetailReaderTests: XCTestCase {
    private let api = URL(string: "https://market.test/")!

    private static func imageURL(product: Int, index: Int) -> String {
        "https://cdn.market.test/\(product)/\(index)_origin.jpg"
    }

    /// The detail of `id` with `count` carousel images, snake_case as OpenMarket answers.
    private static func detail(_ id: Int, images count: Int) -> String {
        let images = (0..<count).map { index in
            #"{"id":\#(id * 10 + index),"url":"\#(imageURL(product: id, index: index))","thumbnail_url":"https://cdn.market.test/\#(id)/thumb.jpg","succeed":true,"issued_at":"2023-03-23T00:00:00"}"#
        }
        return #"{"id":\#(id),"vendor_id":1,"name":"Item \#(id)","images":[\#(images.joined(separator: ","))]}"#
    }

    private func fetcher(_ details: [Int: String]) -> InMemoryFetcher {
        InMemoryFetcher(texts: Dictionary(uniqueKeysWithValues: details.map { ("https://market.test/api/products/\($0.key)", $0.value) }))
    }

    /// Every result the read hands over, by product id.
    private func read(_ ids: [Int], _ reader: DetailReader) async -> [Int: Result<ProductCarousel, DetailFailure>] {
        var results: [Int: Result<ProductCarousel, DetailFailure>] = [:]
        await reader.read(ids) { result in
            let id = switch result {
            case .success(let carousel): carousel.productID
            case .failure(let failure): failure.productID
            }
            XCTAssertNil(results.updateValue(result, forKey: id), "product \(id) handed over twice")
        }
        return results
    }

    func testEachProductGetsExactlyItsImagesInCarouselOrder() async throws {
        let counts = [1: 3, 2: 1, 3: 5, 4: 8, 5: 2]
        let fetcher = fetcher(Dictionary(uniqueKeysWithValues: counts.map { ($0.key, Self.detail($0.key, images: $0.value)) }))
        let results = await read([1, 2, 3, 4, 5], DetailReader(apiBaseURL: api, fetcher: fetcher))
        XCTAssertEqual(Set(results.keys), [1, 2, 3, 4, 5])
        for (id, count) in counts {
            let carousel = try XCTUnwrap(results[id]).get()
            XCTAssertEqual(carousel.images.map(\.url.absoluteString), (0..<count).map { Self.imageURL(product: id, index: $0) })
            XCTAssertEqual(carousel.images.map(\.position), Array(0..<count))
            XCTAssertEqual(Set(carousel.images.map(\.productID)), [String(id)])
            XCTAssertEqual(Set(carousel.images.map(\.source)), ["product \(id)'s detail (https://market.test/api/products/\(id))"])
        }
        XCTAssertEqual(fetcher.requested.count, 5, "each detail fetched once")
    }

    func testA404DetailIsThatProductsFailureAndTheOthersStillCome() async throws {
        let fetcher = fetcher([1: Self.detail(1, images: 2), 3: Self.detail(3, images: 1)])
        let results = await read([1, 2, 3], DetailReader(apiBaseURL: api, fetcher: fetcher))
        let missing = URL(string: "https://market.test/api/products/2")!
        XCTAssertEqual(results[2], .failure(.fetchFailed(productID: 2, url: missing,
                                                         error: .httpStatus(url: missing, status: 404, attempts: 1))))
        guard case .failure(let failure) = results[2] else { return XCTFail("product 2 should have failed") }
        XCTAssertEqual(failure.reasonCode, "http-404")
        XCTAssertEqual(failure.description,
                       "The detail of product 2 could not be fetched: https://market.test/api/products/2 answered HTTP 404.")
        XCTAssertEqual(try results[1]?.get().images.count, 2)
        XCTAssertEqual(try results[3]?.get().images.count, 1)
    }

    func testNoMoreDetailsAreInFlightThanTheConcurrency() async {
        let ids = Array(1...40)
        let fetcher = fetcher(Dictionary(uniqueKeysWithValues: ids.map { ($0, Self.detail($0, images: 2)) }))
        let results = await read(ids, DetailReader(apiBaseURL: api, fetcher: fetcher, concurrency: 3))
        XCTAssertEqual(results.count, 40)
        XCTAssertLessThanOrEqual(fetcher.maxInFlight, 3)
    }

    func testADetailListingTenThousandImagesIsRefusedAndTheOthersAreUsed() async throws {
        let fetcher = fetcher([1: Self.detail(1, images: 10_000), 2: Self.detail(2, images: 100)])
        let results = await read([1, 2], DetailReader(apiBaseURL: api, fetcher: fetcher))
        let url = URL(string: "https://market.test/api/products/1")!
        XCTAssertEqual(results[1], .failure(.tooManyImages(productID: 1, url: url, count: 10_000, limit: 100)))
        XCTAssertEqual(try results[2]?.get().images.count, 100, "the default limit admits a carousel of 100")
    }

    func testCancellationStopsTheRead() async {
        let ids = Array(1...200)
        let fetcher = fetcher(Dictionary(uniqueKeysWithValues: ids.map { ($0, Self.detail($0, images: 1)) }))
        let reader = DetailReader(apiBaseURL: api, fetcher: fetcher, concurrency: 2)
        // In a task of its own, so that the test's task is not the one cancelled.
        let handedOver = await Task {
            var handedOver = 0
            await reader.read(ids) { _ in
                handedOver += 1
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return handedOver
        }.value
        XCTAssertEqual(handedOver, 1, "nothing is handed over once cancelled")
        XCTAssertLessThanOrEqual(fetcher.requested.count, 2, "the two in flight, and none started after the cancellation")
    }

    func testAnErrorTheConsumerThrowsStopsTheReadAndComesBack() async {
        struct Full: Error {}
        let ids = Array(1...50)
        let fetcher = fetcher(Dictionary(uniqueKeysWithValues: ids.map { ($0, Self.detail($0, images: 1)) }))
        var handedOver = 0
        do throws(Full) {
            try await DetailReader(apiBaseURL: api, fetcher: fetcher, concurrency: 2).read(ids) { _ throws(Full) in
                handedOver += 1
                if handedOver == 3 { throw Full() }
            }
            XCTFail("the consumer's error should come back")
        } catch {}
        XCTAssertEqual(handedOver, 3)
        XCTAssertLessThan(fetcher.requested.count, 50)
    }

    func testTheDetailURLKeepsTheAPIPathPrefix() {
        let reader = DetailReader(apiBaseURL: URL(string: "https://market.test/v2/")!, fetcher: fetcher([:]))
        XCTAssertEqual(reader.detailURL(productID: 42).absoluteString, "https://market.test/v2/api/products/42")
    }
}
