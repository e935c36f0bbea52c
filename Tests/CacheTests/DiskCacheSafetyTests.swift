import Foundation
import XCTest
@testable import Cache
import CacheTestSupport

/// The tree is shared with web servers and other jobs: links planted in it are
/// never followed, and modes do not depend on the caller's umask.
final class DiskCacheSafetyTests: CacheTestCase {
    let url = "https://img.example.com/products/42.jpg"
    let variant = CacheVariant(longestSide: 300, format: .jpeg)

    private var relativePath: String { CacheLayout.relativePath(url: try! CanonicalURL(url), variant: variant) }

    func testSymlinkPlantedInTheTreeIsNotFollowed() throws {
        let cache = try openCache()
        let outer = String(relativePath.split(separator: "/")[1])
        // A directory link where the first hash level belongs.
        try FileManager.default.createSymbolicLink(atPath: root + "/v1/" + outer, withDestinationPath: outside)
        assertThrowsCacheError("symlink-refused") {
            try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        }
        XCTAssertEqual(contents(ofDirectory: outside), [], "nothing was written through the link")
        XCTAssertEqual(contents(ofDirectory: root + "/tmp"), [], "the temp file is cleaned up")
        XCTAssertNil(try cache.lookup(url: url, variant: variant))
    }

    func testSymlinkPlantedAsTheFileIsReplacedNotWrittenThrough() throws {
        let cache = try openCache()
        let target = outside + "/precious.txt"
        try Data("do not overwrite".utf8).write(to: URL(fileURLWithPath: target))
        let path = root + "/" + relativePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)

        let data = try jpeg()
        try cache.store(url: url, productIds: [1], variant: variant, data: data, metadata: metadata())
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "do not overwrite")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), data)
    }

    func testVerifyDoesNotReadThroughALinkAndReportsIt() throws {
        let cache = try openCache()
        let entry = try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        let path = try XCTUnwrap(entry.absolutePath)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: outside + "/elsewhere.jpg")
        let report = try cache.maintenance.verify(validator: Self.validator)
        XCTAssertEqual(report.problems.map(\.issue), [.notARegularFile])
        XCTAssertFalse(try XCTUnwrap(try cache.lookup(url: url, variant: variant)).fileIsPresent)
    }

    func testManifestPathsOutsideTheTreeAreRefused() throws {
        let cache = try openCache()
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/victim"))
        for path in ["v1/../../outside/victim", "../outside/victim", "v1/aa/../victim", "/etc/passwd", "v1/aa/bb"] {
            XCTAssertThrowsError(try cache.files.removeFile(relativePath: path), path)
        }
        XCTAssertTrue(fileExists(outside + "/victim"))
    }

    func testFilesAndDirectoriesHaveFixedModesWhateverTheUmask() throws {
        let previous = umask(0o077)
        defer { umask(previous) }
        let cache = try openCache()
        let entry = try cache.store(url: url, productIds: [1], variant: variant, data: try jpeg(), metadata: metadata())
        let path = try XCTUnwrap(entry.absolutePath)
        func mode(_ path: String) -> mode_t {
            var info = stat()
            XCTAssertEqual(lstat(path, &info), 0, path)
            return info.st_mode & 0o777
        }
        XCTAssertEqual(mode(path), 0o644)
        XCTAssertEqual(mode((path as NSString).deletingLastPathComponent), 0o755)
        XCTAssertEqual(mode(((path as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent), 0o755)
    }
}
