@testable import Cache
import CacheTestSupport
import Foundation
import Logging
@testable import Servers
import WarmTestSupport
import XCTest

/// The origin on a sharded tree (what each replica does on Kubernetes): it serves the snapshot `warm cache merge`
/// publishes (`published/manifest.sqlite`, immutable), not the tree's live manifest; switches to the next one while
/// clients ask, with no 5xx and no torn body; and keeps its last good index, ready, when the newest cannot be opened.
final class PublishedSnapshotServingTests: XCTestCase {
    private let images = (0..<4).map { "https://img.example.test/p/\($0).jpg" }
    private let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func data(_ index: Int) -> Data {
        Data((0..<(1500 + index * 100)).map { UInt8(truncatingIfNeeded: $0 &* (index + 3)) })
    }

    private func store(_ cache: DiskCache, _ indexes: [Int]) throws {
        for index in indexes {
            try cache.store(url: images[index], productIds: [index + 1], variant: variant, data: data(index),
                            metadata: CacheMetadata(sourceBytes: 1000, sourceFormat: "jpeg", sourceWidth: 800, sourceHeight: 600,
                                                    outputWidth: 300, outputHeight: 225, fetchedAt: Date().timeIntervalSince1970))
        }
    }

    /// A shard's night: its own manifest under `shards/0-of-2/`, files in the shared `v1/`.
    private func shardRun(_ root: String, _ indexes: [Int]) throws {
        let shard = try DiskCache.open(root: root, shard: CacheShard(index: 0, count: 2))
        try store(shard, indexes)
        try shard.close()
    }

    /// What `warm cache merge DIR` does.
    private func mergeAndPublish(_ root: String) throws {
        _ = try CacheMaintenance.mergeTree(root: root, maxBytes: nil, publishing: true, logger: Logger(label: "merge-test"))
    }

    private func thumbnail(_ index: Int) -> String {
        OriginHarness.thumbnailPath(url: images[index], size: 300, format: "jpeg")
    }

    func testTheOriginServesEachPublishedSnapshotAndSwitchesWithNo5xxOrTornBodyWhileClientsAsk() async throws {
        let root = try makeTemporaryDirectory().appendingPathComponent("cache").path
        // Before any merge: one host, the tree's own manifest (WAL) is served.
        let tree = try DiskCache.open(root: root)
        try store(tree, [0])
        try tree.close()
        var configuration = OriginConfiguration()
        configuration.hotSetBytes = 0  // every answer reads its file, across the switches
        let origin = try await OriginHarness.serve(self, root: root, configuration: configuration)
        let unpublished = try await origin.get(thumbnail(0))
        XCTAssertEqual(unpublished.status, 200)

        try shardRun(root, [1])
        try mergeAndPublish(root)
        try await eventually("the first snapshot's image is served") { try await origin.get(thumbnail(1)).status == 200 }
        // A row written to the live manifest after the publish is not what the origin reads.
        let writer = try DiskCache.open(root: root)
        try store(writer, [3])
        try writer.close()
        try await Task.sleep(for: .milliseconds(500))  // five refreshes: long enough to see it, were it read
        let live = try await origin.get(thumbnail(3))
        XCTAssertEqual(live.status, 404, "the origin reads the published snapshot, not the manifest the merge writes")

        let ledger = AnswerLedger()
        let expected = (0..<2).map(data)
        let clients = Task.detached { [images] in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<4 {
                    group.addTask {
                        var request = client
                        while !Task.isCancelled {
                            let index = request % 2
                            let answer = try await origin.get(OriginHarness.thumbnailPath(url: images[index], size: 300, format: "jpeg"))
                            await ledger.add(answer.status, whole: answer.body == expected[index])
                            request += 1
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try shardRun(root, [2])
        try mergeAndPublish(root)
        try await eventually("the second snapshot's image is served") { try await origin.get(thumbnail(2)).status == 200 }
        let seen = await ledger.count
        try await eventually("more requests after the switch") { await ledger.count > seen + 20 }
        clients.cancel()
        if case .failure(let error) = await clients.result, !(error is CancellationError) { throw error }

        let (statuses, torn) = await (ledger.statuses, ledger.torn)
        XCTAssertEqual(statuses.keys.sorted(), [200], "every image asked for is in both snapshots: \(statuses)")
        XCTAssertEqual(torn, 0, "every body is the file's whole bytes")
        let published3 = try await origin.get(thumbnail(3))
        XCTAssertEqual(published3.status, 200, "the second merge published the live row too")
        let text = try await origin.metricsText()
        XCTAssertTrue(text.contains("warm_origin_index_files 4\n"), text)
        XCTAssertTrue(text.contains("warm_origin_index_reload_failing 0\n"), text)
        let published = PublishedManifest(root: root).directory
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: published).sorted(),
                       ["manifest-1.sqlite", "manifest-2.sqlite", "manifest.sqlite"],
                       "an immutable reader leaves no -shm or -wal beside the snapshots")
    }

    func testAnUnreadablePublishedSnapshotKeepsTheLastGoodIndexServingAndReady() async throws {
        let root = try makeTemporaryDirectory().appendingPathComponent("cache").path
        try shardRun(root, [0, 1])
        try mergeAndPublish(root)
        let origin = try await OriginHarness.serve(self, root: root)
        let loaded = try await origin.metricsText()
        XCTAssertTrue(loaded.contains("warm_origin_index_reload_failing 0\n"), loaded)
        XCTAssertTrue(loaded.contains("warm_origin_index_files 2\n"), loaded)

        let published = PublishedManifest(root: root)
        // A torn copy behind the pointer, then a pointer to a snapshot that is gone.
        try Data(String(repeating: "not a database ", count: 100).utf8).write(
            to: URL(fileURLWithPath: published.directory + "/manifest-7.sqlite"))
        for target in ["manifest-7.sqlite", "manifest-8.sqlite"] {
            XCTAssertEqual(symlink(target, published.directory + "/next"), 0)
            XCTAssertEqual(rename(published.directory + "/next", published.pointerPath), 0)
            try await eventually("the gauge says \(target) cannot be read") {
                try await origin.metricsText().contains("warm_origin_index_reload_failing 1\n")
            }
            for index in 0..<2 {
                let answer = try await origin.get(thumbnail(index))
                XCTAssertEqual(answer.status, 200, "the last good index still serves \(images[index]) (\(target))")
                XCTAssertEqual(answer.body, data(index))
            }
            let health = try await origin.get("/healthz")
            XCTAssertEqual(health.status, 200, "a bad publish does not take the replica out of the Service (\(target))")
            XCTAssertTrue(String(decoding: health.body, as: UTF8.self).contains(target), "the reason names the file")
            // Back to the good one, so the next target's failure is a new one.
            XCTAssertEqual(symlink("manifest-1.sqlite", published.directory + "/next"), 0)
            XCTAssertEqual(rename(published.directory + "/next", published.pointerPath), 0)
            try await eventually("the good snapshot is read again") {
                try await origin.metricsText().contains("warm_origin_index_reload_failing 0\n")
            }
        }

        try shardRun(root, [2])
        try mergeAndPublish(root)
        try await eventually("the next good publish is served") { try await origin.get(thumbnail(2)).status == 200 }
        let healthy = try await origin.get("/healthz")
        XCTAssertEqual(String(decoding: healthy.body, as: UTF8.self), "ok\n")
    }
}

/// What the clients of the switch test received.
private actor AnswerLedger {
    private(set) var statuses: [Int: Int] = [:]
    private(set) var torn = 0
    var count: Int { statuses.values.reduce(0, +) }

    func add(_ status: Int, whole: Bool) {
        statuses[status, default: 0] += 1
        if status == 200 && !whole { torn += 1 }
    }
}
