import Foundation
import GRDB
@testable import WarmSupport
import XCTest
@testable import Cache

/// `warm cache export`'s lines come from the manifest: one per image with every
/// variant, bytes, sizes and the origin's ETag of each file as recorded when it
/// was stored, and the placeholder stored with the image's rows.
final class AppManifestExportTests: CacheTestCase {
    private func exported(_ cache: DiskCache) throws -> [AppManifestImage] {
        var images: [AppManifestImage] = []
        try cache.maintenance.exportAppManifest { images.append($0) }
        return images
    }

    func testExportListsEveryImageWithEachVariantsNumbersAsStored() throws {
        let cache = try openCache()
        let first = try CanonicalURL("https://img.test/a.jpg"), second = try CanonicalURL("https://img.test/b.jpg")
        let hash = Data([0x1f, 0x08, 0x0a, 0x33])
        var placeholder = metadata(width: 64, height: 48)
        (placeholder.thumbHash, placeholder.averageColor) = (hash, "#7f8081")
        let files: [(CanonicalURL, CacheVariant, Data, Int)] = [
            (first, CacheVariant(longestSide: 64, format: .jpeg), try jpeg(seed: 1), 3),
            (first, CacheVariant(longestSide: 64, format: .avif), try jpeg(seed: 2), 5),
            (second, CacheVariant(longestSide: 64, format: .jpeg), try jpeg(seed: 3), 9),
        ]
        for (url, variant, data, product) in files {
            try cache.store(url: url, productIds: [product], variant: variant, data: data,
                            metadata: url == first ? placeholder : metadata(width: 64, height: 48))
        }
        try cache.store(url: first, productIds: [4], variant: CacheVariant(longestSide: 32, format: .webp),
                        data: try jpeg(seed: 4), metadata: placeholder)
        // A variant whose row has no validators (its file was missing when they were filled) is not listed.
        let database = try DatabaseQueue(path: root + "/manifest.sqlite")
        try database.write { try $0.execute(sql: "UPDATE entry SET sha256 = NULL WHERE variant = '32.webp'") }
        try database.close()

        let images = try exported(cache)
        XCTAssertEqual(images.map(\.url), [first.text, second.text])
        XCTAssertEqual(images[0].productIds, [3, 5], "of the listed variants")
        XCTAssertEqual(images[0].thumbHash, hash.base64EncodedString())
        XCTAssertEqual(images[0].averageColor, "#7f8081")
        XCTAssertNil(images[1].thumbHash)
        XCTAssertEqual(images[0].variants.map(\.format), [.avif, .jpeg])
        for (url, variant, data, _) in files {
            let image = try XCTUnwrap(images.first { $0.url == url.text })
            let listed = try XCTUnwrap(image.variants.first { $0.format == variant.format && $0.size == variant.longestSide })
            XCTAssertEqual(listed.bytes, data.count)
            XCTAssertEqual(listed.etag, "\"" + SHA256Hex.digest(of: data).prefix(32) + "\"")
            XCTAssertEqual([listed.width, listed.height, listed.decodedBytes], [64, 48, 64 * 48 * 4])
        }
    }

    func testCarouselPlacementsAreExportedReplacedByTheNextRunAndKeptWhenTheImageIsStoredAgain() throws {
        let cache = try openCache()
        let url = try CanonicalURL("https://img.test/a.jpg")
        let variant = CacheVariant(longestSide: 64, format: .jpeg)
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        XCTAssertEqual(try cache.setCarousels([url: [.init(productId: 2, position: 3), .init(productId: 1, position: 0)]]), 1)
        XCTAssertEqual(try XCTUnwrap(exported(cache).first).carousel, [.init(productId: 1, position: 0), .init(productId: 2, position: 3)])
        // Downloaded again (a changed image): where the details show it has not changed.
        try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        XCTAssertEqual(try XCTUnwrap(exported(cache).first).carousel.count, 2)
        XCTAssertEqual(try cache.setCarousels([url: [.init(productId: 1, position: 1)]]), 1, "tonight's details replace last night's")
        XCTAssertEqual(try XCTUnwrap(exported(cache).first).carousel, [.init(productId: 1, position: 1)])
        XCTAssertEqual(try cache.setCarousels([url: [.init(productId: 1, position: 1)]]), 0, "unchanged: nothing written")
    }

    func testExportWritesJSONLinesWithEveryKeyAtomically() throws {
        let cache = try openCache()
        try cache.store(url: try CanonicalURL("https://img.test/a.jpg"), productIds: [1],
                        variant: CacheVariant(longestSide: 64, format: .jpeg), data: try jpeg(), metadata: metadata())
        let path = outside + "/app.jsonl"
        XCTAssertEqual(try cache.maintenance.writeAppManifest(to: path), 1)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["url", "productIds", "carousel", "thumbHash", "averageColor", "variants"])
        XCTAssertEqual((object["carousel"] as? [Any])?.count, 0, "no carousel: an empty list")
        XCTAssertTrue(object["thumbHash"] is NSNull, "a missing placeholder is an explicit null")
        let variant = try XCTUnwrap((object["variants"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(variant.keys), ["size", "format", "width", "height", "bytes", "etag", "decodedBytes"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside).filter { $0.hasSuffix(".tmp") }, [])
    }

    func testAManifestWrittenBeforePlaceholdersOpensAndExports() throws {
        let url = try CanonicalURL("https://img.test/old.jpg")
        let data = try jpeg()
        do {
            let cache = try openCache()
            try cache.store(url: url, productIds: [7], variant: CacheVariant(longestSide: 64, format: .jpeg), data: data,
                            metadata: metadata())
            try cache.close()
        }
        // Back to the v2 schema, as an older warm left it.
        let queue = try DatabaseQueue(path: root + "/manifest.sqlite")
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE entry DROP COLUMN thumbHash")
            try db.execute(sql: "ALTER TABLE entry DROP COLUMN averageColor")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3: placeholder'")
        }
        try queue.close()
        XCTAssertFalse(try DatabaseQueue(path: root + "/manifest.sqlite").read { try $0.columns(in: "entry") }
            .map(\.name).contains("thumbHash"), "the test starts from a manifest without the columns")

        let reopened = try openCache()
        let images = try exported(reopened)
        XCTAssertEqual(images.count, 1)
        XCTAssertEqual(images.first?.productIds, [7])
        XCTAssertNil(images.first?.thumbHash)
        XCTAssertEqual(images.first?.variants.first?.bytes, data.count)
    }
}
