import Foundation
import XCTest
@testable import Cache
import CacheTestSupport

/// A crash or a failing disk at any step must leave only complete files, and
/// never a row that points at a missing file or vouches for the wrong one.
final class DiskCacheCrashTests: CacheTestCase {
    let url = "https://img.example.com/products/42.jpg"
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    func testLeftoverTempFilesAreRemovedOnOpen() throws {
        let good = try jpeg()
        do {
            let cache = try openCache()
            try cache.store(url: url, productIds: [1], variant: variant, data: good, metadata: metadata())
            try cache.close()
        }
        // What a crash mid-write leaves: partial temp files.
        for name in ["a1.tmp", "b2.tmp", "half-written"] {
            try Data(good.prefix(100)).write(to: URL(fileURLWithPath: root + "/tmp/" + name))
        }
        // Not ours to clean, but it must not stop the cache from opening.
        try FileManager.default.createDirectory(atPath: root + "/tmp/stray-directory", withIntermediateDirectories: false)
        let reopened = try openCache()
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), ["stray-directory"])
        let entry = try XCTUnwrap(try reopened.lookup(url: url, variant: variant))
        XCTAssertTrue(entry.fileIsPresent)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry.absolutePath!)), good)
    }

    func testReaderWithoutTheLockLeavesAWritersTempFilesAlone() throws {
        let good = try jpeg()
        try openCache().close()
        try Data(good.prefix(100)).write(to: URL(fileURLWithPath: root + "/tmp/in-flight.tmp"))
        let reader = try DiskCache.open(root: root, removingTemporaryFiles: false)
        defer { try? reader.close() }
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), ["in-flight.tmp"])
    }

    func testCrashBetweenRenameAndRowLeavesNoRowPointingAtAMissingFile() throws {
        let crashing = try openCache(faults: { $0 == .afterRename ? EIO : nil })
        XCTAssertThrowsError(try crashing.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata()))
        try crashing.close()

        let cache = try openCache()
        XCTAssertNil(try cache.lookup(url: url, variant: variant), "no row was written")
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.problems, [])
        let expectedPath = root + "/" + CacheLayout.relativePath(url: try CanonicalURL(url), variant: variant)
        XCTAssertEqual(report.orphanFiles, [expectedPath], "the complete file is there, harmless, without a row")
        XCTAssertEqual(report.temporaryFiles, [])

        // The next store overwrites the orphan and the cache is whole again.
        let entry = try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(seed: 3), metadata: metadata())
        XCTAssertEqual(entry.absolutePath, expectedPath)
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
    }

    func testCrashWhileReplacingAFileNeverLetsTheOldRowVouchForTheNewFile() throws {
        let old = try jpeg(width: 64, height: 48, seed: 1)
        let new = try jpeg(width: 32, height: 24, seed: 2)
        XCTAssertNotEqual(old.count, new.count)
        do {
            let cache = try openCache()
            try cache.store(url: url, productIds: [1], variant: variant, data: old, metadata: metadata(fetchedAt: 1000))
            try cache.close()
        }
        let crashing = try openCache(faults: { $0 == .afterRename ? EIO : nil })
        XCTAssertThrowsError(try crashing.store(url: url, productIds: [1], variant: variant, data: new,
                                                metadata: metadata(width: 32, height: 24, fetchedAt: 2000)))
        try crashing.close()

        let cache = try openCache()
        let entry = try XCTUnwrap(try cache.lookup(url: url, variant: variant))
        XCTAssertFalse(entry.fileIsPresent, "the file on disk is not the one the row describes")
        XCTAssertFalse(entry.isFresh(now: 1001))
        XCTAssertFalse(entry.canRevalidate, "a 304 against the old ETag must not keep an unknown file")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry.absolutePath!)), new, "only complete files")
    }

    func testDiskFullIsReportedDistinctlyAndKeepsThePreviousFile() throws {
        let good = try jpeg()
        do {
            let cache = try openCache()
            try cache.store(url: url, productIds: [1], variant: variant, data: good, metadata: metadata(etag: "\"good\""))
            try cache.close()
        }
        let full = try openCache(faults: { $0 == .temporaryWrite ? ENOSPC : nil })
        let error = assertThrowsCacheError("disk-full") {
            try full.store(url: url, productIds: [1], variant: variant, data: try jpeg(seed: 9), metadata: metadata(etag: "\"new\""))
        }
        if case .diskFull(let path)? = error {
            XCTAssertTrue(path.hasPrefix(root + "/tmp/"), path)
        } else {
            XCTFail("expected diskFull(path:), got \(String(describing: error))")
        }
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [], "the partial temp file is removed")

        let entry = try XCTUnwrap(try full.lookup(url: url, variant: variant))
        XCTAssertEqual(entry.etag, "\"good\"")
        XCTAssertTrue(entry.fileIsPresent)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: entry.absolutePath!)), good)
    }

    func testCrashDuringEvictionLeavesOrphanFilesNotDanglingRows() throws {
        let data = try jpeg()
        do {
            let cache = try openCache()
            for index in 0..<4 {
                try cache.store(url: "https://img.example.com/\(index).jpg", productIds: [index], variant: variant, data: data,
                                metadata: metadata(fetchedAt: Double(1000 + index)))
            }
            try cache.close()
        }
        let crashing = try openCache(faults: { $0 == .afterEvictedRowsDeleted ? EIO : nil })
        XCTAssertThrowsError(try crashing.maintenance.evict(maxBytes: 2 * data.count))
        try crashing.close()

        let cache = try openCache()
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.problems, [], "no row points at a missing file")
        XCTAssertEqual(report.checkedCount, 2)
        XCTAssertEqual(report.orphanFiles.count, 2, "the evicted files are orphans until removed")
        XCTAssertNil(try cache.lookup(url: "https://img.example.com/0.jpg", variant: variant))
        XCTAssertNil(try cache.lookup(url: "https://img.example.com/1.jpg", variant: variant))
        XCTAssertEqual(try cache.maintenance.stats().totalBytes, 2 * data.count)
    }
}
