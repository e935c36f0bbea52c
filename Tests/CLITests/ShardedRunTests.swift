@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
@testable import Servers
import Foundation
import WarmTestSupport
@testable import WarmSupport
import XCTest

/// `warm run --shard I/N` as a Kubernetes Indexed Job runs it: N processes at
/// once, one cache tree, then `warm cache merge`, `verify`, `report`, `check`.
final class ShardedRunTests: XCTestCase {
    /// Starts the `warm` binary without waiting; stdout and stderr go to files.
    private struct RunningWarm {
        let child: ChildProcess
        let output: URL

        init(_ arguments: [String], environment: [String: String] = [:], output: URL) throws {
            var overrides: [String: String?] = [CacheShard.completionIndexVariable: nil]
            for (name, value) in environment { overrides[name] = value }
            self.output = output
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            child = try WarmBinary.spawn(arguments, environment: overrides, standardOutput: .file(output.path),
                                         standardError: .file(output.path))
        }

        func finish() async throws -> (status: Int32, output: String) {
            let status = await child.waitForExit()
            return (status.shellStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
        }
    }

    private static func files(under root: URL) -> Set<String> {
        let base = root.appendingPathComponent("v1").path
        let names = FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []
        return Set(names.filter { $0.split(separator: "/").count == 3 })
    }

    private static func summary(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    func testThreeConcurrentShardsWarmExactlyTheImagesOfOneRunAndMergeIntoAVerifiedTree() async throws {
        let server = try await TestCatalog.start(products: 48)
        let directory = try makeTemporaryDirectory()
        let shared = directory.appendingPathComponent("shared")
        let single = directory.appendingPathComponent("single")
        let distinct = await TestCatalog.distinctThumbnails(server)
        let common = ["run", "--api", server.baseURL.absoluteString, "--size", "64", "--no-progress", "--compare",
                      "--items-per-page", "10", "--concurrency", "4", "--decode-concurrency", "1"]

        // Shards 0 and 1 by flag, shard 2 as a Kubernetes pod sees it: --shards 3 and JOB_COMPLETION_INDEX=2.
        await server.stats.reset()
        let shards = [
            try RunningWarm(common + ["--cache-dir", shared.path, "--shard", "0/3"], output: directory.appendingPathComponent("0.log")),
            try RunningWarm(common + ["--cache-dir", shared.path, "--shard", "1/3"], output: directory.appendingPathComponent("1.log")),
            try RunningWarm(common + ["--cache-dir", shared.path, "--shards", "3"], environment: ["JOB_COMPLETION_INDEX": "2"],
                            output: directory.appendingPathComponent("2.log")),
        ]
        for shard in shards {
            let (status, output) = try await shard.finish()
            XCTAssertEqual(status, 0, output)
        }
        let shardedRequests = await server.stats.snapshot().requests(route: "thumbnail")
        XCTAssertEqual(shardedRequests, distinct.count, "together the shards download every image once, none twice")

        var scheduled = 0
        var metricsFiles: [String] = []
        for index in 0..<3 {
            let state = shared.path + "/shards/\(index)-of-3"
            let summary = try Self.summary(state + "/last-run.json")
            XCTAssertEqual(summary["shard"] as? String, "\(index)/3")
            let own = try XCTUnwrap(summary["imagesScheduled"] as? Int)
            XCTAssertGreaterThan(own, 0, "every shard gets a share of 40-odd images")
            XCTAssertEqual(summary["imagesOtherShards"] as? Int, distinct.count - own, "the rest is counted as skipped")
            scheduled += own
            metricsFiles.append(state + "/metrics.jsonl")
            let metrics = try String(contentsOfFile: state + "/metrics.jsonl", encoding: .utf8)
            XCTAssertTrue(metrics.contains("\"shard\":\"\(index)\\/3\"") || metrics.contains("\"shard\":\"\(index)/3\""), metrics)
        }
        XCTAssertEqual(scheduled, distinct.count, "the shares are disjoint and cover the catalog")

        await server.stats.reset()
        let whole = try WarmBinary.run(common + ["--cache-dir", single.path])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        await server.shutdown()
        XCTAssertEqual(Self.files(under: shared), Self.files(under: single), "the same files as one unsharded run")
        XCTAssertEqual(Self.files(under: single).count, distinct.count)

        // Merge, verify, merge again (idempotent).
        let merge = try WarmBinary.run(["cache", "merge", shared.path])
        XCTAssertEqual(merge.status, 0, merge.stderr)
        XCTAssertTrue(merge.stdout.contains("merged 3 shards (0/3, 1/3, 2/3): \(distinct.count) rows added"), merge.stdout)
        let verify = try WarmBinary.run(["cache", "verify", shared.path])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("\(distinct.count) files checked, 0 problems, 0 orphans"), verify.stdout)
        let again = try WarmBinary.run(["cache", "merge", shared.path])
        XCTAssertTrue(again.stdout.contains("0 rows added, 0 updated, \(distinct.count) unchanged"), again.stdout)
        // Each merge publishes the merged manifest for origins on other hosts; the previous snapshot stays.
        XCTAssertTrue(merge.stdout.contains("published \(shared.path)/published/manifest-1.sqlite"), merge.stdout)
        XCTAssertTrue(again.stdout.contains("published \(shared.path)/published/manifest-2.sqlite"), again.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: shared.path + "/published").sorted(),
                       ["manifest-1.sqlite", "manifest-2.sqlite", "manifest.sqlite"])

        // The report over the three shards' metrics has the unsharded run's table.
        let shardedReport = directory.appendingPathComponent("report-sharded")
        let singleReport = directory.appendingPathComponent("report-single")
        let fromShards = try WarmBinary.run(["report", "--metrics"] + metricsFiles + ["--out", shardedReport.path, "--noise-repeats", "0"])
        XCTAssertEqual(fromShards.status, 0, fromShards.stderr)
        let fromOne = try WarmBinary.run(["report", "--metrics", single.path + "/metrics.jsonl", "--out", singleReport.path, "--noise-repeats", "0"])
        XCTAssertEqual(fromOne.status, 0, fromOne.stderr)
        XCTAssertEqual(fromShards.stdout.split(separator: "\n").last, fromOne.stdout.split(separator: "\n").last)
        // The header names the command, the build and the machine: provenance lives in the report.
        let header = try String(contentsOf: shardedReport.appendingPathComponent("memory-comparison.md"), encoding: .utf8)
        XCTAssertTrue(header.contains("Written by `warm report --metrics \(metricsFiles[0])"), header)
        XCTAssertTrue(header.contains("warm \(WarmVersion.current) (debug build), on \(ProcessInfo.processInfo.activeProcessorCount) cores"), header)
        func rows(_ report: URL) throws -> [String] {
            try String(contentsOf: report.appendingPathComponent("memory-comparison.md"), encoding: .utf8)
                .split(separator: "\n").map(String.init)
                .filter { $0.hasPrefix("| Total memory-cache use for all") || $0.hasPrefix("| Average per image |")
                    || $0.hasPrefix("| Images that fit") || $0.hasPrefix("| Times smaller than naive")
                    || $0.hasPrefix("| Less memory than naive") || $0.hasPrefix("| Read |") }
        }
        let shardedRows = try rows(shardedReport)
        // Total, average (also in the seeds' reference table), fit, two improvement rows, images read.
        XCTAssertEqual(shardedRows.count, 7, shardedRows.joined(separator: "\n"))
        XCTAssertEqual(shardedRows, try rows(singleReport))

        // warm check: a baseline of the unsharded run, checked against the shards' metrics.
        let baseline = directory.appendingPathComponent("baseline.json").path
        let update = try WarmBinary.run(["check", "--metrics", single.path + "/metrics.jsonl", "--baseline", baseline, "--update-baseline"])
        XCTAssertEqual(update.status, 0, update.stderr)
        // Shards measured side by side: their peaks and CPU are not the point here, every image compared is.
        let check = try WarmBinary.run(["check", "--metrics"] + metricsFiles + ["--baseline", baseline,
                                        "--peak-allowance-bytes", "100000000", "--peak-median-limit", "1000",
                                        "--peak-p90-limit", "1000", "--cpu-spread-limit", "1000"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("\(distinct.count) of \(distinct.count) baseline images compared (0 missing, 0 changed), 0 regressions"),
                      check.stdout)
    }

    func testBadShardFlagsAreUsageErrorsAndARunningShardLocksOnlyItself() throws {
        let directory = try makeTemporaryDirectory()
        let run = ["run", "--api", "http://127.0.0.1:9", "--cache-dir", directory.path, "--no-progress"]
        for bad in [["--shard", "3/3"], ["--shard", "1"], ["--shards", "0"], ["--shards", "3"],
                    ["--shard", "1/3", "--max-cache-size", "1MB"]] {
            let result = try WarmBinary.run(run + bad, environment: ["JOB_COMPLETION_INDEX": ""])
            XCTAssertEqual(result.status, 64, "\(bad): \(result.stderr)")
        }
        let held = try CacheLock.acquire(root: directory.path, shard: try CacheShard(index: 1, count: 3))
        defer { held.release() }
        let locked = try WarmBinary.run(run + ["--shard", "1/3"])
        XCTAssertEqual(locked.status, 75, locked.stderr)
        // Another shard is not blocked: it gets past the lock and fails on the unreachable API instead.
        let other = try WarmBinary.run(run + ["--shard", "2/3"])
        XCTAssertEqual(other.status, 6, other.stderr)
        XCTAssertTrue(other.stderr.contains("the API at http://127.0.0.1:9 could not be read"), other.stderr)
    }
}
