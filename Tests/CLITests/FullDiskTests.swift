@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
import Foundation
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run` on a real full file system: a small tmpfs as the cache directory. Needs permission to mount (root, as in
/// CI); skipped otherwise.
final class FullDiskTests: XCTestCase {
    func testFullDiskFailsTheNightInEveryReportKeepsReadsAndWhatWasCachedAndARerunCompletesOnceThereIsSpace() async throws {
        let before = try await TestCatalog.start(products: 3, mix: .phone, shared: 0, without: 0)
        let server = try await TestCatalog.start(products: 120, mix: .phone, shared: 0, without: 0)
        let directory = try makeTemporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        do {
            try mountTmpfs(at: cacheDirectory, size: "2m")
        } catch {
            await before.shutdown()
            await server.shutdown()
            throw error
        }
        let cachedBefore = await TestCatalog.distinctThumbnails(before).sorted()
        let distinct = await TestCatalog.distinctThumbnails(server)
        // The summary where a deployment has it, on the full volume; the Prometheus file on another (node_exporter's).
        let summaryPath = cacheDirectory.appendingPathComponent("last-run.json").path
        let prometheusPath = directory.appendingPathComponent("warm.prom").path
        func arguments(_ catalog: CatalogServer) -> [String] {
            ["run", "--api", catalog.baseURL.absoluteString, "--cache-dir", cacheDirectory.path, "--size", "600",
             "--no-progress", "--concurrency", "4", "--prometheus-file", prometheusPath] + WarmBinary.patient
        }
        let earlier = try WarmBinary.run(arguments(before))
        await before.shutdown()
        XCTAssertEqual(earlier.status, 0, earlier.stderr)
        XCTAssertEqual(try summary(summaryPath)["success"] as? Bool, true, "an earlier night's success is in place")

        // A night that finds the volume already full (no room even for the summary's reserve): the earlier success is
        // removed, freeing its blocks, and tonight's failure written in its place. Deterministic, unlike the night below,
        // where the failed stores' temp files free a few blocks before the summary is written.
        let filler = cacheDirectory.appendingPathComponent("filler").path
        try fill(filler)
        let noRoom = try WarmBinary.run(arguments(server))
        XCTAssertEqual(noRoom.status, 1, noRoom.stderr)
        XCTAssertTrue(noRoom.stderr.contains("the disk is full while writing \(cacheDirectory.path)"), noRoom.stderr)
        let noRoomNight = try summary(summaryPath)
        XCTAssertEqual(noRoomNight["success"] as? Bool, false, "not the earlier night's success: \(noRoomNight)")
        XCTAssertNotNil(noRoomNight["lastSuccessAt"], "the earlier success is carried over, not lost")
        XCTAssertTrue(try String(contentsOfFile: prometheusPath, encoding: .utf8).contains("\nwarm_last_run_success 0\n"))
        try FileManager.default.removeItem(atPath: filler)

        let full = try WarmBinary.run(arguments(server))

        XCTAssertEqual(full.status, 1, "a full disk is 'could not run'\n" + full.stderr)
        XCTAssertTrue(full.stderr.contains("the disk is full while writing \(cacheDirectory.path)"), full.stderr)
        let night = try summary(summaryPath)
        XCTAssertEqual(night["success"] as? Bool, false, "last-run.json says tonight failed: \(night)")
        XCTAssertEqual(night["reasonCode"] as? String, "stopped-early")
        XCTAssertEqual(night["stoppedEarly"] as? Bool, true)
        XCTAssertTrue((night["stopReason"] as? String)?.contains("disk is full") == true, "\(night)")
        XCTAssertNotNil(night["lastSuccessAt"], "the earlier success is carried over, not lost")
        let prometheus = try String(contentsOfFile: prometheusPath, encoding: .utf8)
        XCTAssertTrue(prometheus.contains("\nwarm_last_run_success 0\n"), prometheus)
        let downloaded = try XCTUnwrap(night["imagesDownloaded"] as? Int)
        let failed = try XCTUnwrap(night["imagesFailed"] as? Int)
        XCTAssertGreaterThan(downloaded, 0, "some thumbnails fitted")
        XCTAssertLessThan(downloaded + failed, distinct.count / 2, "stopped early instead of trying (and failing) every image")
        XCTAssertEqual(failed, 0, "no image is blamed for the full disk: \(night["failedByReason"] ?? "")")

        // Whatever the run left free, fill it: reads must not need a block.
        try fill(filler)
        for url in cachedBefore {
            let get = try WarmBinary.run(["cache", "get", cacheDirectory.path, url, "--size", "600"])
            XCTAssertEqual(get.status, 0, "cache get on a full disk: " + get.stderr)
            XCTAssertTrue(get.stdout.hasPrefix(cacheDirectory.path + "/v1/"), get.stdout)
        }
        let stats = try WarmBinary.run(["cache", "stats", cacheDirectory.path, "--json"])
        XCTAssertEqual(stats.status, 0, "cache stats on a full disk: " + stats.stderr)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])["entries"] as? Int
        XCTAssertEqual(entries, cachedBefore.count + downloaded, "nothing cached before is lost")
        let verifyFull = try WarmBinary.run(["cache", "verify", cacheDirectory.path])
        XCTAssertEqual(verifyFull.status, 0, "what was written is intact\n" + verifyFull.stdout + verifyFull.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path + "/tmp"), [], "no temp files remain")
        try FileManager.default.removeItem(atPath: filler)

        // Free space (the tmpfs grows, its contents stay) and run again.
        let grown = try Mount.run(["mount", "-o", "remount,size=64m", cacheDirectory.path])
        XCTAssertEqual(grown.status, 0, grown.stderr)
        await server.stats.reset()
        let rerun = try WarmBinary.run(arguments(server))
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let fetched = await server.stats.snapshot().requests(route: "thumbnail")
        await server.shutdown()
        XCTAssertEqual(try summary(summaryPath)["success"] as? Bool, true)
        XCTAssertTrue(try String(contentsOfFile: prometheusPath, encoding: .utf8).contains("\nwarm_last_run_success 1\n"))
        XCTAssertLessThanOrEqual(fetched, distinct.count - downloaded, "what was stored before the disk filled is kept")
        let verify = try WarmBinary.run(["cache", "verify", cacheDirectory.path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        XCTAssertEqual(try cache.maintenance.stats().entryCount, cachedBefore.count + distinct.count)
    }

    func testAPercentageCacheSizeIsThatShareOfTheVolumeReadWithStatvfs() async throws {
        let server = try await TestCatalog.start(products: 60, mix: .phone, shared: 0, without: 0)
        let directory = try makeTemporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        do {
            try mountTmpfs(at: cacheDirectory, size: "16m")
        } catch {
            await server.shutdown()
            throw error
        }
        let limit = 16 * 1024 * 1024 / 20
        let summaryPath = directory.appendingPathComponent("summary.json").path
        let run = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cacheDirectory.path,
                                      "--size", "600", "--no-progress", "--max-cache-size", "5%", "--summary", summaryPath] + WarmBinary.patient)
        await server.shutdown()

        XCTAssertEqual(run.status, 0, run.stderr)
        let night = try summary(summaryPath)
        XCTAssertGreaterThan(try XCTUnwrap(night["bytesWritten"] as? Int), limit, "the run wrote more than 5% of 16 MiB")
        XCTAssertGreaterThan(try XCTUnwrap(night["evictedEntries"] as? Int), 0)
        let cache = try DiskCache.open(root: cacheDirectory.path, readOnly: true)
        defer { try? cache.close() }
        let kept = try cache.maintenance.stats().totalBytes
        XCTAssertLessThanOrEqual(kept, limit, "evicted down to 5% of the tmpfs' 16 MiB")
        XCTAssertGreaterThan(kept, limit / 2, "and no further than the limit needs")
    }

    private func mountTmpfs(at path: URL, size: String) throws {
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let mounted = try Mount.run(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path.path])
        guard mounted.status == 0 else {
            throw XCTSkip("cannot mount a tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); the full-disk test needs root")
        }
        // Added after makeTemporaryDirectory's block, so it runs first: unmount, then remove.
        addTeardownBlock { _ = try? Mount.run(["umount", path.path]) }
    }

    private func summary(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// Writes 4 KiB blocks to `path` until the file system refuses one (ENOSPC).
    private func fill(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let block = [UInt8](repeating: 1, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        XCTAssertEqual(errno, ENOSPC)
    }
}

/// mount(8) and umount(8).
enum Mount {
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let outcome = try ChildProcess.run("/usr/bin/env", arguments: arguments, environment: ProcessInfo.processInfo.environment)
        return (outcome.status.shellStatus, outcome.stderr)
    }
}
