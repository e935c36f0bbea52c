import Foundation
import GRDB
import CacheTestSupport
@testable import WarmSupport
import XCTest
@testable import Cache

/// What the origin's index is loaded from: `CacheReader.servedFiles` lists every row that names a file, with its
/// validators, row by row from SQLite's cursor (docs/scaling-out.md, "Sizes"), and leaves out failure-only and
/// tampered rows; a manifest from before the validator columns is still read.
final class CacheReaderTests: CacheTestCase {
    private let variant = CacheVariant(longestSide: 64, format: .jpeg)

    func testServedFilesListsEachFileRowWithItsValidatorsAndSkipsFailedAndTamperedRows() throws {
        let cache = try openCache()
        for n in 1...3 {
            try cache.store(url: try CanonicalURL("https://img.test/\(n).jpg"), productIds: [n], variant: variant,
                            data: try jpeg(seed: UInt64(n)), metadata: metadata())
        }
        try cache.recordFailure(url: try CanonicalURL("https://img.test/failed.jpg"), productIds: [4], variant: variant,
                                reason: "the server answered 404")
        try cache.write { db in
            try db.execute(sql: "UPDATE entry SET path = 'v1/00/00/elsewhere.jpg' WHERE url = 'https://img.test/3.jpg'")
        }
        try cache.close()

        let reader = try CacheReader.open(root: root)
        defer { try? reader.close() }
        let files = try reader.servedFiles().sorted { $0.url.text < $1.url.text }
        XCTAssertEqual(files.map(\.url.text), ["https://img.test/1.jpg", "https://img.test/2.jpg"])
        for file in files {
            XCTAssertEqual(file.variant, variant)
            XCTAssertEqual(file.relativePath, CacheLayout.relativePath(url: file.url, variant: variant))
            let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/" + file.relativePath))
            let validators = try XCTUnwrap(file.validators, file.url.text)
            XCTAssertEqual(validators.sha256Hex, SHA256Hex.digest(of: bytes))
            XCTAssertEqual(validators.byteCount, bytes.count)
        }
    }

    func testServedFilesReadsAManifestFromBeforeTheValidatorColumns() throws {
        let cache = try openCache()
        try cache.store(url: try CanonicalURL("https://img.test/old.jpg"), productIds: [1], variant: variant,
                        data: try jpeg(), metadata: metadata())
        try cache.close()
        try ManifestDowngrade.toV3(manifestPath: root + "/manifest.sqlite")

        let reader = try CacheReader.open(root: root)
        defer { try? reader.close() }
        let files = try reader.servedFiles()
        XCTAssertEqual(files.map(\.url.text), ["https://img.test/old.jpg"])
        XCTAssertNil(files.first?.validators, "no validators recorded: its bytes are hashed when sent")
    }
}
