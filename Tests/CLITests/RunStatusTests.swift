@testable import Downsample
import Foundation
import WarmTestSupport
import XCTest

/// What `warm run` (the real binary) tells cron, Kubernetes and Prometheus when the product list cannot be read, and
/// under its failure budget (`--max-failed`): the exit status, last-run.json and the Prometheus file.
final class RunStatusTests: XCTestCase {
    /// A small JPEG; every product gets its own URL, so the bytes may repeat.
    private static let jpeg: Data = try! ImageComposer.encode(
        pixels: ImageComposer.pattern(width: 48, height: 32, seed: 3), width: 48, height: 32, bands: 3,
        as: CompositionEncoding(format: .jpeg))

    private func startCatalog(images: Int, products: [String?]? = nil,
                              _ name: String = #function) throws -> (server: StaticCatalogServer, directory: URL) {
        let directory = try makeTemporaryDirectory(name)
        let server = try StaticCatalogServer(files: (0..<images).map { ("p\($0)", Self.jpeg) }, products: products,
                                             directory: directory)
        addTeardownBlock { server.stop() }
        return (server, directory)
    }

    private struct Run {
        var result: WarmBinary.Result
        var summary: [String: Any]
        var prometheus: String
    }

    private func run(api: String, directory: URL, _ extra: [String] = []) throws -> Run {
        let cache = directory.appendingPathComponent("cache").path
        let prometheus = directory.appendingPathComponent("warm.prom").path
        let result = try WarmBinary.run([
            "run", "--api", api, "--cache-dir", cache, "--size", "32", "--items-per-page", "50", "--no-progress",
            "--request-timeout", "5", "--max-attempts", "2", "--prometheus-file", prometheus,
        ] + extra)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: cache + "/last-run.json"))) as? [String: Any], result.stderr)
        return Run(result: result, summary: summary,
                   prometheus: try String(contentsOfFile: prometheus, encoding: .utf8))
    }

    /// Nothing listening, a list that answers 404, a first page of HTML: each exits 6 within its two attempts, says why
    /// naming the API, writes success false and its reason code, and prunes nothing even with `--prune-after 0`.
    func testARunThatCannotReadTheListExitsSixSaysWhyAndPrunesNothing() throws {
        let (server, directory) = try startCatalog(images: 6)
        let warmed = try run(api: server.baseURL.absoluteString, directory: directory)
        XCTAssertEqual(warmed.result.status, 0, warmed.result.stderr)
        XCTAssertTrue(warmed.prometheus.contains("warm_last_run_success 1\n"), warmed.prometheus)
        let cache = directory.appendingPathComponent("cache").path
        let urls = Set((0..<6).map { server.url(of: "p\($0)") })
        let before = try CacheSnapshot(root: cache, urls: urls)
        XCTAssertEqual(before.files.count, 6)
        let deadAPI = "http://127.0.0.1:\(try Socket.ephemeralPort())"
        let cases: [(name: String, api: String, answer: (status: Int, body: String)?, reasonCode: String)] = [
            ("nothing listening", deadAPI, nil, "api-unreachable"),
            ("a 404 list", server.baseURL.absoluteString, (404, "<html><body>Not Found</body></html>"), "api-error-status"),
            ("a first page of HTML", server.baseURL.absoluteString,
             (200, "<!doctype html><html><body>Our shop has moved</body></html>"), "api-bad-answer"),
        ]
        for item in cases {
            if let answer = item.answer { try server.answerList(status: answer.status, body: answer.body) }
            let failed = try run(api: item.api, directory: directory, ["--prune-after", "0"])
            XCTAssertEqual(failed.result.status, 6, "\(item.name): \(failed.result.stderr)")
            XCTAssertEqual(failed.summary["success"] as? Bool, false, item.name)
            XCTAssertEqual(failed.summary["reasonCode"] as? String, item.reasonCode, item.name)
            let reason = try XCTUnwrap(failed.summary["reason"] as? String, item.name)
            XCTAssertTrue(reason.contains("the API at \(item.api)"), "\(item.name): \(reason)")
            // Counted, not timed: the fetcher names its attempts when it made more than one.
            XCTAssertNil(reason.range(of: #"after ([3-9]|\d\d+) attempts"#, options: .regularExpression),
                         "\(item.name): more attempts than --max-attempts 2: \(reason)")
            if item.reasonCode == "api-unreachable" {
                XCTAssertTrue(reason.contains("after 2 attempts"), "\(item.name): a refused connection is retried once: \(reason)")
            }
            XCTAssertTrue(failed.result.stderr.contains("error: the API at \(item.api)"), "\(item.name): \(failed.result.stderr)")
            XCTAssertEqual(failed.summary["version"] as? String, try WarmBinary.run(["--version"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines), item.name)
            XCTAssertTrue(failed.prometheus.contains("warm_last_run_success 0\n"), "\(item.name): \(failed.prometheus)")
            XCTAssertTrue(failed.prometheus.contains("warm_last_run_reason{reason=\"\(item.reasonCode)\"} 1\n"), item.name)
            XCTAssertNotNil(failed.summary["lastSuccessAt"] as? String, "\(item.name): the warm run's success is kept")
            XCTAssertEqual(try CacheSnapshot(root: cache, urls: urls), before, "\(item.name): nothing was pruned")
        }
    }

    /// Pages that fail for good after page 1 was read: the list is incomplete, which no image budget covers.
    func testAPageThatFailsForGoodExitsSixAsListIncomplete() throws {
        let (server, directory) = try startCatalog(images: 6)
        try server.failPages([2])
        let failed = try run(api: server.baseURL.absoluteString, directory: directory, ["--items-per-page", "3"])
        XCTAssertEqual(failed.result.status, 6, failed.result.stderr)
        XCTAssertEqual(failed.summary["reasonCode"] as? String, "list-incomplete")
        XCTAssertEqual(failed.summary["imagesFailed"] as? Int, 0, "the images of page 1 were warmed")
        XCTAssertTrue(failed.prometheus.contains("warm_last_run_success 0\n"), failed.prometheus)
    }

    /// One image of 200 answers 404 for ever: within the default budget (1%) the run exits 0 and lists it; with
    /// `--max-failed 0` the same night exits 2.
    func testOneBrokenImageOf200IsListedButFailsTheRunOnlyOverTheBudget() throws {
        let products: [String?] = (0..<199).map { "p\($0)" } + ["gone"]
        let (server, directory) = try startCatalog(images: 199, products: products)
        let within = try run(api: server.baseURL.absoluteString, directory: directory)
        XCTAssertEqual(within.result.status, 0, within.result.stderr)
        XCTAssertEqual(within.result.stderr, "", "the documented cron line mails nothing on a night within its budget")
        XCTAssertEqual(within.result.stdout.split(separator: "\n").count, 1, "one summary line:\n\(within.result.stdout)")
        XCTAssertTrue(within.result.stdout.contains("1 failed"), within.result.stdout)
        XCTAssertEqual(within.summary["success"] as? Bool, true)
        XCTAssertEqual(within.summary["imagesScheduled"] as? Int, 200)
        XCTAssertEqual(within.summary["maxFailedImages"] as? Int, 2, "1% of 200")
        XCTAssertEqual(within.summary["failedByReason"] as? [String: Int], ["http-404": 1])
        let listed = try XCTUnwrap(within.summary["failedImages"] as? [[String: Any]])
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(listed.first?["url"] as? String, server.url(of: "gone"))
        XCTAssertEqual(listed.first?["productIds"] as? [Int], [1199])
        XCTAssertEqual(listed.first?["reasonCode"] as? String, "http-404")
        XCTAssertTrue((listed.first?["reason"] as? String ?? "").contains("404"), "\(listed)")
        XCTAssertTrue(within.prometheus.contains("warm_last_run_success 1\n"), within.prometheus)
        XCTAssertTrue(within.prometheus.contains("warm_images_failed_by_reason{reason=\"http-404\"} 1\n"), within.prometheus)
        XCTAssertTrue(within.prometheus.contains("warm_max_failed_images 2\n"), within.prometheus)

        let over = try run(api: server.baseURL.absoluteString, directory: directory, ["--max-failed", "0"])
        XCTAssertEqual(over.result.status, 2, over.result.stderr)
        XCTAssertEqual(over.summary["reasonCode"] as? String, "over-failure-budget")
        XCTAssertEqual(over.summary["imagesFresh"] as? Int, 199)
        XCTAssertTrue(over.prometheus.contains("warm_last_run_success 0\n"), over.prometheus)
        XCTAssertTrue(over.prometheus.contains("warm_last_run_reason{reason=\"over-failure-budget\"} 1\n"), over.prometheus)
        XCTAssertTrue(over.result.stderr.contains("more than --max-failed 0 allows"), over.result.stderr)
        XCTAssertTrue(over.result.stderr.contains("\(server.url(of: "gone")) (product 1199): "), "a failed run names its failed image:\n\(over.result.stderr)")

        let told = try run(api: server.baseURL.absoluteString, directory: directory, ["--log-level", "info"])
        XCTAssertEqual(told.result.status, 0, told.result.stderr)
        XCTAssertTrue(told.result.stderr.contains("\(server.url(of: "gone")) (product 1199): "), "at info, as it happens:\n\(told.result.stderr)")
    }

    /// A held lock: the running job's summary and Prometheus file are left alone, and stderr says so.
    func testALockedCacheExits75AndLeavesTheRunningJobsFilesAlone() throws {
        let (server, directory) = try startCatalog(images: 2)
        let first = try run(api: server.baseURL.absoluteString, directory: directory)
        XCTAssertEqual(first.result.status, 0, first.result.stderr)
        let cache = directory.appendingPathComponent("cache")
        let files = [cache.appendingPathComponent("last-run.json"), directory.appendingPathComponent("warm.prom")]
        let before = try files.map { try Data(contentsOf: $0) }
        let holder = try CacheLockHolder(path: cache.appendingPathComponent(".lock").path)
        defer { holder.release() }
        let locked = try WarmBinary.run(["run", "--api", "http://127.0.0.1:9", "--cache-dir", cache.path, "--no-progress",
                                         "--prometheus-file", files[1].path])
        XCTAssertEqual(locked.status, 75, locked.stderr)
        XCTAssertTrue(locked.stderr.contains("wrote no summary and no Prometheus file"), locked.stderr)
        XCTAssertEqual(try files.map { try Data(contentsOf: $0) }, before)
    }

    /// A cache directory that cannot be used (here a file): exit 1, and the Prometheus file, which lives elsewhere,
    /// still says so instead of keeping the last good night's figures.
    func testACacheThatCannotBeOpenedStillWritesItsPrometheusFile() throws {
        let directory = try makeTemporaryDirectory()
        let notADirectory = directory.appendingPathComponent("cache")
        try Data("not a directory".utf8).write(to: notADirectory)
        let prometheus = directory.appendingPathComponent("warm.prom")
        try Data("warm_last_run_success 1\n".utf8).write(to: prometheus)
        let result = try WarmBinary.run(["run", "--api", "http://127.0.0.1:9", "--cache-dir", notADirectory.path, "--no-progress",
                                         "--prometheus-file", prometheus.path])
        XCTAssertEqual(result.status, 1, result.stderr)
        let text = try String(contentsOf: prometheus, encoding: .utf8)
        XCTAssertTrue(text.contains("warm_last_run_success 0\n"), text)
        XCTAssertTrue(text.contains("warm_last_run_reason{reason=\"cache-unusable\"} 1\n"), text)
    }

    func testVersionPrintsTheSemanticVersionAndExitsZero() throws {
        let result = try WarmBinary.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertNotNil(result.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression), result.stdout)
    }

    func testMaxFailedRefusesWhatIsNeitherACountNorAPercentage() throws {
        for bad in ["-1", "101%", "abc", "1.5", "nan%"] {
            let result = try WarmBinary.run(["run", "--api", "http://127.0.0.1:9", "--cache-dir", "/nonexistent", "--max-failed", bad])
            XCTAssertEqual(result.status, 64, "\(bad): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--max-failed"), "\(bad): \(result.stderr)")
        }
    }
}

/// Holds a cache directory's lock (`flock`, as `CacheLock` takes it) from this process.
private struct CacheLockHolder {
    let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0, flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    func release() {
        close(descriptor)
    }
}
