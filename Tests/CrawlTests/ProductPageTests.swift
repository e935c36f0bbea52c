@testable import Crawl
import Foundation
import XCTest

final class ProductPageTests: XCTestCase {
    func testSnakeCaseAndCamelCaseDecodeToTheSamePage() throws {
        let camel = #"{"pageNo":2,"itemsPerPage":3,"totalCount":8,"offset":3,"limit":3,"lastPage":3,"hasNext":true,"hasPrev":true,"pages":[{"id":5}]}"#
        let snake = #"{"page_no":2,"items_per_page":3,"total_count":8,"offset":3,"limit":3,"last_page":3,"has_next":true,"has_prev":true,"pages":[{"id":5}]}"#
        var a = try ProductPage.decode(from: Data(camel.utf8))
        let b = try ProductPage.decode(from: Data(snake.utf8))
        XCTAssertEqual(a.shape, .camelCase)
        XCTAssertEqual(b.shape, .snakeCase)
        a.shape = .snakeCase
        XCTAssertEqual(a, b)
    }

    func testAPageWithoutDerivedFieldsIsUsedAndLimitStandsInForThePageSize() throws {
        let page = try ProductPage.decode(from: Data(#"{"page_no":3,"items_per_page":10,"total_count":25,"pages":[]}"#.utf8))
        XCTAssertEqual([page.pageNo, page.itemsPerPage, page.totalCount], [3, 10, 25])
        let limited = try ProductPage.decode(from: Data(#"{"pageNo":1,"limit":7,"totalCount":25,"pages":[]}"#.utf8))
        XCTAssertEqual(limited.itemsPerPage, 7)
    }

    func testPageWithoutTotalCountNamesTheKey() {
        XCTAssertThrowsError(try ProductPage.decode(from: Data(#"{"pageNo":1,"itemsPerPage":10,"pages":[]}"#.utf8))) { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "totalCount")
        }
    }

    func testHTMLIsNotAPage() {
        XCTAssertThrowsError(try ProductPage.decode(from: Data("<html></html>".utf8)))
    }

    func testProductNeedsOnlyAnID() throws {
        let product = try JSONDecoder().decode(Product.self, from: Data(#"{"id":"12","price":"abc","thumbnail":null}"#.utf8))
        XCTAssertEqual(product.id, 12)
        XCTAssertNil(product.price)
        XCTAssertNil(product.thumbnailURL)
        XCTAssertThrowsError(try JSONDecoder().decode(Product.self, from: Data(#"{"name":"x"}"#.utf8)))
    }

    func testProductRoundTripsWithTheAPIKeys() throws {
        var product = Product(id: 1)
        (product.vendorID, product.vendorName, product.name) = (2, "v", "n")
        (product.thumbnail, product.currency, product.stock) = ("https://x.test/a_thumb", "KRW", 4)
        (product.price, product.bargainPrice, product.discountedPrice) = (100, 90, 10)
        (product.createdAt, product.issuedAt) = ("2023-03-23T00:00:00", "2023-03-23T00:00:00")
        let data = try JSONEncoder().encode(product)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertNotNil(object["vendor_id"])
        XCTAssertNotNil(object["vendorName"])
        XCTAssertNotNil(object["bargain_price"])
        XCTAssertEqual(try JSONDecoder().decode(Product.self, from: data), product)
    }

    func testPageURLKeepsThePathPrefix() {
        let configuration = CrawlConfiguration(apiBaseURL: URL(string: "https://market.test/openmarket/")!, itemsPerPage: 50)
        XCTAssertEqual(configuration.pageURL(pageNo: 3).absoluteString,
                       "https://market.test/openmarket/api/products?page_no=3&items_per_page=50")
    }

    /// Found while writing the page fuzzer (scripts/fuzz.sh) and confirmed with
    /// it: a page without `lastPage` declaring a count near Int.max trapped on
    /// `totalCount + itemsPerPage - 1` and crashed the run.
    func testTotalCountNearIntMaxIsRefusedNotATrap() {
        for shape in [#""pageNo":1,"itemsPerPage":2,"totalCount":9223372036854775807"#,
                      #""page_no":1,"items_per_page":2,"total_count":"9223372036854775807""#,
                      #""pageNo":1,"itemsPerPage":20,"totalCount":-5"#] {
            let body = Data(("{" + shape + #","pages":[]}"#).utf8)
            XCTAssertThrowsError(try ProductPage.decode(from: body), shape) { error in
                XCTAssertTrue("\(error)".contains("outside 0...10000000"), "\(error)")
            }
        }
        let largest = Data(#"{"pageNo":1,"itemsPerPage":3,"totalCount":10000000,"pages":[]}"#.utf8)
        XCTAssertEqual(try ProductPage.decode(from: largest).totalCount, 10_000_000, "the largest count is accepted")
    }
}
