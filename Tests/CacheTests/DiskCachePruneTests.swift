import Foundation
import GRDB
import XCTest
@testable import Cache
import CacheTestSupport

/// Prune (rows not listed since a cutoff), garbage collection, the v2 schema
/// migration and eviction over a sharded tree, on real SQLite and real files.
final class DiskCachePruneTests: CacheTestCase {
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private func url(_ name: String) -> String { "https://img.example.com/\(name).jpg" }

    private func store(_ cache: DiskCache, _ name: String, seed: UInt64, fetchedAt: Double = 1000) throws -> CacheEntry {
        try cache.store(url: url(name), productIds: [Int(seed)], variant: variant, data: try jpeg(seed: seed),
                        metadata: metadata(fetchedAt: fetchedAt))
    }

    func testPruneRemovesRowsAndFilesNotListedSinceTheCutoffAndKeepsTheRest() throws {
        let cache = try openCache()
        let kept = try store(cache, "kept", seed: 1)
        let gone = try store(cache, "gone", seed: 2)
        XCTAssertEqual(try cache.markListed(urls: [url("kept")], at: 5000), 1)

        let result = try cache.prune(listedBefore: 5000)
        XCTAssertEqual(result.removedCount, 1)
        XCTAssertEqual(result.removedBytes, gone.outputBytes ?? -1)
        XCTAssertEqual(result.remainingBytes, kept.outputBytes ?? -1)
        XCTAssertNil(try cache.lookup(url: url("gone"), variant: variant, recordingAccess: false))
        XCTAssertFalse(fileExists(gone.absolutePath!))
        XCTAssertEqual(try cache.lookup(url: url("kept"), variant: variant, recordingAccess: false)?.fileIsPresent, true)
        XCTAssertTrue(fileExists(kept.absolutePath!))
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
        XCTAssertEqual(try cache.prune(listedBefore: 5000).removedCount, 0, "a second prune finds nothing")
    }

    func testACrashAfterThePrunedRowsAreDeletedLeavesOnlyOrphansThatGarbageCollectionRemoves() throws {
        let faulty = try openCache(faults: { $0 == .afterPrunedRowsDeleted ? EIO : nil })
        let gone = try store(faulty, "gone", seed: 3)
        _ = try store(faulty, "kept", seed: 4)
        try faulty.markListed(urls: [url("kept")], at: 5000)
        assertThrowsCacheError("file-system") { try faulty.prune(listedBefore: 5000) }
        try faulty.close()

        let lock = try CacheLock.acquire(root: root)
        let cache = try openCache()
        let before = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(before.problems, [], "no row names a missing file")
        XCTAssertEqual(before.orphanFiles, [gone.absolutePath!])
        let collected = try cache.maintenance.collectGarbage()
        lock.release()
        XCTAssertEqual(collected.removedOrphanFiles, [gone.absolutePath!])
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
    }

    func testGarbageCollectionRemovesOrphansAndTemporaryFilesAndKeepsFilesAShardStillNames() throws {
        let tree = try openCache()
        let shard = try CacheShard(index: 0, count: 2)
        let shardCache = try DiskCache.open(root: root, shard: shard)
        let unmerged = try store(shardCache, "unmerged", seed: 5)
        try shardCache.close()
        let orphan = root + "/v1/ab/cd/" + String(repeating: "e", count: 64) + ".jpg"
        try FileManager.default.createDirectory(atPath: root + "/v1/ab/cd", withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: URL(fileURLWithPath: orphan))
        let temporary = CacheLayout(root: root, shard: shard).tempDirectory + "/left.tmp"
        try Data("half".utf8).write(to: URL(fileURLWithPath: temporary))

        let result = try tree.maintenance.collectGarbage(startedAt: Date().timeIntervalSince1970 + 1)
        XCTAssertEqual(result.removedOrphanFiles, [orphan])
        XCTAssertEqual(result.removedTemporaryFiles, [temporary])
        XCTAssertTrue(fileExists(unmerged.absolutePath!), "a shard's manifest still names it")
        XCTAssertFalse(fileExists(orphan))
    }

    func testGarbageCollectionRefusesWhileAShardRuns() throws {
        let tree = try openCache()
        let shard = try CacheShard(index: 1, count: 2)
        let running = try CacheLock.acquire(root: root, shard: shard)
        defer { running.release() }
        assertThrowsCacheError("locked") { try tree.maintenance.collectGarbage() }
    }

    func testAManifestOfTheFirstSchemaOpensAndItsRowsCountAsListedWhenLastUsed() throws {
        try writeFirstSchemaManifest { db in
            try db.execute(sql: """
                INSERT INTO entry (url, variant, productIds, lastAccessAt, lastError, failedAt)
                VALUES ('https://img.example.com/old.jpg', '300.jpg', '[1]', 2000, 'the server said 404', 1500)
                """)
        }

        let cache = try openCache()
        let row = try XCTUnwrap(try cache.read { db in try ManifestRow.fetchOne(db) })
        XCTAssertEqual(row.lastListedAt, 2000)
        XCTAssertEqual(try cache.prune(listedBefore: 2000).removedCount, 0)
        XCTAssertEqual(try cache.prune(listedBefore: 2001).removedCount, 1)
    }

    func testAKeyAShardPrunedIsRemovedFromTheTreeByMergeAndStaysRemoved() throws {
        let shard = try CacheShard(index: 0, count: 1)
        let shardCache = try DiskCache.open(root: root, shard: shard)
        let gone = try store(shardCache, "gone", seed: 6)
        _ = try store(shardCache, "kept", seed: 7)
        try shardCache.close()
        let tree = try openCache()
        XCTAssertEqual(try tree.maintenance.mergeShards().insertedRows, 2)

        let again = try DiskCache.open(root: root, shard: shard)
        try again.markListed(urls: [url("kept")], at: 5000)
        XCTAssertEqual(try again.prune(listedBefore: 5000, now: 5000).removedCount, 1)
        try again.close()
        XCTAssertEqual(try tree.maintenance.mergeShards().prunedRows, 1)
        XCTAssertNil(try tree.lookup(url: url("gone"), variant: variant, recordingAccess: false))
        XCTAssertFalse(fileExists(gone.absolutePath!))
        XCTAssertTrue(try tree.maintenance.verify(validator: Self.validator).isClean)
        XCTAssertEqual(try tree.maintenance.mergeShards().prunedRows, 0, "the shard forgot the key once merged")
        XCTAssertEqual(try tree.maintenance.stats().entryCount, 1)
    }

    func testTreeEvictionRemovesTheVictimsFromEveryShardSoAMergeCannotBringThemBack() throws {
        var written: [CacheEntry] = []
        for index in 0..<2 {
            let shard = try CacheShard(index: index, count: 2)
            let cache = try DiskCache.open(root: root, shard: shard)
            for (offset, name) in ["a", "b", "c", "d", "e", "f"].enumerated() {
                let canonical = try CanonicalURL(url(name))
                guard shard.owns(canonical) else { continue }
                written.append(try store(cache, name, seed: UInt64(10 + offset), fetchedAt: Double(1000 + offset)))
            }
            try cache.close()
        }
        let tree = try openCache()
        try tree.maintenance.mergeShards()
        let total = written.reduce(0) { $0 + ($1.outputBytes ?? 0) }
        let limit = total / 2

        let result = try tree.maintenance.evictTree(maxBytes: limit)
        XCTAssertGreaterThan(result.removedCount, 0)
        XCTAssertLessThanOrEqual(result.remainingBytes, limit)
        try tree.maintenance.mergeShards()
        XCTAssertLessThanOrEqual(try tree.maintenance.stats().totalBytes, limit, "a second merge brings nothing back")
        XCTAssertTrue(try tree.maintenance.verify(validator: Self.validator).isClean)
    }
}
