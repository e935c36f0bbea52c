@testable import Servers
@testable import WarmSupport
import XCTest

/// `Accept` against the formats a cache holds: AVIF, then WebP, then JPEG; modern formats only when named.
final class FormatNegotiationTests: XCTestCase {
    private let all: [OutputFormat] = [.jpeg, .webp, .avif]

    func testBrowsersGetTheSmallestFormatTheyName() {
        let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        XCTAssertEqual(FormatNegotiation.choose(accept: chrome, held: all), .avif)
        XCTAssertEqual(FormatNegotiation.choose(accept: chrome, held: [.jpeg, .webp]), .webp)
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/avif,image/webp,*/*", held: [.jpeg]), .jpeg)
    }

    func testClientsThatDoNotNameWebPOrAVIFGetJPEG() {
        XCTAssertEqual(FormatNegotiation.choose(accept: nil, held: all), .jpeg)
        XCTAssertEqual(FormatNegotiation.choose(accept: "*/*", held: all), .jpeg)
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/*", held: [.webp, .png]), .png)
        XCTAssertNil(FormatNegotiation.choose(accept: "*/*", held: [.webp]), "a wildcard does not stand for WebP")
    }

    func testQualityValuesOrderTheChoiceAndZeroExcludes() {
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/webp;q=0.5, image/jpeg", held: all), .jpeg)
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/avif;q=0, image/webp", held: all), .webp)
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/*, image/jpeg;q=0", held: [.jpeg, .png]), .png)
        XCTAssertNil(FormatNegotiation.choose(accept: "application/json", held: all))
        XCTAssertEqual(FormatNegotiation.choose(accept: "image/webp;q=2, image/jpeg;q=0.1", held: all), .jpeg, "a bad q drops its element")
    }
}
