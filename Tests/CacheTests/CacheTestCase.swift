@testable import Downsample
import Foundation
import GRDB
import XCTest
@testable import Cache
import CacheTestSupport

/// Base for cache tests: a fresh temporary cache root per test, removed
/// afterwards, and helpers that make real JPEG bytes with `Downsample`.
class CacheTestCase: XCTestCase {
    /// The cache root for this test (created empty).
    var root = ""
    /// Scratch space outside the cache root (symlink targets and the like).
    var outside = ""
    private var openCaches: [DiskCache] = []

    override func setUpWithError() throws {
        let base = FileManager.default.temporaryDirectory.path + "/warm-cache-tests-" + UUID().uuidString
        root = base + "/cache"
        outside = base + "/outside"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for cache in openCaches { try? cache.close() }
        openCaches = []
        try FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent)
    }

    /// Opens the cache at `root`; closed in tearDown.
    func openCache(maxAgeSeconds: Double = DiskCache.defaultMaxAgeSeconds, faults: FaultInjector? = nil) throws -> DiskCache {
        let cache = try DiskCache.open(root: root, maxAgeSeconds: maxAgeSeconds,
                                       logger: .init(label: "warm.cache.tests"), faults: faults)
        openCaches.append(cache)
        return cache
    }

    /// A manifest at `root` as the first schema's warm left it, with the rows `insert` writes (SQL of that schema).
    func writeFirstSchemaManifest(_ insert: (Database) throws -> Void) throws {
        let layout = CacheLayout(root: root)
        try FileManager.default.createDirectory(atPath: layout.stateDirectory, withIntermediateDirectories: true)
        let old = try DatabasePool(path: layout.manifestPath)
        try Manifest.migrator.migrate(old, upTo: "v1: entry table")
        try old.write(insert)
        try old.close()
    }

    /// A real JPEG of the given size; `seed` changes the noise (and so the byte count).
    func jpeg(width: Int = 64, height: Int = 48, seed: UInt64 = 1) throws -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: width, height: height, seed: seed),
                                 width: width, height: height, bands: 3, as: CompositionEncoding(format: .jpeg))
    }

    func metadata(width: Int = 64, height: Int = 48, fetchedAt: Double = 1_000_000,
                  etag: String? = "\"v1\"", expiresAt: Double? = nil) -> CacheMetadata {
        CacheMetadata(etag: etag, lastModified: "Sat, 01 Nov 2025 10:00:00 GMT", sourceBytes: 123_456,
                      sourceFormat: "jpeg", sourceWidth: width * 10, sourceHeight: height * 10,
                      outputWidth: width, outputHeight: height, fetchedAt: fetchedAt, expiresAt: expiresAt)
    }

    /// Validator built on the decoder module: reads the header, then decodes
    /// the whole image (shrink-on-load at full size), so truncated data fails.
    static let validator: ImageValidator = { data in
        let source = try ImageSource(data: data)
        let decoded = try ThumbnailAtDecode().decode(
            source, target: DecodeTarget(longestSide: max(source.header.width, source.header.height)))
        return ImageDimensions(width: decoded.width, height: decoded.height)
    }

    func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    func contents(ofDirectory path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path).sorted()) ?? []
    }

    /// Asserts that `body` throws a `CacheError` with `reasonCode`, and returns it.
    @discardableResult
    func assertThrowsCacheError<T>(_ reasonCode: String, file: StaticString = #filePath, line: UInt = #line,
                                   _ body: () throws -> T) -> CacheError? {
        do {
            _ = try body()
            XCTFail("expected a \(reasonCode) error, got success", file: file, line: line)
        } catch let error as CacheError {
            XCTAssertEqual(error.reasonCode, reasonCode, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected a CacheError, got \(error)", file: file, line: line)
        }
        return nil
    }
}
