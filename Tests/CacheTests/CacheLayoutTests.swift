import Foundation
@testable import WarmSupport
import XCTest
@testable import Cache
import CacheTestSupport

final class CacheLayoutTests: CacheTestCase {
    func testSHA256ComesOutAsLowercaseHex() {
        // FIPS 180-2 test vector.
        XCTAssertEqual(SHA256Hex.digest(of: "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // Many blocks: 1 MiB of the bytes 0...255 repeated (Python's hashlib.sha256).
        let mebibyte = Data((0..<4096).flatMap { _ in (0...255).map { UInt8($0) } })
        XCTAssertEqual(SHA256Hex.digest(of: mebibyte), "fbbab289f7f94b25736c58be46a994c441fd02552cc6022352e3d86d2fab7c83")
        XCTAssertEqual(mebibyte.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }, SHA256Hex.digest(of: mebibyte))
        // The last 64 bits, big-endian, as a number (samples and fault choices).
        XCTAssertEqual(SHA256Hex.lowWord(of: "abc"), 0xb410_ff61_f200_15ad)
    }

    /// Caches written by earlier versions (GLib's SHA-256) keep their file names: this path is Python's hashlib's.
    func testAnImagesFileNameIsTheSameAsInEarlierVersions() throws {
        let url = try CanonicalURL("https://img.example.com/products/42/thumb.jpg")
        XCTAssertEqual(CacheLayout.relativePath(url: url, variant: CacheVariant(longestSide: 300, format: .jpeg)),
                       "v1/ab/e7/abe7e8637fab3bac5322b24b6c9b3fffa2bc7b6d084eab0c5f9051c4fe699d37.jpg")
    }

    func testFileNameComesFromTheHashNotTheURLText() throws {
        let cache = try openCache()
        let url = "https://Example.com/a/../../../etc/passwd?name=<x>|\"y\"&z=%00 \u{00e9}"
        let variant = CacheVariant(longestSide: 300, format: .jpeg)
        let entry = try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())

        let canonical = try CanonicalURL(url)
        let hash = SHA256Hex.digest(of: canonical.text + "\n300.jpg")
        XCTAssertEqual(hash.count, 64)
        XCTAssertEqual(entry.path, "v1/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash).jpg")
        XCTAssertEqual(entry.absolutePath, root + "/" + entry.path!)
        XCTAssertTrue(fileExists(entry.absolutePath!))
        // Nothing but the layout's own names at the top, and one file in v1.
        XCTAssertEqual(contents(ofDirectory: root).filter { !$0.hasPrefix("manifest.sqlite") }, ["tmp", "v1"])
        XCTAssertEqual(try cache.files.allFilePaths(), [entry.path!])
        XCTAssertEqual(contents(ofDirectory: outside), [])
    }

    func testEachURLAndVariantPairGetsItsOwnFile() throws {
        let cache = try openCache()
        let data = try jpeg()
        var paths = Set<String>()
        for url in ["https://example.com/a.jpg", "https://example.com/b.jpg"] {
            for variant in [CacheVariant(longestSide: 300, format: .jpeg), CacheVariant(longestSide: 600, format: .jpeg),
                            CacheVariant(longestSide: 300, format: .webp)] {
                let entry = try cache.store(url: url, productIds: [1], variant: variant, data: data, metadata: metadata())
                paths.insert(try XCTUnwrap(entry.path))
            }
        }
        XCTAssertEqual(paths.count, 6)
    }

    func testSpellingsOfOneResourceShareOneEntry() throws {
        let cache = try openCache()
        let variant = CacheVariant(longestSide: 300, format: .jpeg)
        try cache.store(url: "HTTPS://Example.com:443/p/./x/../1.jpg#frag", productIds: [1], variant: variant,
                        data: try jpeg(), metadata: metadata())
        let entry = try XCTUnwrap(try cache.lookup(url: "https://example.com/p/1.jpg", variant: variant))
        XCTAssertEqual(entry.url, "https://example.com/p/1.jpg")
        XCTAssertEqual(try cache.maintenance.stats().entryCount, 1)
    }

    func testVariantNamesParseAndUnknownFormatsAndSizesAreRejected() throws {
        XCTAssertEqual(CacheVariant(name: "300.jpg"), CacheVariant(longestSide: 300, format: .jpeg))
        XCTAssertEqual(CacheVariant(longestSide: 1200, format: .webp).name, "1200.webp")
        for bad in ["jpg", "0.jpg", "-5.jpg", "300.", "300.j/g", "300.JPG", "300...jpg", "300.jpeg", "300.heic", "300.../x"] {
            XCTAssertNil(CacheVariant(name: bad), bad)
        }
        let cache = try openCache()
        assertThrowsCacheError("invalid-variant") {
            try cache.store(url: "https://example.com/a.jpg", productIds: [], variant: CacheVariant(longestSide: 0, format: .jpeg),
                            data: try jpeg(), metadata: metadata())
        }
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [])
    }
}
