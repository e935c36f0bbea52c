import Foundation
import GRDB
import XCTest
@testable import Cache

/// `CacheMaintenance.publishSnapshot()` (LAYOUT.md, "Published snapshots"): an immutable copy in rollback-journal mode behind a
/// link moved by rename, the previous one kept, older ones and a crashed publish's leftovers removed, and no file a
/// snapshot names collected as garbage.
final class PublishedSnapshotTests: CacheTestCase {
    private func store(_ cache: DiskCache, _ index: Int) throws {
        try cache.store(url: "https://img.example.test/p/\(index).jpg", productIds: [index],
                        variant: CacheVariant(longestSide: 300, format: .jpeg), data: try jpeg(seed: UInt64(index)),
                        metadata: metadata())
    }

    private var published: PublishedManifest { PublishedManifest(root: root) }

    private func snapshotNames() -> [String] {
        contents(ofDirectory: published.directory).filter { PublishedManifest.sequence(ofSnapshot: $0) != nil }
    }

    private func urls(inSnapshot path: String) throws -> [String] {
        let pool = try Manifest.openSnapshot(path: path)
        defer { try? pool.close() }
        return try pool.read { try String.fetchAll($0, sql: "SELECT url FROM entry ORDER BY url") }
    }

    func testASnapshotIsAStandaloneRollbackJournalCopyThePointerNames() throws {
        let cache = try openCache()
        try store(cache, 1)
        try store(cache, 2)
        let path = try cache.maintenance.publishSnapshot()

        XCTAssertEqual(try published.currentSnapshotPath(), path)
        XCTAssertEqual((path as NSString).lastPathComponent, "manifest-1.sqlite")
        var info = stat()
        XCTAssertEqual(lstat(published.pointerPath, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFLNK, "the pointer is a link, so one rename moves it")
        // Bytes 18 and 19 of a SQLite header are 2 in WAL mode, 1 in rollback-journal mode.
        let header = try XCTUnwrap(FileHandle(forReadingAtPath: path)).readData(ofLength: 20)
        XCTAssertEqual([header[18], header[19]], [1, 1], "a reader of the snapshot needs no -shm")
        XCTAssertEqual(try urls(inSnapshot: path), ["https://img.example.test/p/1.jpg", "https://img.example.test/p/2.jpg"])
        XCTAssertEqual(contents(ofDirectory: published.directory), ["manifest-1.sqlite", "manifest.sqlite"],
                       "an immutable read leaves no -shm, -wal or -journal, and the publish no temp file")

        try store(cache, 3)
        XCTAssertEqual(try urls(inSnapshot: path).count, 2, "a snapshot never changes after it is published")
    }

    func testASnapshotIsReadWithoutTakingALock() throws {
        let cache = try openCache()
        try store(cache, 1)
        let path = try cache.maintenance.publishSnapshot()
        // Another connection holds SQLite's exclusive lock on the file: a reader that takes locks would get "database
        // is locked" at once (no busy timeout); an immutable one takes none, as on a volume whose locks cannot be
        // trusted across hosts.
        let holder = try DatabaseQueue(path: path)
        try holder.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN EXCLUSIVE")
            defer { try? db.execute(sql: "ROLLBACK") }
            XCTAssertEqual(try urls(inSnapshot: path), ["https://img.example.test/p/1.jpg"])
        }
        try holder.close()
    }

    func testEachPublishKeepsThePreviousSnapshotAndDeletesOlderOnes() throws {
        let cache = try openCache()
        for index in 1...4 {
            try store(cache, index)
            try cache.maintenance.publishSnapshot()
        }
        XCTAssertEqual(snapshotNames(), ["manifest-3.sqlite", "manifest-4.sqlite"],
                       "the newest and the one an origin may still read")
        XCTAssertEqual(try published.currentSnapshotPath(), published.directory + "/manifest-4.sqlite")
        XCTAssertEqual(try urls(inSnapshot: published.directory + "/manifest-4.sqlite").count, 4)
    }

    func testAPublishCutShortLeavesThePreviousPointerAndTheNextPublishCleansUp() throws {
        let cache = try openCache()
        try store(cache, 1)
        let first = try cache.maintenance.publishSnapshot()
        // What a crash leaves: a half-written copy, a snapshot renamed in but never pointed at, a link not renamed yet.
        try Data("half a database".utf8).write(to: URL(fileURLWithPath: published.directory + "/.manifest-3.sqlite.tmp"))
        try FileManager.default.copyItem(atPath: first, toPath: published.directory + "/manifest-2.sqlite")
        XCTAssertEqual(symlink("manifest-2.sqlite", published.directory + "/.manifest.sqlite.tmp"), 0)

        XCTAssertEqual(try published.currentSnapshotPath(), first, "the pointer still names the last whole publish")
        XCTAssertEqual(try urls(inSnapshot: first), ["https://img.example.test/p/1.jpg"])

        try store(cache, 2)
        let next = try cache.maintenance.publishSnapshot()
        XCTAssertEqual((next as NSString).lastPathComponent, "manifest-3.sqlite", "numbered after every snapshot present")
        XCTAssertEqual(contents(ofDirectory: published.directory), ["manifest-1.sqlite", "manifest-3.sqlite", "manifest.sqlite"],
                       "the temp files and the snapshot nobody pointed at are gone; the previous one stays")
        XCTAssertEqual(try urls(inSnapshot: next).count, 2)
    }

    func testGarbageCollectionKeepsTheFilesAPublishedSnapshotNames() throws {
        let cache = try openCache()
        try store(cache, 1)
        try store(cache, 2)
        try cache.maintenance.publishSnapshot()
        let file = try XCTUnwrap(try cache.path(for: "https://img.example.test/p/2.jpg", longestSide: 300))
        // The row goes, the file stays: what an eviction cut short after its rows' commit leaves.
        try cache.write { db in try db.execute(sql: "DELETE FROM entry WHERE url LIKE '%/2.jpg'") }

        let kept = try cache.maintenance.collectGarbage(startedAt: Date().timeIntervalSince1970 + 60)
        XCTAssertEqual(kept.removedOrphanFiles, [], "an origin reading the snapshot still serves it")
        XCTAssertTrue(fileExists(file))

        try cache.maintenance.publishSnapshot()
        try cache.maintenance.publishSnapshot()
        let collected = try cache.maintenance.collectGarbage(startedAt: Date().timeIntervalSince1970 + 60)
        XCTAssertEqual(collected.removedOrphanFiles, [file], "once no snapshot names it, it is garbage")
    }

    func testAShardsManifestIsNotPublished() throws {
        let shard = try DiskCache.open(root: root, shard: CacheShard(index: 0, count: 2))
        defer { try? shard.close() }
        XCTAssertThrowsError(try shard.maintenance.publishSnapshot())
        XCTAssertFalse(fileExists(published.directory))
    }
}
