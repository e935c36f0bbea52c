@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
@testable import Downsample
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run` as cron runs it: the real binary, killed and re-run, against the
/// built-in server and against another OpenMarket-style server.
final class RunCommandTests: XCTestCase {
    /// kill -9 at seeded random points (during start-up, the crawl and the
    /// writes), re-running after each kill: the cache then verifies, holds no
    /// temp file, and has the same files, bytes and rows as an uninterrupted run.
    func testRunKilledAtRandomPointsManyTimesEndsWithTheCacheOfAnUninterruptedRun() async throws {
        let server = try await TestCatalog.start(products: 60, mix: .phone, shared: 0.02, without: 0.01)
        let directory = try makeTemporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache").path
        let referenceDirectory = directory.appendingPathComponent("reference").path
        let distinct = await TestCatalog.distinctThumbnails(server)
        func arguments(_ cache: String) -> [String] {
            ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "120",
             "--no-progress", "--concurrency", "4"]
        }

        let reference = try WarmBinary.run(arguments(referenceDirectory))
        XCTAssertEqual(reference.status, 0, reference.stderr)

        // Kill points are drawn in the run's progress, not in time (a re-run of a partly warm
        // cache is quicker than the first, by an amount that depends on the machine's load):
        // every fourth run is killed up to half a second after it started (start-up, the crawl or
        // the first writes), the others once they have stored a random number of new files, 1 to
        // a third of what is missing, plus up to 20 ms. So the kills land mid-warm on a fast
        // machine as on a slow one.
        var random = SplitMix64(seed: 20_230_323)
        var killedRunning = 0, killedBeforeTheWarmWasComplete = 0, killedEarly = 0
        for index in 0..<Self.kills {
            let stored = try Self.cachedFileCount(cacheDirectory)
            let early = index % 4 == 0
            let newFiles = early ? 0 : Int.random(in: 1...max(1, (distinct.count - stored) / 3), using: &random)
            let child = try WarmBinary.spawn(arguments(cacheDirectory))
            var exited = child.exitStatusIfExited()
            while newFiles > 0, exited == nil, try Self.cachedFileCount(cacheDirectory) < stored + newFiles {
                try await Task.sleep(for: .milliseconds(5))
                exited = child.exitStatusIfExited()
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...(early ? 500 : 20), using: &random)))
            if exited == nil, child.exitStatusIfExited() == nil {
                child.kill(SIGKILL)
                killedRunning += 1
                if early { killedEarly += 1 }
                _ = await child.waitForExit()
                // Counted from the files, not the manifest: opening the cache would tidy its tmp/.
                if try Self.cachedFileCount(cacheDirectory) < distinct.count { killedBeforeTheWarmWasComplete += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(killedRunning, Self.kills / 2, "most kills land while the run is going")
        // On a fast machine the runs between kills may finish the warm; some kill must still have cut it short.
        XCTAssertGreaterThan(killedBeforeTheWarmWasComplete, 0, "the kills interrupted the warm")

        let storedBeforeLastRun: Int
        do {
            let cache = try DiskCache.open(root: cacheDirectory)
            storedBeforeLastRun = try cache.maintenance.stats().entryCount
            try cache.close()
        }
        print("\(killedRunning) of \(Self.kills) kills hit a running warm (\(killedEarly) within half a second of its start), \(killedBeforeTheWarmWasComplete) before it was complete; \(storedBeforeLastRun) of \(distinct.count) thumbnails stored before the last run")
        await server.stats.reset()
        let rerun = try WarmBinary.run(arguments(cacheDirectory))
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let fetchedOnRerun = await server.stats.snapshot().requests(route: "thumbnail")
        await server.shutdown()
        XCTAssertLessThanOrEqual(fetchedOnRerun, distinct.count - storedBeforeLastRun, "only what was missing is fetched again")

        let verify = try WarmBinary.run(["cache", "verify", cacheDirectory])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory + "/tmp").count, 0, "no temp files remain")
        let killed = try CacheSnapshot(root: cacheDirectory, urls: distinct)
        let uninterrupted = try CacheSnapshot(root: referenceDirectory, urls: distinct)
        XCTAssertEqual(killed.rows.count, distinct.count)
        XCTAssertEqual(killed.rows, uninterrupted.rows, "same keys, variants, sizes and byte counts")
        XCTAssertEqual(killed.files, uninterrupted.files, "same files with the same bytes")
    }

    /// Regular files under the cache's `v1/` tree (one per cached variant).
    static func cachedFileCount(_ cacheDirectory: String) throws -> Int {
        let root = URL(fileURLWithPath: cacheDirectory).appendingPathComponent("v1")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return 0 }
        var count = 0
        for case let url as URL in walker where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            count += 1
        }
        return count
    }

    /// 8 kills keep the test near 30 s on the 2-core CI machine.
    static let kills = 8

    func testKilledDemoDoesNotLeaveItsCatalogServerHoldingThePort() async throws {
        let directory = try makeTemporaryDirectory()
        let port = try Socket.ephemeralPort()
        let demo = try WarmBinary.spawn(["demo", "--products", "400", "--port", String(port), "--dir", directory.path,
                                         "--no-progress", "--no-compare"])
        // Wait until the warm is under way (the cache exists), then kill -9 the demo.
        let manifest = directory.appendingPathComponent("cache/manifest.sqlite").path
        for _ in 0..<600 where !FileManager.default.fileExists(atPath: manifest) {
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: manifest))
        XCTAssertFalse(try Socket.canBind(port: port), "the demo's catalog server holds port \(port) while the warm runs")
        demo.kill(SIGKILL)
        _ = await demo.waitForExit()
        // The child `warm serve` notices and exits; the port is free again.
        var free = false
        for _ in 0..<50 where !free {
            try await Task.sleep(for: .milliseconds(200))
            free = (try? Socket.canBind(port: port)) ?? false
        }
        XCTAssertTrue(free, "port \(port) is still held after the demo was killed")
    }

    /// The demo hands its catalog server its own pid: a server that looked its parent up once
    /// could see the reaper instead, if the demo was killed just as the server started, and
    /// then it never stopped (it held a CI run until the time limit).
    func testTheDemosServerStopsWhenTheProcessNamedAsItsParentIsNot() async throws {
        let server = try WarmBinary.spawn(["serve", "--port", "0", "--products", "1", "--parent-pid", "1"])
        // Only a bound on a hang: the server checks its parent about once a second.
        var status = server.exitStatusIfExited()
        for _ in 0..<300 where status == nil {
            try await Task.sleep(for: .milliseconds(100))
            status = server.exitStatusIfExited()
        }
        if status == nil {
            server.kill(SIGTERM)
            _ = await server.waitForExit()
        }
        XCTAssertEqual(status, .exited(0), "warm serve --parent-pid 1 still runs after 30 s, or did not exit cleanly")
    }

    func testSecondConcurrentRunExitsAtOnceWithTheLockedStatus() throws {
        let directory = try makeTemporaryDirectory()
        let held = try CacheLock.acquire(root: directory.path)
        defer { held.release() }
        // The test holds the lock until it ends: a run that waited for it would never exit 75.
        let result = try WarmBinary.run(["run", "--api", "http://127.0.0.1:9", "--cache-dir", directory.path, "--no-progress"])
        XCTAssertEqual(result.status, 75)
        XCTAssertTrue(result.stderr.contains("another warm run"), result.stderr)
    }

    /// A different implementation of the API: Python's http.server serving a
    /// snake_case catalog whose thumbnails have no file extension.
    func testRunAgainstAnotherSnakeCaseServerWarmsEveryDistinctThumbnail() throws {
        let directory = try makeTemporaryDirectory()
        var files: [(name: String, data: Data)] = []
        for index in 0..<9 {
            files.append((name: "key\(index)_thumb", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 500, height: 400, seed: UInt64(index)), width: 500, height: 400, bands: 3,
                as: CompositionEncoding(format: [.jpeg, .png, .webp][index % 3]))))
        }
        // Ten products with thumbnails, the last two sharing one URL, and one without a picture.
        let server = try StaticCatalogServer(files: files, products: (0..<10).map { "key\(min($0, 8))_thumb" } + [nil],
                                             directory: directory)
        defer { server.stop() }
        let port = try XCTUnwrap(server.baseURL.port)

        let cacheDirectory = directory.appendingPathComponent("cache").path
        let prometheus = directory.appendingPathComponent("warm.prom").path
        let result = try WarmBinary.run(["run", "--api", "http://127.0.0.1:\(port)", "--cache-dir", cacheDirectory,
                                         "--items-per-page", "4", "--size", "100", "--size", "50", "--no-progress",
                                         "--prometheus-file", prometheus])
        XCTAssertEqual(result.status, 0, result.stderr)
        let metrics = try String(contentsOfFile: prometheus, encoding: .utf8)
        XCTAssertTrue(metrics.contains("warm_images{outcome=\"downloaded\"} 9\n"), metrics)
        XCTAssertTrue(metrics.contains("warm_last_run_success 1\n"), metrics)
        XCTAssertTrue(metrics.contains("# TYPE warm_products gauge\nwarm_products 11\n"), metrics)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cacheDirectory + "/last-run.json"))) as? [String: Any]
        XCTAssertEqual(summary?["productsUnique"] as? Int, 11)
        XCTAssertEqual(summary?["productsWithoutThumbnail"] as? Int, 1)
        XCTAssertEqual(summary?["imagesDownloaded"] as? Int, 9, "10 products with thumbnails share 9 URLs")
        let cache = try DiskCache.open(root: cacheDirectory)
        defer { try? cache.close() }
        XCTAssertEqual(try cache.maintenance.stats().entryCount, 18, "two sizes per image")
        for index in 0..<9 {
            let path = try XCTUnwrap(try cache.path(for: "http://127.0.0.1:\(port)/img/key\(index)_thumb", longestSide: 100))
            let header = try ImageSource(data: Data(contentsOf: URL(fileURLWithPath: path))).header
            XCTAssertEqual(PixelSize(width: header.width, height: header.height), PixelSize(width: 100, height: 80))
        }
    }
}
