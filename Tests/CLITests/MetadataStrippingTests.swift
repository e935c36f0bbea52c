@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// Marketplace photos come from phones: the cache must not pass on where they were taken.
final class MetadataStrippingTests: XCTestCase {
    func testCachedThumbnailsOfPhonePhotosWithGPSCarryNoEXIFInEveryOutputFormat() throws {
        let directory = try makeTemporaryDirectory()
        let sources = try HostileImages.all().filter { ["gps-phone-jpeg", "gps-phone-webp", "huge-exif"].contains($0.name) }
        XCTAssertEqual(sources.count, 3)
        for source in sources {
            XCTAssertGreaterThanOrEqual(ExifCounts.entries(in: source.data), 5, "\(source.name) carries EXIF, so the test can fail")
        }
        XCTAssertEqual(sources.filter { ExifCounts.gpsEntries(in: $0.data) == 5 }.count, 3, "each carries a GPS position")
        let server = try StaticCatalogServer(files: sources.map { ($0.name, $0.data) }, directory: directory)
        defer { server.stop() }
        let cacheDirectory = directory.appendingPathComponent("cache").path

        for format in OutputFormat.allCases {
            let run = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cacheDirectory,
                                          "--size", "64", "--size", "200", "--format", format.rawValue, "--no-progress"])
            XCTAssertEqual(run.status, 0, "\(format)\n" + run.stderr)
        }

        let cache = try DiskCache.open(root: cacheDirectory)
        defer { try? cache.close() }
        var checked = 0
        for source in sources {
            let entries = try cache.entries(forURL: server.url(of: source.name))
            XCTAssertEqual(entries.count, 2 * OutputFormat.allCases.count, "\(source.name): 2 sizes x every format")
            for entry in entries {
                let label = "\(source.name) \(entry.variant.name)"
                let data = try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(entry.absolutePath, label)))
                XCTAssertEqual(ExifCounts.entries(in: data), 0, "\(label): no EXIF entry at all")
                XCTAssertEqual(ExifCounts.gpsEntries(in: data), 0, "\(label): no GPS")
                XCTAssertFalse(try ImageSource(data: data).header.hasExif, "\(label): libvips finds no EXIF either")
                XCTAssertNil(data.range(of: Data("WarmTestPhone".utf8)), "\(label): the camera make is gone")
                XCTAssertNil(data.range(of: Data("Exif\0\0".utf8)), "\(label): no EXIF header")
                if entry.variant.format == .webp {
                    XCTAssertNil(data.range(of: Data("EXIF".utf8)), "\(label): no EXIF chunk")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 3 * 2 * OutputFormat.allCases.count)
    }
}
