@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
import Foundation
@testable import Pipeline
import WarmTestSupport
import XCTest

/// `warm run` (the real binary) against the catalog server's fault mode: with
/// each fault the run finishes, records every failed image with its reason in
/// the manifest, the JSON summary and the Prometheus file, exits 2 (with
/// `--max-failed 0`; 6 when list pages failed), and a re-run fetches only what failed.
final class FaultRunTests: XCTestCase {
    /// Each image fault kind, its share of the 40 thumbnails, and the reason the run must report.
    func testEachImageFaultIsRecordedWithItsReasonAndARerunFetchesOnlyWhatFailed() async throws {
        let cases: [(spec: String, reason: String)] = [
            ("image-503=25%", "http-5xx"), ("image-429=20%", "http-429"), ("image-stall=15%", "timeout"),
            ("image-short=25%", "connection"), ("image-reset=25%", "connection"), ("image-html=25%", "not-an-image"),
            ("image-redirect-loop=25%", "too-many-redirects"), ("image-endless=10%", "too-large"),
        ]
        let server = try await FaultCatalog.start()
        let distinct = await TestCatalog.distinctThumbnails(server)
        for (spec, reason) in cases {
            let plan = try FaultPlan(parsing: spec, seed: 5)
            let failing = distinct.filter { plan.rule(forImagePath: URL(string: $0)!.path) != nil }
            XCTAssertFalse(failing.isEmpty, "\(spec) chooses no thumbnail of this catalog")
            let directory = try makeTemporaryDirectory("fault")
            await server.setFaultPlan(plan)

            // One attempt: these faults repeat on every attempt, so a retry would only wait (a stall's timeout, a
            // 429's pause); retries are FaultRunTests' transient case and HTTPFetcherTests'.
            let first = try FaultCatalog.run(server, directory, extra: ["--max-attempts", "1"])
            XCTAssertEqual(first.status, 2, "\(spec): \(first.stderr)")
            XCTAssertEqual(first.summary.imagesFailed, failing.count, spec)
            XCTAssertEqual(first.summary.failedByReason, [reason: failing.count], spec)
            XCTAssertEqual(first.summary.imagesDownloaded, distinct.count - failing.count, spec)
            XCTAssertTrue(first.prometheus.contains("warm_images_failed_by_reason{reason=\"\(reason)\"} \(failing.count)\n"), first.prometheus)
            XCTAssertTrue(first.prometheus.contains("warm_last_run_success 0\n"), spec)
            let cache = try DiskCache.open(root: directory.appendingPathComponent("cache").path)
            for url in distinct {
                let entry = try XCTUnwrap(try cache.lookup(url: url, variant: FaultCatalog.variant), url)
                if failing.contains(url) {
                    XCTAssertNil(entry.absolutePath, "\(spec): \(url)")
                    XCTAssertFalse(entry.lastError?.isEmpty ?? true, "\(spec): \(url) has no lastError")
                } else {
                    XCTAssertNil(entry.lastError, "\(spec): \(url)")
                }
            }
            try cache.close()

            // The server behaves again: only what failed is fetched.
            await server.setFaultPlan(nil)
            await server.stats.reset()
            let second = try FaultCatalog.run(server, directory)
            let served = await server.stats.snapshot()
            XCTAssertEqual(second.status, 0, "\(spec): \(second.stderr)")
            XCTAssertEqual(second.summary.imagesDownloaded, first.summary.imagesFailed, spec)
            XCTAssertEqual(second.summary.imagesFresh, distinct.count - failing.count, spec)
            XCTAssertEqual(Set(served.requestsByPath.keys.filter { $0.hasPrefix("/thumbnails/") }),
                           Set(failing.map { URL(string: $0)!.path }), spec)
        }
        await server.shutdown()
    }

    /// Transient faults that have cleared by the next run: the same plan, but
    /// each chosen URL fails only its first two requests (two attempts in run 1).
    func testTransientFaultsClearAndTheRerunFetchesOnlyWhatFailed() async throws {
        let server = try await FaultCatalog.start()
        let distinct = await TestCatalog.distinctThumbnails(server)
        let plan = try FaultPlan(parsing: "image-503=20%x2,image-reset=10%x2", seed: 11)
        await server.setFaultPlan(plan)
        let failing = distinct.filter { plan.rule(forImagePath: URL(string: $0)!.path) != nil }
        let directory = try makeTemporaryDirectory("transient")
        let first = try FaultCatalog.run(server, directory)
        XCTAssertEqual(first.status, 2, first.stderr)
        XCTAssertEqual(first.summary.imagesFailed, failing.count)
        XCTAssertEqual(first.summary.failedByReason.values.reduce(0, +), failing.count)
        await server.stats.reset()
        let second = try FaultCatalog.run(server, directory)
        let thumbnailRequests = await server.stats.snapshot().requests(route: "thumbnail")
        await server.shutdown()
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.summary.imagesDownloaded, first.summary.imagesFailed)
        XCTAssertEqual(thumbnailRequests, failing.count)
    }

    /// Pages that fail for good: the run reports them (exit 6) and the re-run
    /// fetches exactly the thumbnails of the products those pages held.
    func testFailedPagesAreReportedAndTheRerunFetchesTheirProducts() async throws {
        let server = try await FaultCatalog.start()
        let products = await server.products()
        for (spec, reason) in [("page-garbage=40%", "page-unparseable-page"), ("page-503=40%", "page-http-5xx"),
                               ("page-reset=30%", "page-connection"), ("page-repeat=30%", "page-repeated-page")] {
            let plan = try FaultPlan(parsing: spec, seed: 2)
            let failedPages = (1...FaultCatalog.pageCount).filter { plan.rule(forPage: $0) != nil }
            XCTAssertFalse(failedPages.isEmpty, "\(spec) chooses no page")
            // A repeating page p + 1 lists page p's products, so those are not lost.
            let lostPages = failedPages.filter { !(spec.hasPrefix("page-repeat") && failedPages.contains($0 + 1)) }
            let lost = Set(lostPages.flatMap { page in
                products[((page - 1) * FaultCatalog.itemsPerPage)..<(page * FaultCatalog.itemsPerPage)].compactMap { $0.thumbnailURL?.absoluteString }
            })
            let directory = try makeTemporaryDirectory("pages")
            await server.setFaultPlan(plan)
            let first = try FaultCatalog.run(server, directory, pages: true)
            XCTAssertEqual(first.status, 6, "\(spec): a list not read whole: \(first.stderr)")
            XCTAssertEqual(first.summary.reasonCode, .listIncomplete, spec)
            let reported = first.summary.pagesFailed
            if spec.hasPrefix("page-repeat") {
                // Which of two pages showing the same products gets the blame depends on the order they
                // arrive in; what matters is that a page is reported and nothing is lost for good.
                XCTAssertTrue((1...failedPages.count + 1).contains(reported), "\(spec): \(reported) pages reported")
            } else {
                XCTAssertEqual(reported, failedPages.count, spec)
            }
            XCTAssertEqual(first.summary.failedByReason, [reason: reported], spec)
            XCTAssertTrue(first.prometheus.contains("warm_pages_failed \(reported)\n"), spec)

            await server.setFaultPlan(nil)
            await server.stats.reset()
            let second = try FaultCatalog.run(server, directory, pages: true)
            let requested = await server.stats.snapshot().requestsByPath.keys.filter { $0.hasPrefix("/thumbnails/") }
            XCTAssertEqual(second.status, 0, "\(spec): \(second.stderr)")
            XCTAssertEqual(second.summary.imagesDownloaded, lost.count, spec)
            XCTAssertEqual(Set(requested), Set(lost.map { URL(string: $0)!.path }), spec)
        }
        await server.shutdown()
    }

    /// Faults a run must absorb without losing anything: slow bodies, and
    /// pages that shift or repeat while the list is crawled.
    func testSlowBodiesAndShiftingOrRepeatingPagesMissNothing() async throws {
        for spec in ["image-slow=30%", "page-shift=50%x1", "page-repeat=40%x1"] {
            let server = try await FaultCatalog.start()
            await server.setFaultPlan(try FaultPlan(parsing: spec, seed: 3))
            let directory = try makeTemporaryDirectory("absorb")
            // Products listed while the crawl runs are pushed in front of these; a product listed
            // after the crawl's last request cannot be seen by this run (the next one finds it).
            let listedAtStart = await TestCatalog.distinctThumbnails(server)
            // One page at a time: a shift lands right after the answer of a chosen page, and with pages fetched
            // concurrently where it lands among the other answers depends on timing; in two whole-suite runs (one
            // loaded, one on an idle machine) it landed after a pass's last answer and the run ended, truthfully,
            // with status 6 (list not read whole, nothing pruned). In order, the same seed moves the list at the
            // same points on every machine.
            let result = try FaultCatalog.run(server, directory, pages: true, extra: ["--page-concurrency", "1"])
            let listedAtEnd = await TestCatalog.distinctThumbnails(server)
            let served = await server.stats.snapshot()
            await server.shutdown()
            XCTAssertGreaterThan(served.faultsServed, 0, spec)
            XCTAssertEqual(result.status, 0, "\(spec): \(result.stderr)")
            XCTAssertTrue((listedAtStart.count...listedAtEnd.count).contains(result.summary.imagesDownloaded),
                          "\(spec): \(result.summary.imagesDownloaded) downloaded")
            let cache = try DiskCache.open(root: directory.appendingPathComponent("cache").path)
            for url in listedAtStart {
                XCTAssertNotNil(try cache.lookup(url: url, variant: FaultCatalog.variant)?.absolutePath, "\(spec) missed \(url)")
            }
            try cache.close()
        }
    }

    func testServeRefusesABadFaultSpecAndDocumentsTheKinds() throws {
        let bad = try WarmBinary.run(["serve", "--port", "0", "--faults", "image-garbage=5%"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("pages only"), bad.stderr)
        let help = try WarmBinary.run(["serve", "--help"])
        for word in ["--faults", "--fault-seed", "redirect-loop", "endless", "stall", "Retry-After"] {
            XCTAssertTrue(help.stdout.contains(word), "serve --help does not mention \(word)")
        }
    }
}

/// A 40-product catalog of small synthetic images, and `warm run` against it
/// with short timeouts so that every fault ends in seconds.
enum FaultCatalog {
    static let itemsPerPage = 5
    static let pageCount = 8
    static let variant = CacheVariant(longestSide: 48, format: .jpeg)

    static func start() async throws -> CatalogServer {
        try await CatalogServer.start(configuration: CatalogConfiguration(
            productCount: 40, seed: 7, sharedThumbnailFraction: 0, withoutThumbnailFraction: 0, photoDirectory: nil,
            imagePoolSize: 8, imageMix: .miniature), hooks: CatalogTestHooks())
    }

    struct Result {
        var status: Int32
        var summary: WarmSummary
        var prometheus: String
        var stderr: String
    }

    static func run(_ server: CatalogServer, _ directory: URL, pages: Bool = false, extra: [String] = []) throws -> Result {
        let cache = directory.appendingPathComponent("cache").path
        let prometheus = directory.appendingPathComponent("warm.prom").path
        let result = try WarmBinary.run([
            "run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "48", "--no-progress",
            "--items-per-page", String(pages ? itemsPerPage : 10), "--request-timeout", "5", "--max-attempts", "2",
            "--max-image-size", "2MB", "--max-failed", "0",
            "--prometheus-file", prometheus,
        ] + extra)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let summaryData = try Data(contentsOf: URL(fileURLWithPath: cache + "/last-run.json"))
        return Result(status: result.status, summary: try decoder.decode(WarmSummary.self, from: summaryData),
                      prometheus: (try? String(contentsOfFile: prometheus, encoding: .utf8)) ?? "", stderr: result.stderr)
    }
}
