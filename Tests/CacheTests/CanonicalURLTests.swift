import XCTest
@testable import Cache
import CacheTestSupport

final class CanonicalURLTests: XCTestCase {
    private func canonical(_ url: String) throws -> String { try CanonicalURL(url).text }

    func testSchemeAndHostAreLowercasedButUserInfoPathAndQueryKeepTheirCase() throws {
        XCTAssertEqual(try canonical("HTTPS://Img.Example.COM/Products/A.JPG?Size=L"),
                       "https://img.example.com/Products/A.JPG?Size=L")
        XCTAssertEqual(try canonical("http://User:Pw@Example.com/x"), "http://User:Pw@example.com/x")
    }

    func testDefaultPortsAreDroppedAndOtherPortsKept() throws {
        XCTAssertEqual(try canonical("http://example.com:80/a"), "http://example.com/a")
        XCTAssertEqual(try canonical("https://example.com:443/a"), "https://example.com/a")
        XCTAssertEqual(try canonical("https://example.com:80/a"), "https://example.com:80/a")
        XCTAssertEqual(try canonical("http://example.com:443/a"), "http://example.com:443/a")
        XCTAssertEqual(try canonical("http://example.com:8080/a"), "http://example.com:8080/a")
        XCTAssertEqual(try canonical("http://example.com:/a"), "http://example.com/a")
        XCTAssertEqual(try canonical("http://example.com:0080/a"), "http://example.com/a")
    }

    func testFragmentIsDropped() throws {
        XCTAssertEqual(try canonical("https://example.com/a.jpg#top"), "https://example.com/a.jpg")
        XCTAssertEqual(try canonical("https://example.com/a.jpg?x=1#top?y"), "https://example.com/a.jpg?x=1")
    }

    func testDotSegmentsAreResolved() throws {
        XCTAssertEqual(try canonical("https://example.com/a/./b/../c.jpg"), "https://example.com/a/c.jpg")
        XCTAssertEqual(try canonical("https://example.com/../../a.jpg"), "https://example.com/a.jpg")
        XCTAssertEqual(try canonical("https://example.com/a/b/.."), "https://example.com/a/")
        XCTAssertEqual(try canonical("https://example.com/a/b/."), "https://example.com/a/b/")
        XCTAssertEqual(try canonical("https://example.com/a/..b/c"), "https://example.com/a/..b/c")
        XCTAssertEqual(try canonical("https://example.com/a//b"), "https://example.com/a//b")
    }

    func testQueryIsKeptAsIsEvenWhenItLooksLikeAPath() throws {
        XCTAssertEqual(try canonical("https://example.com/img?next=/a/../b&B=2&a=%2F"),
                       "https://example.com/img?next=/a/../b&B=2&a=%2F")
        XCTAssertEqual(try canonical("https://example.com/img?"), "https://example.com/img?")
    }

    func testEmptyPathBecomesSlash() throws {
        XCTAssertEqual(try canonical("https://Example.com"), "https://example.com/")
        XCTAssertEqual(try canonical("https://example.com?q=1"), "https://example.com/?q=1")
    }

    func testIPv6HostKeepsItsBracketsAndLosesTheDefaultPort() throws {
        XCTAssertEqual(try canonical("http://[2001:DB8::1]:80/a"), "http://[2001:db8::1]/a")
        XCTAssertEqual(try canonical("http://[::1]:8080/a"), "http://[::1]:8080/a")
    }

    func testSurroundingWhitespaceIsTrimmed() throws {
        XCTAssertEqual(try canonical("  https://example.com/a.jpg\n"), "https://example.com/a.jpg")
    }

    func testURLsWithoutSchemeOrHostOrWithABadPortAreRejected() {
        for bad in ["example.com/a.jpg", "/relative/a.jpg", "mailto:someone@example.com", "https://", "https:///a",
                    "https://example.com:http/a", "https://example.com:99999/a", "1http://example.com/", ""] {
            XCTAssertThrowsError(try CanonicalURL(bad), bad) { error in
                XCTAssertEqual((error as? CacheError)?.reasonCode, "invalid-url", bad)
            }
        }
    }
}
