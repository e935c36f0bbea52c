@testable import Downsample
import Foundation
import WarmTestSupport
import XCTest

/// `warm cache serve`'s /metrics carries the nightly runs' figures, read from the cache's summaries on every scrape
/// and labelled by shard, so that scraping the origin Deployment watches a sharded Job with no Pushgateway.
final class OriginRunMetricsTests: XCTestCase {
    private func run(_ api: String, cache: String, shard: String) throws -> WarmBinary.Result {
        try WarmBinary.run(["run", "--api", api, "--cache-dir", cache, "--shard", shard, "--size", "32", "--no-progress",
                            "--max-attempts", "1", "--decode-concurrency", "1"])
    }

    func testMetricsShowEachShardsLastRunAndFollowANewRunWithoutARestart() async throws {
        let directory = try makeTemporaryDirectory()
        let jpeg = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 48, height: 32, seed: 5), width: 48,
                                            height: 32, bands: 3, as: CompositionEncoding(format: .jpeg))
        let server = try StaticCatalogServer(files: (0..<8).map { ("p\($0)", jpeg) }, directory: directory)
        addTeardownBlock { server.stop() }
        let cache = directory.appendingPathComponent("cache").path
        XCTAssertEqual(try run(server.baseURL.absoluteString, cache: cache, shard: "0/2").status, 0)
        let deadAPI = "http://127.0.0.1:\(try Socket.ephemeralPort())"
        XCTAssertEqual(try run(deadAPI, cache: cache, shard: "1/2").status, 6)
        XCTAssertEqual(try WarmBinary.run(["cache", "merge", cache]).status, 0)
        let version = try WarmBinary.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let origin = try OriginProcess(cache: cache, self)
        let first = try await metrics(origin)
        for line in [
            "warm_build_info{component=\"origin\",version=\"\(version)\"} 1",
            "warm_build_info{component=\"run\",version=\"\(version)\",shard=\"0/2\"} 1",
            "warm_last_run_success{shard=\"0/2\"} 1", "warm_last_run_success{shard=\"1/2\"} 0",
            "warm_last_run_reason{reason=\"api-unreachable\",shard=\"1/2\"} 1",
            "warm_last_run_reason{reason=\"ok\",shard=\"0/2\"} 1",
            "warm_last_run_summaries_unreadable 0",
        ] {
            XCTAssertTrue(first.contains("\n" + line + "\n"), "missing \(line):\n\(first)")
        }
        XCTAssertTrue(first.contains("\nwarm_last_success_timestamp_seconds{shard=\"0/2\"} "), first)
        XCTAssertFalse(first.contains("warm_last_success_timestamp_seconds{shard=\"1/2\"}"), "shard 1 never succeeded")
        try assertParses(first)
        // A metric renamed in code would leave an alert that never fires.
        let alerted = try PrometheusRulesTests.metricNames()
        XCTAssertGreaterThanOrEqual(alerted.count, 6, "\(alerted)")
        for name in alerted {
            XCTAssertTrue(first.contains("\n# TYPE \(name) "), "the rules name \(name), /metrics has no such family")
        }

        // The API is back: the next run of shard 1 shows on the next scrape.
        XCTAssertEqual(try run(server.baseURL.absoluteString, cache: cache, shard: "1/2").status, 0)
        let second = try await metrics(origin)
        XCTAssertTrue(second.contains("\nwarm_last_run_success{shard=\"1/2\"} 1\n"), second)
        XCTAssertTrue(second.contains("\nwarm_last_run_reason{reason=\"api-unreachable\",shard=\"1/2\"} 0\n"), second)

        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: cache + "/shards/1-of-2/last-run.json"))
        let third = try await metrics(origin)
        XCTAssertTrue(third.contains("\nwarm_last_run_summaries_unreadable 1\n"), third)
        XCTAssertFalse(third.contains("shard=\"1/2\""), third)
        try assertParses(third)
        _ = try await origin.terminate()
    }

    private func metrics(_ origin: OriginProcess) async throws -> String {
        let answer = try await origin.get("/metrics")
        XCTAssertEqual(answer.status, 200)
        return "\n" + String(decoding: answer.body, as: UTF8.self)
    }

    /// `promtool check metrics`: the exposition parses (each family once, in one group) and passes its lint.
    private func assertParses(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try PromTool.run(["check", "metrics"], input: Data(text.dropFirst().utf8))
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    }
}
