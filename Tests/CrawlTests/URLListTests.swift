@testable import Crawl
import Foundation
import XCTest

final class URLListTests: XCTestCase {
    private func parse(_ text: String, limits: URLList.Limits = URLList.Limits()) throws -> URLList {
        try URLList.parse(Data(text.utf8), name: "urls.txt", limits: limits)
    }

    private func error(_ data: Data, limits: URLList.Limits = URLList.Limits()) -> URLListError? {
        do {
            _ = try URLList.parse(data, name: "urls.txt", limits: limits)
            return nil
        } catch {
            return error
        }
    }

    func testBlankLinesCommentsAndCRLFAreIgnoredAndIdsAndPositionsKept() throws {
        let text = "\u{FEFF}# tonight's catalog\r\n\r\n  https://cdn.shop.test/a.jpg   1042 \r\n"
            + "\t# indented comment\r\nhttps://cdn.shop.test/b.jpg\t1042\r\n   \r\nhttp://cdn.shop.test/c.jpg\r\n"
            + "https://cdn.shop.test/d.jpg sku-7"
        let list = try parse(text)
        XCTAssertEqual(list.images, [
            ListedImage(url: URL(string: "https://cdn.shop.test/a.jpg")!, productID: "1042", position: 0, source: "urls.txt line 3"),
            ListedImage(url: URL(string: "https://cdn.shop.test/b.jpg")!, productID: "1042", position: 1, source: "urls.txt line 5"),
            ListedImage(url: URL(string: "http://cdn.shop.test/c.jpg")!, source: "urls.txt line 7"),
            ListedImage(url: URL(string: "https://cdn.shop.test/d.jpg")!, productID: "sku-7", position: 0, source: "urls.txt line 8"),
        ])
        XCTAssertEqual(list.lines, 8)
        XCTAssertEqual(list.duplicates, 0)
        XCTAssertTrue(list.problems.isEmpty)
    }

    func testARepeatedURLIsKeptAgainOnlyForAnotherProductAndOtherRepeatsAreCounted() throws {
        let list = try parse("https://x.test/a.jpg 1\nhttps://x.test/b.jpg\nhttps://x.test/a.jpg 2\nhttps://x.test/a.jpg\n"
                             + "https://x.test/a.jpg 1\nhttps://x.test/b.jpg\n")
        XCTAssertEqual(list.images.map(\.url.absoluteString), ["https://x.test/a.jpg", "https://x.test/b.jpg", "https://x.test/a.jpg"])
        XCTAssertEqual(list.images.map(\.productID), ["1", nil, "2"])
        XCTAssertEqual(list.duplicates, 3)
    }

    func testABadLineIsSkippedNamedByItsLineAndTheRestKept() throws {
        let list = try parse("""
            https://x.test/a.jpg
            htps://x.test/typo.jpg
            /images/relative.jpg
            https:///no-host.jpg
            https://x.test/b.jpg 12 extra
            https://x.test/c.jpg
            """)
        XCTAssertEqual(list.images.map(\.url.absoluteString), ["https://x.test/a.jpg", "https://x.test/c.jpg"])
        XCTAssertEqual(list.problems.count, 4)
        XCTAssertEqual(list.problems.kept.map(\.place), ["urls.txt line 2", "urls.txt line 3", "urls.txt line 4", "urls.txt line 5"])
        XCTAssertEqual(list.problems.kept.map(\.reason), [.notHTTPURL, .notHTTPURL, .notHTTPURL, .extraFields])
        XCTAssertEqual(list.problems.kept[0].description,
                       "urls.txt line 2: \"htps://x.test/typo.jpg\" is not an absolute http or https URL; it was skipped.")
        XCTAssertEqual(list.problems.kept[3].description,
                       "urls.txt line 5: \"https://x.test/b.jpg 12 extra\" has more than a URL and a product id; the line was skipped.")
    }

    func testALongBadLineIsQuotedCut() throws {
        let line = "not-a-url-" + String(repeating: "x", count: 500)
        let problem = try XCTUnwrap(try parse(line).problems.kept.first)
        XCTAssertEqual(problem.excerpt, String(line.prefix(ListingProblem.maxExcerptCharacters)) + "…")
        XCTAssertLessThan(problem.description.count, 200)
    }

    func testManyBadLinesAreAllCountedAndTheFirstHundredKept() throws {
        let list = try parse(Array(repeating: "ftp://x.test/a.jpg", count: 1_000).joined(separator: "\n"))
        XCTAssertEqual(list.problems.count, 1_000)
        XCTAssertEqual(list.problems.kept.count, ListingProblems.keptLimit)
        XCTAssertEqual(list.problems.kept.last?.place, "urls.txt line 100")
    }

    func testANulByteFailsTheWholeListNamingItsLine() {
        let data = Data("https://x.test/a.jpg\nhttps://x.test/b.jpg\0\n".utf8)
        XCTAssertEqual(error(data), .nulByte(list: "urls.txt", line: 2))
        XCTAssertEqual(error(data)?.description,
                       "The URL list urls.txt is not text: line 2 holds a NUL byte; nothing of it was used.")
    }

    func testBytesThatAreNotUTF8FailTheWholeListNamingTheLine() {
        var data = Data("https://x.test/a.jpg\n\n".utf8)
        data.append(contentsOf: [0x89, 0x50, 0x4E, 0x47, 0xFF, 0xFE]) // a PNG's signature, then garbage
        XCTAssertEqual(error(data), .notUTF8(list: "urls.txt", line: 3))
        XCTAssertTrue(error(data)!.description.contains("line 3"))
    }

    func testALineOverTheLengthLimitFailsTheWholeListNamingTheLimit() {
        let limits = URLList.Limits(maxLineBytes: 64)
        let data = Data(("https://x.test/a.jpg\n" + "https://x.test/" + String(repeating: "a", count: 60)).utf8)
        XCTAssertEqual(error(data, limits: limits), .lineTooLong(list: "urls.txt", line: 2, limitBytes: 64))
        XCTAssertEqual(error(data, limits: limits)?.description,
                       "Line 2 of the URL list urls.txt is longer than 64 bytes; nothing of the list was used.")
        // The limit is on the line without its CRLF.
        XCTAssertNoThrow(try parse("https://x.test/" + String(repeating: "a", count: 49) + "\r\n", limits: limits))
    }

    func testMoreDistinctURLsThanTheLimitFailTheWholeList() throws {
        let limits = URLList.Limits(maxEntries: 3)
        let threeAndDuplicates = "https://x.test/1\nhttps://x.test/2\nhttps://x.test/1\nhttps://x.test/3\nhttps://x.test/3\n"
        XCTAssertEqual(try parse(threeAndDuplicates, limits: limits).images.count, 3)
        XCTAssertEqual(error(Data((threeAndDuplicates + "https://x.test/4\n").utf8), limits: limits),
                       .tooManyEntries(list: "urls.txt", line: 6, limit: 3))
    }

    func testAFileOverTheByteLimitFailsWhole() {
        let data = Data(String(repeating: "https://x.test/a.jpg\n", count: 10).utf8)
        XCTAssertEqual(error(data, limits: URLList.Limits(maxBytes: 100)), .tooLarge(list: "urls.txt", limitBytes: 100))
        XCTAssertEqual(error(data, limits: URLList.Limits(maxBytes: 100))?.description,
                       "The URL list urls.txt is larger than 100 bytes; nothing of it was used.")
    }

    func testAnEmptyFileIsAnEmptyList() throws {
        let list = try parse("")
        XCTAssertEqual(list.images, [])
        XCTAssertEqual(list.lines, 0)
    }
}
