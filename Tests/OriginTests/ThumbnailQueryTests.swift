@testable import Cache
import CacheTestSupport
@testable import Servers
import XCTest

/// The query of `/v1/thumbnail`, parsed strictly: what a hostile or sloppy client sends is a 400, never a path.
final class ThumbnailQueryTests: XCTestCase {
    private func parse(_ query: String?) throws(OriginRequestError) -> ThumbnailQuery {
        try ThumbnailQuery(query: query.map { Substring($0) }, maxQueryBytes: 8192)
    }

    private func error(_ query: String?) -> OriginRequestError? {
        do { _ = try parse(query); return nil } catch { return error }
    }

    func testAPercentEncodedURLIsDecodedAndCanonicalisedAsTheCacheKeysIt() throws {
        let query = try parse("url=HTTP%3A%2F%2FImg.Example.com%3A80%2Fa%2F.%2Fb%2F..%2Fc.jpg%3Fw%3D1%26h%3D2%23top&size=300")
        XCTAssertEqual(query.url.text, "http://img.example.com/a/c.jpg?w=1&h=2")
        XCTAssertEqual(query.longestSide, 300)
        XCTAssertNil(query.format)
        XCTAssertEqual(try parse("size=300&format=JPG&url=https://x.test/a%20b+c.jpg&utm=1").url.text, "https://x.test/a b c.jpg")
        XCTAssertEqual(try parse("size=300&format=JPG&url=https://x.test/a.jpg").format, .jpeg)
    }

    func testMalformedQueriesAreRefusedWithTheParameterAtFault() {
        XCTAssertEqual(error(nil), .missingParameter(name: "url"))
        XCTAssertEqual(error("url=https://x.test/a.jpg"), .missingParameter(name: "size"))
        XCTAssertEqual(error("url=https://x.test/a.jpg&size=300&url=https://x.test/b.jpg"), .repeatedParameter(name: "url"))
        XCTAssertEqual(error("url=https%3A%2F%2Fx.test%2F%ZZ&size=300"), .badPercentEncoding(parameter: "url"))
        XCTAssertEqual(error("url=https://x.test/%&size=300"), .badPercentEncoding(parameter: "url"))
        XCTAssertEqual(error("url=https://x.test/%C3%28&size=300"), .badPercentEncoding(parameter: "url"), "not UTF-8")
        for size in ["-1", "0", "99999999999999999999", "16385", "3e2", "", "300px", "+300", " 300"] {
            XCTAssertEqual(error("url=https://x.test/a.jpg&size=\(size)"), .badSize(text: size.replacingOccurrences(of: "+", with: " "), limit: 16_384), size)
        }
        XCTAssertEqual(error("url=https://x.test/a.jpg&size=300&format=gif"), .unknownFormat(text: "gif"))
        XCTAssertEqual(error(String(repeating: "a", count: 8193)), .queryTooLong(byteCount: 8193, limit: 8192))
    }

    func testURLsWithoutASchemeOrHostAreRefused() {
        for url in ["../../etc/passwd", "file:///etc/passwd", "/etc/passwd", "http://", "v1/ab/cd/x.jpg", "https://x.test:99999/a"] {
            guard case .badURL = error("url=\(url)&size=300") else { return XCTFail("\(url) was accepted") }
        }
    }
}
