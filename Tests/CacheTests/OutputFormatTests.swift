import Foundation
import GRDB
import XCTest
@testable import Cache
import CacheTestSupport
@testable import WarmSupport

/// The one format type: its names, extensions and media types, and manifests written by earlier versions, which
/// name variants by extension (`300.jpg`).
final class OutputFormatTests: CacheTestCase {
    func testEveryFormatRoundTripsThroughItsFileExtensionAndName() throws {
        let expected: [OutputFormat: (name: String, fileExtension: String, mediaType: String)] = [
            .jpeg: ("jpeg", "jpg", "image/jpeg"), .webp: ("webp", "webp", "image/webp"),
            .avif: ("avif", "avif", "image/avif"), .png: ("png", "png", "image/png"),
        ]
        XCTAssertEqual(Set(expected.keys), Set(OutputFormat.allCases))
        for format in OutputFormat.allCases {
            let pinned = try XCTUnwrap(expected[format])
            XCTAssertEqual([format.rawValue, format.fileExtension, format.mediaType],
                           [pinned.name, pinned.fileExtension, pinned.mediaType])
            XCTAssertEqual(OutputFormat(fileExtension: pinned.fileExtension), format)
            for name in [pinned.name, pinned.fileExtension, pinned.name.uppercased(), pinned.fileExtension.uppercased()] {
                XCTAssertEqual(OutputFormat(name: name), format, name)
            }
            let variant = CacheVariant(longestSide: 300, format: format)
            XCTAssertEqual(variant.name, "300.\(pinned.fileExtension)")
            XCTAssertEqual(CacheVariant(name: variant.name), variant)
            XCTAssertEqual(String(decoding: try JSONEncoder().encode([format]), as: UTF8.self), "[\"\(pinned.name)\"]")
        }
        XCTAssertNil(OutputFormat(fileExtension: "jpeg"), "no version names a cache file .jpeg")
        XCTAssertNil(OutputFormat(fileExtension: "JPG"))
        XCTAssertNil(OutputFormat(name: "gif"))
    }

    func testAManifestRowOfAnOlderVersionNamingJPGOpensAsJPEGAndAnUnknownOneIsSkipped() throws {
        try writeFirstSchemaManifest { db in
            for variant in ["300.jpg", "300.heic"] {
                try db.execute(sql: "INSERT INTO entry (url, variant, productIds, lastAccessAt) VALUES (?, ?, '[1]', 2000)",
                               arguments: ["https://img.example.com/old.jpg", variant])
            }
        }

        let cache = try openCache()
        let entries = try cache.entries(forURL: "https://img.example.com/old.jpg")
        XCTAssertEqual(entries.map(\.variant), [CacheVariant(longestSide: 300, format: .jpeg)])
        XCTAssertEqual(try cache.read { db in try String.fetchAll(db, sql: "SELECT variant FROM entry ORDER BY variant") },
                       ["300.heic", "300.jpg"], "opening changes no row")
    }

    func testAStoredJPEGIsNamedJPGOnDiskAndInTheManifestAndJPEGInTheAppManifest() throws {
        let cache = try openCache()
        let url = try CanonicalURL("https://img.example.com/new.jpg")
        let entry = try cache.store(url: url, productIds: [1], variant: CacheVariant(longestSide: 300, format: .jpeg),
                                    data: try jpeg(), metadata: metadata())
        XCTAssertTrue(try XCTUnwrap(entry.absolutePath).hasSuffix(".jpg"))
        XCTAssertEqual(try cache.read { db in try String.fetchAll(db, sql: "SELECT variant FROM entry") }, ["300.jpg"])
        let path = outside + "/app.jsonl"
        XCTAssertEqual(try cache.maintenance.writeAppManifest(to: path), 1)
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).contains(#""format":"jpeg""#))
    }

    func testVerifyNamesARowWhoseVariantThisVersionDoesNotKnowAndTheReadersSkipIt() throws {
        let cache = try openCache()
        let url = try CanonicalURL("https://img.example.com/future.jpg")
        try cache.store(url: url, productIds: [1], variant: CacheVariant(longestSide: 300, format: .jpeg),
                        data: try jpeg(), metadata: metadata())
        XCTAssertTrue(try cache.maintenance.verify(validator: Self.validator).isClean)
        try cache.write { db in try db.execute(sql: "UPDATE entry SET variant = '300.jxl'") }

        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.problems.map(\.issue), [.unknownVariant])
        XCTAssertEqual(report.problems.map(\.variant), ["300.jxl"])
        XCTAssertEqual(report.orphanFiles, [], "the row still names its file")
        XCTAssertEqual(try cache.entries(forURL: url).count, 0)
        var exported: [AppManifestImage] = []
        try cache.maintenance.exportAppManifest { exported.append($0) }
        XCTAssertEqual(exported, [])
    }
}
