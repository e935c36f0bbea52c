import Cache
import CacheTestSupport
import Foundation
import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run` on a real full file system: a 2 MB tmpfs as the cache
/// directory. Needs permission to mount (root, as in CI); skipped otherwise.
final class FullDiskTests: XCTestCase {
    func testFullDiskStopsTheRunEarlyWithAClearErrorLeavesNothingCorruptAndARerunCompletesOnceThereIsSpace() async throws {
        let server = try await TestCatalog.start(products: 120, mix: .phone, shared: 0, without: 0)
        let directory = try makeTemporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        let mounted = try Mount.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", cacheDirectory.path])
        guard mounted.status == 0 else {
            await server.shutdown()
            throw XCTSkip("cannot mount a tmpfs here (\(mounted.stderr.trimmingCharacters(in: .whitespacesAndNewlines))); the full-disk test needs root")
        }
        // Added after makeTemporaryDirectory's block, so it runs first: unmount, then remove.
        addTeardownBlock { _ = try? Mount.run(["umount", cacheDirectory.path]) }
        let distinct = await TestCatalog.distinctThumbnails(server)
        let summaryPath = directory.appendingPathComponent("summary.json").path
        let arguments = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cacheDirectory.path,
                         "--size", "600", "--no-progress", "--concurrency", "4", "--summary", summaryPath]

        let full = try WarmBinary.run(arguments)

        XCTAssertEqual(full.status, 1, "a full disk is 'could not run'\n" + full.stderr)
        XCTAssertTrue(full.stderr.contains("the disk is full while writing \(cacheDirectory.path)"), full.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any])
        XCTAssertEqual(summary["stoppedEarly"] as? Bool, true)
        XCTAssertTrue((summary["stopReason"] as? String)?.contains("disk is full") == true, "\(summary)")
        let downloaded = try XCTUnwrap(summary["imagesDownloaded"] as? Int)
        let failed = try XCTUnwrap(summary["imagesFailed"] as? Int)
        XCTAssertGreaterThan(downloaded, 0, "some thumbnails fitted")
        XCTAssertLessThan(downloaded + failed, distinct.count / 2, "stopped early instead of trying (and failing) every image")
        XCTAssertEqual(failed, 0, "no image is blamed for the full disk: \(summary["failedByReason"] ?? "")")

        let verifyFull = try WarmBinary.run(["cache", "verify", cacheDirectory.path])
        XCTAssertEqual(verifyFull.status, 0, "what was written is intact\n" + verifyFull.stdout + verifyFull.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path + "/tmp"), [], "no temp files remain")

        // Free space (the tmpfs grows, its contents stay) and run again.
        let grown = try Mount.run(["mount", "-o", "remount,size=64m", cacheDirectory.path])
        XCTAssertEqual(grown.status, 0, grown.stderr)
        await server.stats.reset()
        let rerun = try WarmBinary.run(arguments)
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        let fetched = await server.stats.snapshot().requests(route: "thumbnail")
        await server.shutdown()
        XCTAssertLessThanOrEqual(fetched, distinct.count - downloaded, "what was stored before the disk filled is kept")
        let verify = try WarmBinary.run(["cache", "verify", cacheDirectory.path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let cache = try DiskCache.open(root: cacheDirectory.path)
        defer { try? cache.close() }
        XCTAssertEqual(try cache.stats().entryCount, distinct.count)
    }
}

/// mount(8) and umount(8).
enum Mount {
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let outcome = try ChildProcess.run("/usr/bin/env", arguments: arguments, environment: ProcessInfo.processInfo.environment)
        return (outcome.status.shellStatus, outcome.stderr)
    }
}
