@testable import Cache
import CacheTestSupport
import Foundation
import GRDB
import XCTest

/// `ManifestRow.upsert`, the store's one prepared statement, leaves in the
/// manifest exactly what GRDB's `save` leaves, for a new key and over an
/// existing row, `productIds` text included.
final class ManifestRowTests: XCTestCase {
    private func manifest() throws -> DatabaseQueue {
        let db = try DatabaseQueue()
        try Manifest.migrator.migrate(db)
        return db
    }

    private func row(url: String, productIds: [Int], path: String? = "ab/cd/file.jpg", lastError: String? = nil) -> ManifestRow {
        ManifestRow(url: url, variant: "300.jpg", productIds: productIds, path: path, etag: "\"e1\"",
                    lastModified: "Tue, 24 Nov 2026 10:00:00 GMT", sourceBytes: 123_456, sourceFormat: "jpeg",
                    sourceWidth: 1150, sourceHeight: 862, outputBytes: 20_480, outputWidth: 300, outputHeight: 225,
                    fetchedAt: 1_795_000_000.25, expiresAt: 1_795_043_200.5, lastAccessAt: 1_795_000_050.75,
                    lastError: lastError, failedAt: lastError == nil ? nil : 1_795_000_100, lastListedAt: 1_795_000_010.5,
                    thumbHash: Data([0x1f, 0x08, 0x0a]), averageColor: "#7f8081")
    }

    /// Every column of the row stored under `url`, as SQLite returns it.
    private func stored(_ db: Database, url: String) throws -> [String: DatabaseValue] {
        let found = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT * FROM entry WHERE url = ?", arguments: [url]))
        var columns: [String: DatabaseValue] = [:]
        for (name, value) in found where name != "url" { columns[name] = value }
        return columns
    }

    func testUpsertWritesWhatSaveWritesForANewRowAndOverAnExistingOne() throws {
        try manifest().write { db in
            try row(url: "https://a.test/saved.jpg", productIds: [3, 7, 12]).save(db)
            try row(url: "https://a.test/upserted.jpg", productIds: [3, 7, 12]).upsert(db)
            XCTAssertEqual(try stored(db, url: "https://a.test/upserted.jpg"), try stored(db, url: "https://a.test/saved.jpg"))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT productIds FROM entry WHERE url = ?",
                                               arguments: ["https://a.test/upserted.jpg"]), "[3,7,12]")

            // Over the existing rows: every column replaced, nulls included, no second row.
            try row(url: "https://a.test/saved.jpg", productIds: [], path: nil, lastError: "corrupt").save(db)
            try row(url: "https://a.test/upserted.jpg", productIds: [], path: nil, lastError: "corrupt").upsert(db)
            XCTAssertEqual(try stored(db, url: "https://a.test/upserted.jpg"), try stored(db, url: "https://a.test/saved.jpg"))
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM entry"), 2)
            let back = try XCTUnwrap(ManifestRow.fetchOne(db, sql: "SELECT * FROM entry WHERE url = ?",
                                                          arguments: ["https://a.test/upserted.jpg"]))
            XCTAssertEqual(back, row(url: "https://a.test/upserted.jpg", productIds: [], path: nil, lastError: "corrupt"))
        }
    }
}
