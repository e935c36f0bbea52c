import Foundation
import GRDB
import CacheTestSupport
@testable import WarmSupport
import XCTest
@testable import Cache

/// Each file's SHA-256, size, inode and modification time are recorded with the row that installs it, filled once for
/// a cache from before v4, and read (not recomputed) by `export`; `verify` is what re-hashes.
final class FileValidatorsTests: CacheTestCase {
    private let url = "https://img.test/a.jpg"
    private let variant = CacheVariant(longestSide: 64, format: .jpeg)

    private func row(_ cache: DiskCache) throws -> ManifestRow {
        try XCTUnwrap(try cache.read { db in try ManifestRow.fetchOne(db, url: try CanonicalURL(self.url), variant: self.variant) })
    }

    private func fileStatus(_ path: String) throws -> stat {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, path)
        return info
    }

    func testAStoreRecordsTheInstalledFilesDigestSizeInodeAndModificationTime() throws {
        let cache = try openCache()
        let data = try jpeg(seed: 3)
        let entry = try cache.store(url: try CanonicalURL(url), productIds: [1], variant: variant, data: data, metadata: metadata())
        let stored = try row(cache)
        let validators = try XCTUnwrap(FileValidators(row: stored))
        XCTAssertEqual(validators.sha256Hex, SHA256Hex.digest(of: data))
        XCTAssertEqual(validators.byteCount, data.count)
        XCTAssertTrue(validators.describe(try fileStatus(try XCTUnwrap(entry.absolutePath))), "inode, size and mtime of the installed file")
    }

    func testACacheFromBeforeV4GetsItsValidatorsFilledOnOpenFromTheFiles() throws {
        let data = try jpeg(seed: 4)
        let path: String
        do {
            let cache = try openCache()
            path = try XCTUnwrap(try cache.store(url: try CanonicalURL(url), productIds: [1], variant: variant, data: data,
                                                 metadata: metadata()).absolutePath)
            try cache.store(url: try CanonicalURL("https://img.test/gone.jpg"), productIds: [2], variant: variant,
                            data: try jpeg(seed: 5), metadata: metadata())
            try cache.close()
        }
        try ManifestDowngrade.toV3(manifestPath: root + "/manifest.sqlite")
        let gone = root + "/" + CacheLayout.relativePath(url: try CanonicalURL("https://img.test/gone.jpg"), variant: variant)
        try FileManager.default.removeItem(atPath: gone)

        let reopened = try openCache()
        let filled = try XCTUnwrap(FileValidators(row: try row(reopened)), "filled on open")
        XCTAssertEqual(filled.sha256Hex, SHA256Hex.digest(of: try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertTrue(filled.describe(try fileStatus(path)))
        let missing = try reopened.read { db in
            try String.fetchOne(db, sql: "SELECT sha256 FROM entry WHERE url = 'https://img.test/gone.jpg'")
        }
        XCTAssertNil(missing, "a missing file gets no validators")
    }

    func testExportReadsNoFileWhileVerifyReportsBytesChangedBehindTheManifest() throws {
        let cache = try openCache()
        let data = try jpeg(seed: 6)
        let path = try XCTUnwrap(try cache.store(url: try CanonicalURL(url), productIds: [1], variant: variant, data: data,
                                                 metadata: metadata()).absolutePath)
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
        // Same length, other bytes, written in place as no warm process ever does.
        var changed = data
        changed[changed.count - 3] ^= 0xff
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: changed)
        try handle.close()

        var exported: [AppManifestImage] = []
        try cache.maintenance.exportAppManifest { exported.append($0) }
        XCTAssertEqual(exported.first?.variants.first?.etag, FileValidators.etag(sha256Hex: SHA256Hex.digest(of: data)),
                       "the recorded ETag, not one of the changed bytes")
        XCTAssertEqual(exported.first?.variants.first?.bytes, data.count)
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.problems.map(\.issue),
                       [.digestMismatch(expectedSHA256: SHA256Hex.digest(of: data), actualSHA256: SHA256Hex.digest(of: changed))])
    }
}
