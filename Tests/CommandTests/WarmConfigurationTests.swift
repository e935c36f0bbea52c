@testable import Fetch
@testable import Pipeline
@testable import warm
import XCTest

/// The run's configuration as `warm run` builds it from its option groups, in the test process.
final class WarmConfigurationTests: XCTestCase {
    private func run(_ options: [String]) throws -> RunCommand {
        try RunCommand.parse(["--api", "http://127.0.0.1:9/", "--cache-dir", "cache"] + options)
    }

    private func configuration(_ options: [String]) throws -> WarmConfiguration {
        let command = try run(options)
        return try command.configuration(source: command.target.source, cacheDirectory: "cache", compare: .none, shard: nil)
    }

    func testEachGroupsOptionsReachItsOwnPieceOfTheConfiguration() throws {
        let given = try configuration(["--size", "400", "--size", "120", "--format", "webp,jpeg", "--quality", "jpeg=70,webp=80",
                                       "--max-age", "2h", "--concurrency", "5", "--max-image-size", "8MiB", "--max-pixels", "1000000",
                                       "--decode-concurrency", "3", "--summary", "s.json", "--max-failed", "2"])
        XCTAssertEqual(given.thumbnails.longestSides, [120, 400])
        XCTAssertEqual(given.thumbnails.formats, [.webp, .jpeg])
        XCTAssertEqual(given.thumbnails.encoder.jpegQuality, 70)
        XCTAssertEqual(given.thumbnails.encoder.webpQuality, 80)
        XCTAssertEqual(given.freshness.maxAgeSeconds, 7200)
        XCTAssertEqual(given.fetching.concurrency, 5)
        XCTAssertEqual(given.decoding.concurrency, 3)
        XCTAssertEqual(given.limits, .init(maxPixels: 1_000_000, maxEncodedBytes: 8 << 20), "one --max-image-size for download and decode")
        XCTAssertEqual(given.fetching.http.maxBodyBytes, 8 << 20)
        XCTAssertEqual(given.output.summaryPath, "s.json")
        XCTAssertEqual(given.maxFailed, .count(2))
    }

    /// One source of images: `--api`, `--urls` or `--sitemap`, each to its own `CatalogSource`; none, or two, is a usage
    /// error naming them.
    func testExactlyOneSourceIsGivenAndEachBecomesItsCatalogSource() throws {
        let cache = ["--cache-dir", "cache"]
        XCTAssertEqual(try RunCommand.parse(["--urls", "-"] + cache).target.source, .urlList(path: "-"))
        XCTAssertEqual(try RunCommand.parse(["--sitemap", "https://shop.test/sitemap.xml"] + cache).target.source,
                       .sitemap(URL(string: "https://shop.test/sitemap.xml")!))
        XCTAssertEqual(try RunCommand.parse(["--api", "http://127.0.0.1:9/"] + cache).target.source,
                       .openMarket(api: URL(string: "http://127.0.0.1:9/")!))
        for (arguments, named) in [(["--api", "http://a.test/", "--urls", "u.txt"], ["--api", "--urls"]),
                                   (["--urls", "u.txt", "--sitemap", "http://a.test/s.xml"], ["--urls", "--sitemap"]),
                                   ([], ["--api", "--urls", "--sitemap"]),
                                   (["--sitemap", "/local/sitemap.xml"], ["--sitemap"])] {
            guard case .rejected(let status, let message) = CommandParsing.parse(["run"] + arguments + cache) else {
                XCTFail("\(arguments) was accepted")
                continue
            }
            XCTAssertEqual(status, 64, "\(arguments)")
            for option in named { XCTAssertTrue(message.contains(option), "\(arguments): \(message)") }
        }
    }

    func testWithoutOptionsTheConfigurationIsTheLibrarysDefault() throws {
        let parsed = try configuration([])
        let library = WarmConfiguration(source: parsed.source, cacheDirectory: "cache")
        XCTAssertEqual(parsed.thumbnails.sizes, library.thumbnails.sizes)
        XCTAssertEqual(parsed.thumbnails.formats, library.thumbnails.formats)
        XCTAssertEqual(parsed.freshness.maxAgeSeconds, library.freshness.maxAgeSeconds)
        XCTAssertEqual(parsed.freshness.pruneAfterSeconds, library.freshness.pruneAfterSeconds)
        XCTAssertEqual(parsed.fetching.concurrency, library.fetching.concurrency)
        XCTAssertEqual(parsed.fetching.http, library.fetching.http)
        XCTAssertEqual(parsed.limits, library.limits)
    }

    /// The option added to show that an option touches its group (FetchOptions) and its consumer (HTTPFetcher) only.
    func testUserAgentReachesTheFetchConfigurationAndABadOneIsRefused() throws {
        let agent = "shop-warm/2 (+https://shop.example/bot)"
        XCTAssertEqual(try configuration(["--user-agent", agent]).fetching.http.userAgent, agent)
        XCTAssertEqual(try configuration([]).fetching.http.userAgent, FetchConfiguration().userAgent)
        for bad in ["", "warm\r\nX-Injected: 1"] {
            guard case .rejected(let status, let message) = CommandParsing.parse(["run", "--api", "http://127.0.0.1:9/", "--cache-dir", "c",
                                                                                  "--user-agent", bad]) else {
                XCTFail("\(bad.debugDescription) was accepted")
                continue
            }
            XCTAssertEqual(status, 64)
            XCTAssertTrue(message.contains("--user-agent"), message)
        }
    }
}
