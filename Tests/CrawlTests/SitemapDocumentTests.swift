@testable import Crawl
import Foundation
import XCTest

final class SitemapDocumentTests: XCTestCase {
    private let url = URL(string: "https://shop.test/sitemap.xml")!

    private func parse(_ text: String, limits: SitemapLimits = SitemapLimits()) throws -> SitemapDocument {
        try SitemapDocument.parse(Data(text.utf8), url: url, limits: limits)
    }

    private func pages(_ document: SitemapDocument) -> [SitemapPage] {
        guard case .urlset(let pages) = document.content else { return [] }
        return pages
    }

    private func refusal(_ body: Data, limits: SitemapLimits = SitemapLimits()) -> SitemapError? {
        do {
            _ = try SitemapDocument.parse(body, url: url, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    func testAURLSetListsEachPagesImagesInOrderWithThePageAsProduct() throws {
        let document = try parse(SitemapText.urlset([
            (page: "https://shop.test/p/1", images: ["https://cdn.shop.test/1a.jpg", "https://cdn.shop.test/1b.jpg", "https://cdn.shop.test/1c.jpg"]),
            (page: "https://shop.test/about", images: []),
            (page: "https://shop.test/p/2", images: ["https://cdn.shop.test/2a.jpg"]),
        ]))
        let pages = pages(document)
        XCTAssertEqual(pages.map(\.url.absoluteString), ["https://shop.test/p/1", "https://shop.test/about", "https://shop.test/p/2"])
        XCTAssertEqual(pages[0].images.map(\.url.lastPathComponent), ["1a.jpg", "1b.jpg", "1c.jpg"])
        XCTAssertEqual(pages[0].images.map(\.position), [0, 1, 2])
        XCTAssertEqual(Set(pages[0].images.map(\.productID)), ["https://shop.test/p/1"])
        XCTAssertEqual(pages[0].images[1].source, "https://shop.test/sitemap.xml line 6")
        XCTAssertEqual(pages[1].images, [])
        XCTAssertEqual(pages[2].images.map(\.url.absoluteString), ["https://cdn.shop.test/2a.jpg"])
        XCTAssertTrue(document.problems.isEmpty)
    }

    func testImageElementsAreKnownByNamespaceWhateverTheirPrefix() throws {
        let document = try parse("""
            <?xml version="1.0" encoding="utf-8"?>
            <sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:img="\(SitemapText.imageNamespace)"
                       xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:other="urn:not-images">
              <sm:url>
                <sm:loc> https://shop.test/p/1 </sm:loc>
                <img:image><img:loc>https://cdn.shop.test/a.jpg</img:loc><img:caption>A</img:caption></img:image>
                <image xmlns="\(SitemapText.imageNamespace)"><loc><![CDATA[https://cdn.shop.test/b.jpg]]></loc></image>
                <other:image><other:loc>https://cdn.shop.test/not-an-image-extension.jpg</other:loc></other:image>
                <video:video><video:thumbnail_loc>https://cdn.shop.test/video.jpg</video:thumbnail_loc></video:video>
                <img:image>
                  <img:loc>
                    https://cdn.shop.test/c.jpg?w=1&amp;h=2
                  </img:loc>
                </img:image>
              </sm:url>
            </sm:urlset>
            """)
        let page = try XCTUnwrap(pages(document).first)
        XCTAssertEqual(page.url.absoluteString, "https://shop.test/p/1")
        XCTAssertEqual(page.images.map(\.url.absoluteString),
                       ["https://cdn.shop.test/a.jpg", "https://cdn.shop.test/b.jpg", "https://cdn.shop.test/c.jpg?w=1&h=2"])
        XCTAssertEqual(page.images.map(\.position), [0, 1, 2])
    }

    func testASitemapWithoutNamespaceIsRead() throws {
        let document = try parse("<urlset><url><loc>https://shop.test/p/1</loc></url></urlset>")
        XCTAssertEqual(pages(document).map(\.url.absoluteString), ["https://shop.test/p/1"])
    }

    func testASitemapIndexListsItsSitemapsInOrder() throws {
        let document = try parse(SitemapText.index(["https://shop.test/sitemap-1.xml", "https://shop.test/sitemap-2.xml.gz"]))
        XCTAssertEqual(document.content, .index([URL(string: "https://shop.test/sitemap-1.xml")!,
                                                 URL(string: "https://shop.test/sitemap-2.xml.gz")!]))
    }

    func testAGzippedBodyIsToldByItsMagicBytesNotItsName() throws {
        let text = SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])])
        let document = try SitemapDocument.parse(try SitemapText.gzip(text), url: url)
        XCTAssertEqual(pages(document).first?.images.map(\.url.absoluteString), ["https://cdn.shop.test/a.jpg"])
    }

    func testAGzipBombIsRefusedPastTheDecompressedLimit() throws {
        // 4 MiB of spaces inside a valid document gzip to about 4 KiB; the limit here is 256 KiB.
        let padding = String(repeating: " ", count: 4 * 1024 * 1024)
        let bomb = try SitemapText.gzip("<urlset>\(padding)</urlset>")
        XCTAssertLessThan(bomb.count, 16 * 1024)
        let limits = SitemapLimits(maxDocumentBytes: 256 * 1024)
        XCTAssertEqual(refusal(bomb, limits: limits), .tooLarge(sitemap: url, limitBytes: 256 * 1024, gzipped: true))
        XCTAssertEqual(refusal(bomb, limits: limits)?.description,
                       "The sitemap https://shop.test/sitemap.xml inflates to more than 262144 bytes (sitemaps.org allows 50 MB uncompressed); it was refused.")
        // The default is sitemaps.org's 50 MB: the same file passes.
        XCTAssertEqual(SitemapLimits().maxDocumentBytes, 52_428_800)
        XCTAssertNoThrow(try SitemapDocument.parse(bomb, url: url))
    }

    func testADocumentAtTheLimitPassesAndOneByteMoreIsRefused() throws {
        let text = "<urlset></urlset>"
        let limits = SitemapLimits(maxDocumentBytes: text.utf8.count)
        XCTAssertNoThrow(try SitemapDocument.parse(try SitemapText.gzip(text), url: url, limits: limits))
        XCTAssertNoThrow(try parse(text, limits: limits))
        XCTAssertEqual(refusal(try SitemapText.gzip(text + " "), limits: limits),
                       .tooLarge(sitemap: url, limitBytes: text.utf8.count, gzipped: true))
        XCTAssertEqual(refusal(Data((text + " ").utf8), limits: limits),
                       .tooLarge(sitemap: url, limitBytes: text.utf8.count, gzipped: false))
    }

    func testGzipThatIsCorruptOrCutShortIsRefused() throws {
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]
        XCTAssertEqual(refusal(Data(header)), .corruptGzip(sitemap: url))
        XCTAssertEqual(refusal(Data(header + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])), .corruptGzip(sitemap: url))
        // A download cut short inflates to a prefix without an error from zlib; the trailer's length tells.
        let entries = (0..<200).map { (page: "https://shop.test/p/\($0)", images: ["https://cdn.shop.test/\($0).jpg"]) }
        let whole = try SitemapText.gzip(SitemapText.urlset(entries))
        XCTAssertEqual(refusal(whole.prefix(whole.count - 6)), .corruptGzip(sitemap: url))
        XCTAssertEqual(refusal(whole.prefix(whole.count - 6))?.description,
                       "The sitemap https://shop.test/sitemap.xml starts like gzip but does not inflate whole (corrupt or cut short).")
        XCTAssertNil(refusal(whole))
    }

    func testBillionLaughsIsRefusedWithASentenceNamingTheURL() {
        var entities = [#"<!ENTITY lol "lol">"#]
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            entities.append("<!ENTITY lol\(level) \"\(String(repeating: "&\(previous);", count: 10))\">")
        }
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
            \(entities.joined(separator: "\n"))
            ]>
            <urlset xmlns="\(SitemapText.sitemapNamespace)"><url><loc>https://shop.test/&lol9;</loc></url></urlset>
            """
        XCTAssertEqual(refusal(Data(bomb.utf8)), .doctype(sitemap: url, line: 2))
        XCTAssertEqual(refusal(Data(bomb.utf8))?.description,
                       "The sitemap https://shop.test/sitemap.xml declares a DOCTYPE or an entity (line 2); sitemaps never need one, "
                       + "and its entities could expand without bound or read local files, so it was refused.")
    }

    func testAnExternalEntityIsRefusedWithASentence() throws {
        let xxe = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE urlset [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
            <urlset xmlns="\(SitemapText.sitemapNamespace)"><url><loc>https://shop.test/&xxe;</loc></url></urlset>
            """
        XCTAssertEqual(refusal(Data(xxe.utf8)), .doctype(sitemap: url, line: 2))
        // In lower case (which libxml2 would not read as a DTD) and gzipped, it is refused all the same.
        XCTAssertEqual(refusal(try SitemapText.gzip(xxe.replacingOccurrences(of: "!DOCTYPE", with: "!doctype"))),
                       .doctype(sitemap: url, line: 2))
    }

    func testBytesThatAreNotUTF8AreRefusedNamingTheURL() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52])
        XCTAssertEqual(refusal(png), .notUTF8(sitemap: url))
        XCTAssertEqual(refusal(png)?.description,
                       "The sitemap https://shop.test/sitemap.xml is not UTF-8 text (sitemaps.org requires UTF-8).")
        let utf16 = try XCTUnwrap("<urlset></urlset>".data(using: .utf16))
        XCTAssertEqual(refusal(utf16), .notUTF8(sitemap: url))
    }

    func testAnotherDeclaredEncodingIsRefused() {
        // UTF-7 could spell "<!DOCTYPE" in bytes the scan would not recognise.
        let text = #"<?xml version="1.0" encoding='UTF-7'?><urlset>+ADw-/urlset+AD4-"#
        XCTAssertEqual(refusal(Data(text.utf8)), .unsupportedEncoding(sitemap: url, encoding: "UTF-7"))
    }

    func testATruncatedDocumentIsRefusedWithItsLine() {
        let whole = SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"]),
                                        (page: "https://shop.test/p/2", images: ["https://cdn.shop.test/b.jpg"])])
        let half = String(whole.prefix(whole.count / 2))
        guard case .malformed(let sitemap, let line, let reason)? = refusal(Data(half.utf8)) else {
            return XCTFail("\(String(describing: refusal(Data(half.utf8))))")
        }
        XCTAssertEqual(sitemap, url)
        XCTAssertGreaterThan(line, 1)
        XCTAssertFalse(reason.isEmpty)
    }

    func testMalformedXMLIsRefusedWithAPhrase() {
        XCTAssertEqual(refusal(Data("<urlset>\n<url><loc>https://shop.test/p/1</url></loc></urlset>".utf8)),
                       .malformed(sitemap: url, line: 2, reason: "an end tag that does not match its start tag (libxml2 error 76)"))
        // An unescaped & in a URL is the commonest real-world mistake; the sitemap is refused, not half read.
        XCTAssertEqual(refusal(Data("<urlset><url><loc>https://shop.test/p?a=1&b=2</loc></url></urlset>".utf8))?.description,
                       "The sitemap https://shop.test/sitemap.xml is not well-formed XML at line 1: an & that does not start "
                       + "an entity (a URL's & is written &amp;) (libxml2 error 23).")
    }

    func testHTMLAndEmptyBodiesAreNotSitemaps() {
        XCTAssertEqual(refusal(Data("<html><body>Sorry</body></html>".utf8)), .notASitemap(sitemap: url, root: "html"))
        XCTAssertEqual(refusal(Data("<html><body>Sorry</body></html>".utf8))?.description,
                       "https://shop.test/sitemap.xml is not a sitemap: its root element is <html>, not <urlset> or <sitemapindex>.")
        XCTAssertEqual(refusal(Data()), .notASitemap(sitemap: url, root: nil))
        XCTAssertEqual(refusal(Data("  \n".utf8)), .notASitemap(sitemap: url, root: nil))
        XCTAssertEqual(refusal(Data(#"<urlset xmlns="urn:another"></urlset>"#.utf8)), .notASitemap(sitemap: url, root: "urlset"))
    }

    func testLocsThatAreNotHTTPAreCountedProblemsNotTheEndOfTheDocument() throws {
        let document = try parse("""
            <urlset xmlns="\(SitemapText.sitemapNamespace)" xmlns:image="\(SitemapText.imageNamespace)">
              <url><loc>ftp://shop.test/p/1</loc><image:image><image:loc>https://cdn.shop.test/lost.jpg</image:loc></image:image></url>
              <url><loc>https://shop.test/p/2</loc><image:image><image:loc>/relative.jpg</image:loc></image:image>
                <image:image><image:caption>no loc</image:caption></image:image>
                <image:image><image:loc>https://cdn.shop.test/kept.jpg</image:loc></image:image></url>
              <url><lastmod>2024-01-01</lastmod></url>
            </urlset>
            """)
        XCTAssertEqual(pages(document).map(\.url.absoluteString), ["https://shop.test/p/2"])
        XCTAssertEqual(pages(document).first?.images.map(\.url.absoluteString), ["https://cdn.shop.test/kept.jpg"])
        XCTAssertEqual(pages(document).first?.images.map(\.position), [0])
        XCTAssertEqual(document.problems.kept.map(\.reason),
                       [.notHTTPURL, .notHTTPURL, .missingLoc(element: "image:image"), .missingLoc(element: "url")])
        XCTAssertEqual(document.problems.kept.first?.description,
                       "https://shop.test/sitemap.xml line 2: \"ftp://shop.test/p/1\" is not an absolute http or https URL; it was skipped.")
    }

    func testALocOverItsLimitIsACountedProblem() throws {
        let long = "https://shop.test/" + String(repeating: "a", count: 200)
        let document = try parse("<urlset><url><loc>\(long)</loc></url><url><loc>https://shop.test/p</loc></url></urlset>",
                                 limits: SitemapLimits(maxLocBytes: 100))
        XCTAssertEqual(pages(document).map(\.url.absoluteString), ["https://shop.test/p"])
        XCTAssertEqual(document.problems.kept.map(\.reason), [.locTooLong(limitBytes: 100)])
    }

    func testTenThousandPagesParse() throws {
        let entries = (0..<10_000).map { (page: "https://shop.test/p/\($0)", images: ["https://cdn.shop.test/\($0).jpg"]) }
        let document = try SitemapDocument.parse(try SitemapText.gzip(SitemapText.urlset(entries)), url: url)
        let pages = pages(document)
        XCTAssertEqual(pages.count, 10_000)
        XCTAssertEqual(pages.last?.images.first?.url.absoluteString, "https://cdn.shop.test/9999.jpg")
    }

    func testMoreEntriesThanTheLimitAreRefused() {
        let text = SitemapText.index((1...4).map { "https://shop.test/s\($0).xml" })
        XCTAssertEqual(refusal(Data(text.utf8), limits: SitemapLimits(maxEntriesPerDocument: 3)), .tooManyEntries(sitemap: url, limit: 3))
        XCTAssertEqual(SitemapLimits().maxEntriesPerDocument, 50_000)
    }
}
