@testable import Crawl
import Fetch
import Foundation
import XCTest

final class SitemapWalkerTests: XCTestCase {
    private let root = URL(string: "https://shop.test/sitemap.xml")!

    private func walk(_ fetcher: InMemoryFetcher, limits: SitemapLimits = SitemapLimits()) async throws -> SitemapWalk {
        try await SitemapWalker(fetcher: fetcher, limits: limits).walk(root)
    }

    private func refusal(_ fetcher: InMemoryFetcher, limits: SitemapLimits = SitemapLimits()) async -> SitemapError? {
        do {
            _ = try await SitemapWalker(fetcher: fetcher, limits: limits).walk(root)
            return nil
        } catch {
            return error
        }
    }

    func testAnIndexWithAGzippedChildYieldsExactlyTheImagesNamedInDocumentOrder() async throws {
        let fetcher = InMemoryFetcher(bodies: [
            root.absoluteString: Data(SitemapText.index(["https://shop.test/products.xml.gz", "https://shop.test/pages.xml"]).utf8),
            "https://shop.test/products.xml.gz": try SitemapText.gzip(SitemapText.urlset([
                (page: "https://shop.test/p/1", images: ["https://cdn.shop.test/1a.jpg", "https://cdn.shop.test/1b.jpg"]),
                (page: "https://shop.test/p/2", images: ["https://cdn.shop.test/2a.jpg", "https://cdn.shop.test/1a.jpg"]),
            ])),
            "https://shop.test/pages.xml": Data(SitemapText.urlset([
                (page: "https://shop.test/about", images: []),
                (page: "https://shop.test/p/3", images: ["https://cdn.shop.test/3a.jpg"]),
            ], imagePrefix: "img").utf8),
        ])
        let walk = try await walk(fetcher)
        XCTAssertEqual(walk.images.map(\.url.lastPathComponent), ["1a.jpg", "1b.jpg", "2a.jpg", "3a.jpg"])
        XCTAssertEqual(walk.images.map(\.productID), ["https://shop.test/p/1", "https://shop.test/p/1",
                                                      "https://shop.test/p/2", "https://shop.test/p/3"])
        XCTAssertEqual(walk.images.map(\.position), [0, 1, 0, 0])
        XCTAssertEqual(walk.images[3].source, "https://shop.test/pages.xml line 8")
        XCTAssertEqual([walk.sitemapsRead, walk.pages, walk.pagesWithoutImages, walk.duplicates, walk.problems.count], [3, 4, 1, 1, 0])
        XCTAssertEqual(Set(fetcher.requested), [root, URL(string: "https://shop.test/products.xml.gz")!, URL(string: "https://shop.test/pages.xml")!])
        XCTAssertEqual(walk.description,
                       "Read 3 sitemaps from https://shop.test/sitemap.xml: 4 pages, 4 images, 1 duplicates, 1 pages without images.")
    }

    func testARootURLSetIsTheWholeWalk() async throws {
        let fetcher = InMemoryFetcher(texts: [root.absoluteString: SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])])])
        let walk = try await walk(fetcher)
        XCTAssertEqual(walk.images.map(\.url.absoluteString), ["https://cdn.shop.test/a.jpg"])
        XCTAssertEqual(walk.sitemapsRead, 1)
    }

    func testAChildThatCannotBeFetchedFailsTheWalkNamingIt() async {
        let failing = URL(string: "https://shop.test/s2.xml")!
        let fetcher = InMemoryFetcher(bodies: [
            root.absoluteString: Data(SitemapText.index(["https://shop.test/s1.xml", failing.absoluteString]).utf8),
            "https://shop.test/s1.xml": Data(SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])]).utf8),
        ], failures: [failing.absoluteString: .httpStatus(url: failing, status: 503, attempts: 3)])
        let error = await refusal(fetcher)
        XCTAssertEqual(error, .fetchFailed(sitemap: failing, error: .httpStatus(url: failing, status: 503, attempts: 3)))
        XCTAssertEqual(error?.sitemap, failing)
        XCTAssertEqual(error?.description,
                       "The sitemap https://shop.test/s2.xml could not be fetched: https://shop.test/s2.xml answered HTTP 503 after 3 attempts.")
    }

    func testAChildThatDoesNotParseFailsTheWalkNamingIt() async {
        let fetcher = InMemoryFetcher(texts: [
            root.absoluteString: SitemapText.index(["https://shop.test/s1.xml", "https://shop.test/s2.xml"]),
            "https://shop.test/s1.xml": SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])]),
            "https://shop.test/s2.xml": #"<!DOCTYPE urlset [<!ENTITY x SYSTEM "file:///etc/passwd">]><urlset>&x;</urlset>"#,
        ])
        let error = await refusal(fetcher)
        XCTAssertEqual(error, .doctype(sitemap: URL(string: "https://shop.test/s2.xml")!, line: 1))
    }

    func testAnIndexListingItselfIsRefused() async {
        let fetcher = InMemoryFetcher(texts: [root.absoluteString: SitemapText.index(["https://shop.test/s1.xml", root.absoluteString])])
        let error = await refusal(fetcher)
        XCTAssertEqual(error, .loop(sitemap: root, listedBy: root))
        XCTAssertEqual(error?.description, "The sitemap index https://shop.test/sitemap.xml lists https://shop.test/sitemap.xml, "
                       + "which is itself or an index above it; the loop was not followed.")
        XCTAssertEqual(fetcher.requested, [root])
    }

    func testANestedIndexListingTheRootIsRefused() async {
        let nested = URL(string: "https://shop.test/nested.xml")!
        let fetcher = InMemoryFetcher(texts: [
            root.absoluteString: SitemapText.index([nested.absoluteString]),
            nested.absoluteString: SitemapText.index([root.absoluteString]),
        ])
        let error = await refusal(fetcher)
        XCTAssertEqual(error, .loop(sitemap: root, listedBy: nested))
    }

    func testASitemapListedTwiceIsReadOnce() async throws {
        let child = "https://shop.test/s1.xml"
        let fetcher = InMemoryFetcher(texts: [
            root.absoluteString: SitemapText.index([child, "https://shop.test/nested.xml", child]),
            "https://shop.test/nested.xml": SitemapText.index([child]),
            child: SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])]),
        ])
        let walk = try await walk(fetcher)
        XCTAssertEqual(walk.images.map(\.url.absoluteString), ["https://cdn.shop.test/a.jpg"])
        XCTAssertEqual([walk.sitemapsRead, walk.sitemapsRepeated], [3, 2])
        XCTAssertEqual(fetcher.requested.filter { $0.absoluteString == child }.count, 1)
    }

    func testNestedIndexesAreFollowedToTheLevelLimitAndNoFurther() async throws {
        let texts = [
            root.absoluteString: SitemapText.index(["https://shop.test/level1.xml"]),
            "https://shop.test/level1.xml": SitemapText.index(["https://shop.test/level2.xml"]),
            "https://shop.test/level2.xml": SitemapText.index(["https://shop.test/leaf.xml"]),
            "https://shop.test/leaf.xml": SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg"])]),
        ]
        let error = await refusal(InMemoryFetcher(texts: texts))
        XCTAssertEqual(error, .tooDeep(sitemap: URL(string: "https://shop.test/level2.xml")!,
                                       listedBy: URL(string: "https://shop.test/level1.xml")!, maxIndexLevels: 2))
        XCTAssertEqual(error?.description, "The sitemap index https://shop.test/level2.xml, listed by https://shop.test/level1.xml, "
                       + "is nested deeper than 2 index levels; it was not followed.")
        let walk = try await walk(InMemoryFetcher(texts: texts), limits: SitemapLimits(maxIndexLevels: 3))
        XCTAssertEqual(walk.images.map(\.url.absoluteString), ["https://cdn.shop.test/a.jpg"])
        XCTAssertEqual(walk.sitemapsRead, 4)
    }

    func testChildrenAreFetchedAtMostConcurrencyAtATime() async throws {
        var texts = [root.absoluteString: SitemapText.index((0..<12).map { "https://shop.test/s\($0).xml" })]
        for index in 0..<12 {
            texts["https://shop.test/s\(index).xml"] = SitemapText.urlset([(page: "https://shop.test/p/\(index)",
                                                                           images: ["https://cdn.shop.test/\(index).jpg"])])
        }
        let fetcher = InMemoryFetcher(texts: texts)
        let walk = try await walk(fetcher, limits: SitemapLimits(concurrency: 3))
        XCTAssertEqual(walk.images.map(\.url.lastPathComponent), (0..<12).map { "\($0).jpg" })
        XCTAssertLessThanOrEqual(fetcher.maxInFlight, 3)
        XCTAssertEqual(fetcher.requested.count, 13)
    }

    func testTheWalksLimitsOnSitemapsAndImagesStopIt() async {
        let texts = [
            root.absoluteString: SitemapText.index(["https://shop.test/s1.xml", "https://shop.test/s2.xml"]),
            "https://shop.test/s1.xml": SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg", "https://cdn.shop.test/b.jpg"])]),
            "https://shop.test/s2.xml": SitemapText.urlset([(page: "https://shop.test/p/2", images: ["https://cdn.shop.test/c.jpg"])]),
        ]
        let tooManySitemaps = await refusal(InMemoryFetcher(texts: texts), limits: SitemapLimits(maxSitemaps: 2))
        XCTAssertEqual(tooManySitemaps, .tooManySitemaps(root: root, limit: 2))
        let tooManyImages = await refusal(InMemoryFetcher(texts: texts), limits: SitemapLimits(maxImages: 2))
        XCTAssertEqual(tooManyImages, .tooManyImages(root: root, limit: 2))
    }

    func testProblemsOfEverySitemapAreCountedAndTheRestListed() async throws {
        let fetcher = InMemoryFetcher(texts: [
            root.absoluteString: SitemapText.index(["https://shop.test/s1.xml", "not a url"]),
            "https://shop.test/s1.xml": SitemapText.urlset([(page: "https://shop.test/p/1", images: ["https://cdn.shop.test/a.jpg", "data:x"])]),
        ])
        let walk = try await walk(fetcher)
        XCTAssertEqual(walk.images.map(\.url.absoluteString), ["https://cdn.shop.test/a.jpg"])
        XCTAssertEqual(walk.problems.kept.map(\.place), ["https://shop.test/sitemap.xml line 4", "https://shop.test/s1.xml line 6"])
    }
}
