@testable import Crawl
import Foundation
import XCTest

/// `ProductDetail` and `DetailReader.carousel(from:...)`: one detail body, no fetcher.
final class ProductDetailTests: XCTestCase {
    private let url = URL(string: "https://market.test/api/products/7")!
    private let cdn = "https://cdn.market.test/training-resources/3/20230323"

    /// As the public OpenMarket API answers `GET /api/products/7` (snake_case, with `vendors` and `succeed`).
    private var snakeCase: String {
        #"""
        {"id":7,"vendor_id":3,"vendorName":"yagom","name":"Mac mini","description":"M2","thumbnail":"\#(cdn)/a1_thumb.png",
         "currency":"KRW","price":890000.0,"bargain_price":890000.0,"discounted_price":0.0,"stock":2,
         "created_at":"2023-03-23T00:00:00","issued_at":"2023-03-23T00:00:00",
         "images":[
          {"id":70,"url":"\#(cdn)/a1_origin.png","thumbnail_url":"\#(cdn)/a1_thumb.png","succeed":true,"issued_at":"2023-03-23T00:00:00"},
          {"id":71,"url":"\#(cdn)/a2_origin.jpg","thumbnail_url":"\#(cdn)/a2_thumb.jpg","succeed":true,"issued_at":"2023-03-23T00:00:00"},
          {"id":72,"url":"\#(cdn)/a3_origin.webp","thumbnail_url":"\#(cdn)/a3_thumb.webp","succeed":true,"issued_at":"2023-03-23T00:00:00"}
         ],
         "vendors":{"id":3,"name":"yagom","created_at":"2022-01-01T00:00:00","issued_at":"2022-01-01T00:00:00"}}
        """#
    }

    private var camelCase: String {
        #"""
        {"id":7,"vendorId":3,"name":"Mac mini","thumbnail":"\#(cdn)/a1_thumb.png","createdAt":"2023-03-23T00:00:00",
         "images":[
          {"id":70,"url":"\#(cdn)/a1_origin.png","thumbnailUrl":"\#(cdn)/a1_thumb.png","succeed":true,"issuedAt":"2023-03-23T00:00:00"},
          {"id":71,"url":"\#(cdn)/a2_origin.jpg","thumbnailUrl":"\#(cdn)/a2_thumb.jpg","succeed":true,"issuedAt":"2023-03-23T00:00:00"},
          {"id":72,"url":"\#(cdn)/a3_origin.webp","thumbnailURL":"\#(cdn)/a3_thumb.webp","succeed":true,"issuedAt":"2023-03-23T00:00:00"}
         ]}
        """#
    }

    private func carousel(_ json: String, productID: Int = 7, maxImages: Int = 100) -> Result<ProductCarousel, DetailFailure> {
        DetailReader.carousel(from: Data(json.utf8), productID: productID, url: url, maxImages: maxImages)
    }

    private func failure(_ json: String, productID: Int = 7, maxImages: Int = 100) -> DetailFailure? {
        guard case .failure(let failure) = carousel(json, productID: productID, maxImages: maxImages) else { return nil }
        return failure
    }

    func testTheSnakeCaseDetailGivesEveryImageInCarouselOrderWithProductAndPosition() throws {
        let carousel = try carousel(snakeCase).get()
        XCTAssertEqual(carousel.images.map(\.url.absoluteString),
                       ["\(cdn)/a1_origin.png", "\(cdn)/a2_origin.jpg", "\(cdn)/a3_origin.webp"])
        XCTAssertEqual(carousel.images.map(\.productID), ["7", "7", "7"])
        XCTAssertEqual(carousel.images.map(\.position), [0, 1, 2])
        XCTAssertEqual(carousel.images.first?.source, "product 7's detail (https://market.test/api/products/7)")
        XCTAssertTrue(carousel.skipped.isEmpty)

        let detail = try ProductDetail.decode(from: Data(snakeCase.utf8))
        XCTAssertEqual(detail.images.first, DetailImage(id: 70, url: "\(cdn)/a1_origin.png",
                                                        thumbnailURL: "\(cdn)/a1_thumb.png", issuedAt: "2023-03-23T00:00:00"))
    }

    func testTheCamelCaseDetailDecodesLikeTheSnakeCaseOne() throws {
        XCTAssertEqual(try ProductDetail.decode(from: Data(camelCase.utf8)), try ProductDetail.decode(from: Data(snakeCase.utf8)))
    }

    func testAnIDWrittenAsTextIsAccepted() throws {
        XCTAssertEqual(try carousel(#"{"id":"7","images":[{"url":"\#(cdn)/a.jpg"}]}"#).get().images.count, 1)
    }

    func testADetailWithoutImagesIsAnEmptyCarouselNotAFailure() throws {
        XCTAssertEqual(try carousel(#"{"id":7}"#).get().images, [])
        XCTAssertEqual(try carousel(#"{"id":7,"images":null}"#).get().images, [])
        XCTAssertEqual(try carousel(#"{"id":7,"images":[]}"#).get().images, [])
    }

    func testEntriesWithoutAnAbsoluteHTTPURLAreSkippedAndCountedAndTheOthersKeepTheirPositions() throws {
        let json = #"""
        {"id":7,"images":[
          {"id":70},
          {"id":71,"url":null},
          {"id":72,"url":"   "},
          {"id":73,"url":"/images/73.jpg"},
          {"id":74,"url":"ftp://cdn.market.test/74.jpg"},
          "\#(cdn)/75.jpg",
          {"id":76,"url":" \#(cdn)/76.jpg "},
          {"id":77,"url":"https:///77.jpg"},
          {"id":78,"url":"\#(cdn)/78.jpg"}
        ]}
        """#
        let carousel = try carousel(json).get()
        XCTAssertEqual(carousel.images.map(\.url.lastPathComponent), ["76.jpg", "78.jpg"])
        XCTAssertEqual(carousel.images.map(\.position), [6, 8], "the app's carousel indexes")
        XCTAssertEqual(carousel.skipped.count, 7)
        XCTAssertEqual(carousel.skipped.kept.map(\.reasonCode),
                       ["missing-url", "missing-url", "not-http-url", "not-http-url", "not-http-url", "missing-url", "not-http-url"])
        XCTAssertEqual(carousel.skipped.kept[3].description,
                       "product 7's detail (https://market.test/api/products/7) images[3]: \"/images/73.jpg\" is not an "
                       + "absolute http or https URL; it was skipped.")
        XCTAssertEqual(carousel.skipped.kept[5].description,
                       "product 7's detail (https://market.test/api/products/7) images[5]: an image without a url was skipped.")
    }

    func testABodyThatIsNotAnObjectWithAnIntegerIDFailsTheProduct() {
        let bodies = ["<html>Bad gateway</html>", "[]", #"{"name":"no id"}"#, #"{"id":"seven"}"#, #"{"id":null}"#, "",
                      #"{"id":7,"images":"https://cdn.market.test/a.jpg"}"#]
        for body in bodies {
            guard case .notADetail(let id, let failedURL, _) = failure(body) else {
                XCTFail("\(body): \(carousel(body))")
                continue
            }
            XCTAssertEqual(id, 7)
            XCTAssertEqual(failedURL, url)
        }
        XCTAssertEqual(failure(#"{"name":"no id"}"#)?.description,
                       "The detail of product 7 (https://market.test/api/products/7) is not a product detail: the key \"id\" is "
                       + "missing at the top level.")
        XCTAssertEqual(failure("[]")?.reasonCode, "unparseable-detail")
    }

    func testADetailOfAnotherProductFailsNamingBoth() {
        let failure = failure(#"{"id":8,"images":[{"url":"\#(cdn)/a.jpg"}]}"#)
        XCTAssertEqual(failure, .wrongID(productID: 7, url: url, answeredID: 8))
        XCTAssertEqual(failure?.description,
                       "The detail of product 7 (https://market.test/api/products/7) describes product 8; its images were not used.")
    }

    func testADetailListingMoreEntriesThanTheLimitIsRefusedWholeAndOneAtTheLimitIsUsed() throws {
        func detail(_ count: Int) -> String {
            #"{"id":7,"images":["# + (0..<count).map { #"{"url":"\#(cdn)/\#($0).jpg"}"# }.joined(separator: ",") + "]}"
        }
        XCTAssertEqual(try carousel(detail(3), maxImages: 3).get().images.count, 3)
        let refused = failure(detail(4), maxImages: 3)
        XCTAssertEqual(refused, .tooManyImages(productID: 7, url: url, count: 4, limit: 3))
        XCTAssertEqual(refused?.description,
                       "The detail of product 7 (https://market.test/api/products/7) lists 4 images, more than the limit of 3 "
                       + "a carousel may hold; none of them was used.")
    }
}
