import Foundation
import XCTest
@testable import Cache
import CacheTestSupport

/// Reading a cache writes nothing, so it works on a full disk (the tmpfs case is FullDiskTests').
final class ReadOnlyManifestTests: CacheTestCase {
    let variant = CacheVariant(longestSide: 300, format: .jpeg)
    let url = "https://img.example.com/a.jpg"

    func testAClosedCacheKeepsItsWALFilesSoTheNextReaderCreatesNothing() throws {
        let cache = try openCache()
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        try cache.close()
        // Without persistent WAL the last close deletes both, and the next reader must allocate `-shm` again.
        XCTAssertTrue(fileExists(root + "/manifest.sqlite-shm"))
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: root + "/manifest.sqlite-wal")[.size] as? Int, 0,
                       "the checkpoint on close empties the WAL: manifest.sqlite alone holds every row")
    }

    func testAReadOnlyCacheAnswersAndRefusesEveryWrite() throws {
        let writer = try openCache()
        try writer.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        try writer.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: root + "/manifest.sqlite"))

        let reader = try DiskCache.open(root: root, readOnly: true)
        defer { try? reader.close() }
        XCTAssertEqual(try reader.maintenance.stats().entryCount, 1)
        XCTAssertNotNil(try reader.path(for: url, longestSide: 300), "a hit, though the use cannot be recorded")
        assertThrowsCacheError("database") {
            try reader.store(url: url, productIds: [1], variant: variant, data: try jpeg(seed: 2), metadata: metadata())
        }
        try reader.close()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: root + "/manifest.sqlite")), before)
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [], "the refused store's temp file is gone")
    }

    func testAReadOnlyOpenOfAnOlderSchemaUpgradesItOnce() throws {
        try writeFirstSchemaManifest { db in
            try db.execute(sql: "INSERT INTO entry (url, variant, lastAccessAt) VALUES (?, ?, 1)", arguments: [url, variant.name])
        }
        let cache = try DiskCache.open(root: root, readOnly: true)
        defer { try? cache.close() }
        XCTAssertNoThrow(try cache.maintenance.stats())
        XCTAssertFalse(cache.readOnly, "a schema this warm cannot read is migrated by a writable open, as before")
    }
}
