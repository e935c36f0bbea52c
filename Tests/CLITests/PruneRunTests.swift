@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run --prune-after`, `warm cache gc` and `warm cache merge
/// --max-cache-size` with the real binary, against a loopback catalog whose
/// list changes between runs.
final class PruneRunTests: XCTestCase {
    private static let imageCount = 6

    /// A Python catalog serving `imageCount` distinct JPEGs, one product each,
    /// from a temporary directory; stopped when the test ends. `cache`: a cache
    /// directory's path inside it.
    private func startCatalog(_ name: String = #function) throws -> (server: StaticCatalogServer, directory: URL, cache: String) {
        let directory = try makeTemporaryDirectory(name)
        var files: [(name: String, data: Data)] = []
        for index in 0..<Self.imageCount {
            files.append((name: "p\(index)", data: try ImageComposer.encode(
                pixels: ImageComposer.pattern(width: 320, height: 240, seed: UInt64(index + 1)), width: 320, height: 240,
                bands: 3, as: CompositionEncoding(format: .jpeg))))
        }
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        return (server, directory, directory.appendingPathComponent("cache").path)
    }

    private func run(_ server: StaticCatalogServer, cache: String, _ extra: [String] = [],
                     environment: [String: String] = [:]) throws -> WarmBinary.Result {
        try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64",
                            "--items-per-page", "2", "--no-progress", "--concurrency", "2", "--decode-concurrency", "1"] + extra,
                           environment: environment)
    }

    private func summary(_ cache: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: cache + "/last-run.json"))) as? [String: Any])
    }

    /// Canonical URLs in the cache's manifest, and whether each one's file is there.
    private func cachedURLs(_ cache: String, server: StaticCatalogServer) throws -> [String: Bool] {
        let disk = try DiskCache.open(root: cache, removingTemporaryFiles: false)
        defer { try? disk.close() }
        var found: [String: Bool] = [:]
        for index in 0..<Self.imageCount {
            let entries = try disk.entries(forURL: server.url(of: "p\(index)"))
            if let entry = entries.first { found["p\(index)"] = entry.fileIsPresent }
        }
        return found
    }

    private func assertVerifies(_ cache: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let verify = try WarmBinary.run(["cache", "verify", cache])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr, file: file, line: line)
    }

    private func filesOnDisk(_ cache: String) -> Int {
        let names = FileManager.default.enumerator(atPath: cache + "/v1")?.compactMap { $0 as? String } ?? []
        return names.filter { $0.split(separator: "/").count == 3 }.count
    }

    func testProductsDroppedFromTheCatalogAreKeptWithSevenDaysAndPrunedWithZero() throws {
        let (server, directory, cache) = try startCatalog()
        let prometheus = directory.appendingPathComponent("warm.prom").path

        let first = try run(server, cache: cache)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try cachedURLs(cache, server: server).count, 6)

        // The marketplace deleted products 4 and 5 overnight.
        try server.setProducts(["p0", "p1", "p2", "p3"])
        let week = try run(server, cache: cache, ["--prune-after", "7d"])
        XCTAssertEqual(week.status, 0, week.stderr)
        XCTAssertEqual(try summary(cache)["prunedEntries"] as? Int, 0)
        XCTAssertEqual(try cachedURLs(cache, server: server), ["p0": true, "p1": true, "p2": true, "p3": true, "p4": true, "p5": true],
                       "seen a moment ago, so not gone for a week")
        try assertVerifies(cache)

        let sizes = try DiskCache.open(root: cache, removingTemporaryFiles: false)
        let droppedBytes = try ["p4", "p5"].reduce(0) { $0 + (try sizes.entries(forURL: server.url(of: $1)).first?.outputBytes ?? 0) }
        try sizes.close()
        let zero = try run(server, cache: cache, ["--prune-after", "0", "--prometheus-file", prometheus])
        XCTAssertEqual(zero.status, 0, zero.stderr)
        let pruned = try summary(cache)
        XCTAssertEqual(pruned["prunedEntries"] as? Int, 2)
        XCTAssertEqual(pruned["prunedBytes"] as? Int, droppedBytes)
        XCTAssertEqual(try cachedURLs(cache, server: server), ["p0": true, "p1": true, "p2": true, "p3": true])
        XCTAssertEqual(filesOnDisk(cache), 4, "the dropped products' files are gone too")
        let metrics = try String(contentsOfFile: prometheus, encoding: .utf8)
        XCTAssertTrue(metrics.contains("\nwarm_pruned_entries 2\n"), metrics)
        XCTAssertTrue(metrics.contains("\nwarm_pruned_bytes \(droppedBytes)\n"), metrics)
        try assertVerifies(cache)
    }

    func testARunWithAFailedPagePrunesNothing() throws {
        let (server, _, cache) = try startCatalog()
        XCTAssertEqual(try run(server, cache: cache).status, 0)

        // p0 is really gone, but page 3 (p4, p5) fails for good: nothing may be pruned.
        try server.setProducts(["p1", "p2", "p3", "p4", "p5"])
        try server.failPages([3])
        let failed = try run(server, cache: cache, ["--prune-after", "0", "--max-attempts", "1"])
        XCTAssertEqual(failed.status, 6, "a list not read whole is its own failure: " + failed.stderr)
        XCTAssertEqual(try summary(cache)["reasonCode"] as? String, "list-incomplete")
        let result = try summary(cache)
        XCTAssertGreaterThan(try XCTUnwrap(result["pagesFailed"] as? Int), 0)
        XCTAssertEqual(result["prunedEntries"] as? Int, 0)
        XCTAssertNotNil(result["pruneSkippedReason"] as? String)
        XCTAssertEqual(try cachedURLs(cache, server: server).count, 6, "neither p0 nor the failed page's images were pruned")
        try assertVerifies(cache)

        // Once the list is whole again, p0 goes.
        try server.failPages([])
        XCTAssertEqual(try run(server, cache: cache, ["--prune-after", "0"]).status, 0)
        XCTAssertEqual(try summary(cache)["prunedEntries"] as? Int, 1)
        XCTAssertNil(try cachedURLs(cache, server: server)["p0"])
        try assertVerifies(cache)
    }

    func testAKillDuringPruningLeavesACacheThatVerifiesAfterGC() async throws {
        let (server, directory, cache) = try startCatalog()
        XCTAssertEqual(try run(server, cache: cache).status, 0)
        try server.setProducts(["p0", "p1", "p2"])

        // The run stops right after committing the row deletions, before any file is removed; kill -9 it there.
        let output = directory.appendingPathComponent("killed.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let child = try WarmBinary.spawn(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "64",
                                          "--items-per-page", "2", "--no-progress", "--prune-after", "0"],
                                         environment: ["WARM_CRASH_REHEARSAL": "afterPrunedRowsDeleted"],
                                         standardOutput: .file(output.path), standardError: .file(output.path))
        // Only a bound on a hang: the run reaches the prune long before.
        let deadline = Date().addingTimeInterval(120)
        while !((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("crash rehearsal: stopped at afterPrunedRowsDeleted") {
            guard Date() < deadline, child.exitStatusIfExited() == nil else {
                child.kill(SIGTERM)
                _ = await child.waitForExit()
                return XCTFail("the run never reached the prune: " + ((try? String(contentsOf: output, encoding: .utf8)) ?? ""))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        child.kill(SIGKILL)
        let killed = await child.waitForExit()
        XCTAssertEqual(killed, .signalled(SIGKILL))

        let dirty = try WarmBinary.run(["cache", "verify", cache])
        XCTAssertEqual(dirty.status, 1, "the pruned rows' files are orphans now")
        XCTAssertTrue(dirty.stdout.contains("0 problems, 3 orphans"), dirty.stdout)
        XCTAssertEqual(try cachedURLs(cache, server: server).count, 3, "the rows went first")

        // gc needs the lock: while a run holds it, it exits 75 and removes nothing.
        let held = try CacheLock.acquire(root: cache)
        let refused = try WarmBinary.run(["cache", "gc", cache])
        held.release()
        XCTAssertEqual(refused.status, 75, refused.stderr)
        XCTAssertEqual(filesOnDisk(cache), 6)

        let gc = try WarmBinary.run(["cache", "gc", cache])
        XCTAssertEqual(gc.status, 0, gc.stderr)
        XCTAssertEqual(gc.stdout.components(separatedBy: "removed orphan file: ").count - 1, 3, gc.stdout)
        XCTAssertEqual(filesOnDisk(cache), 3)
        try assertVerifies(cache)
    }

    func testShardsPruneTheirOwnShareAndMergeKeepsPrunedRowsPruned() throws {
        let (server, _, cache) = try startCatalog()
        for shard in ["0/2", "1/2"] { XCTAssertEqual(try run(server, cache: cache, ["--shard", shard]).status, 0) }
        XCTAssertEqual(try WarmBinary.run(["cache", "merge", cache]).status, 0)
        XCTAssertEqual(try cachedURLs(cache, server: server).count, 6)

        try server.setProducts(["p0", "p2", "p4"])
        var pruned = 0
        for (index, shard) in ["0/2", "1/2"].enumerated() {
            XCTAssertEqual(try run(server, cache: cache, ["--shard", shard, "--prune-after", "0"]).status, 0)
            let state = cache + "/shards/\(index)-of-2/last-run.json"
            let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: state))) as? [String: Any])
            pruned += try XCTUnwrap(summary["prunedEntries"] as? Int)
        }
        XCTAssertEqual(pruned, 3, "together the shards prune each dropped image once")
        let merge = try WarmBinary.run(["cache", "merge", cache])
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertEqual(Set(try cachedURLs(cache, server: server).keys), ["p0", "p2", "p4"])
        try assertVerifies(cache)
        XCTAssertEqual(try WarmBinary.run(["cache", "merge", cache]).status, 0)
        XCTAssertEqual(Set(try cachedURLs(cache, server: server).keys), ["p0", "p2", "p4"], "merging again brings nothing back")
    }

    func testAShardedTreeMergedWithMaxCacheSizeEndsAtOrBelowTheLimitAndVerifies() throws {
        let (server, _, cache) = try startCatalog()
        let refused = try run(server, cache: cache, ["--shard", "0/2", "--max-cache-size", "10KB"])
        XCTAssertEqual(refused.status, 64, "a shard sees only its share: " + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("warm cache merge DIR --max-cache-size"), refused.stderr)

        for shard in ["0/2", "1/2"] { XCTAssertEqual(try run(server, cache: cache, ["--shard", shard, "--size", "200"]).status, 0) }
        XCTAssertEqual(try WarmBinary.run(["cache", "merge", cache]).status, 0)
        let disk = try DiskCache.open(root: cache, removingTemporaryFiles: false)
        let total = try disk.maintenance.stats().totalBytes
        try disk.close()
        let limit = total / 2

        let merge = try WarmBinary.run(["cache", "merge", cache, "--max-cache-size", "\(limit)"])
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("evicted"), merge.stdout)
        let after = try DiskCache.open(root: cache, removingTemporaryFiles: false)
        let remaining = try after.maintenance.stats().totalBytes
        try after.close()
        XCTAssertLessThanOrEqual(remaining, limit)
        XCTAssertGreaterThan(remaining, 0)
        let onDisk = (FileManager.default.enumerator(atPath: cache + "/v1")?.compactMap { $0 as? String } ?? [])
            .filter { $0.split(separator: "/").count == 3 }
            .reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: cache + "/v1/" + $1)[.size] as? Int) ?? 0) }
        XCTAssertLessThanOrEqual(onDisk, limit, "the files on disk, not only the manifest, fit")
        try assertVerifies(cache)

        // The shards' manifests lost the evicted rows too: a merge brings none back, and `evict` is the same step.
        XCTAssertEqual(try WarmBinary.run(["cache", "merge", cache]).status, 0)
        try assertVerifies(cache)
        let evict = try WarmBinary.run(["cache", "evict", cache, "--max-size", "\(limit / 2)"])
        XCTAssertEqual(evict.status, 0, evict.stderr)
        try assertVerifies(cache)
    }
}
