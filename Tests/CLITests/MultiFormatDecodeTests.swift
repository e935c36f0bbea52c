import CacheTestSupport
@testable import DemoCatalog
@testable import Servers
import Foundation
import NIOCore
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// `warm run --format jpeg,webp,avif` decodes each source once per size (the direct path's decode, whose bitmap WebP
/// and AVIF encode), counted by the debug build's `WARM_TEST_DECODE_LOG`, and writes the JPEG bytes a
/// `--format jpeg` run writes. Not once for both sizes: each size's JPEG comes from its own DCT-scaled decode, and
/// feeding 150 px from the 300 px decode would change its bytes.
final class MultiFormatDecodeTests: XCTestCase {
    func testThreeFormatsDecodeEachSourceOncePerSizeAndKeepJPEGOnlyBytes() async throws {
        let server = try await TestCatalog.start(products: 16, mix: .seeds, shared: 0, without: 0)
        let directory = try makeTemporaryDirectory()
        // The catalog's pool serves some sources at several URLs: each URL is its own image.
        let urlsPerSource = try await catalogSources(server)
        let images = urlsPerSource.values.reduce(0, +)
        XCTAssertGreaterThan(urlsPerSource.count, 4)

        let three = try warm(server, directory, "three", formats: "jpeg,webp,avif")
        XCTAssertEqual(three.variants.filter { $0.hasSuffix(".avif") }.count, images * 2, "every image in AVIF")
        var perSource: [String: [String]] = [:]
        for line in three.decodes {
            let fields = line.split(separator: " ").map(String.init)
            perSource[fields[1], default: []].append("\(fields[0]) \(fields[2])")
        }
        XCTAssertEqual(Set(perSource.keys), Set(urlsPerSource.keys), "every decode is of a catalog source")
        for (source, decodes) in perSource {
            let once = ["direct 150", "direct 300"].flatMap { Array(repeating: $0, count: urlsPerSource[source] ?? 0) }
            XCTAssertEqual(decodes.sorted(), once, "source \(source): one decode per image and size")
        }

        let jpeg = try warm(server, directory, "jpeg", formats: "jpeg")
        XCTAssertEqual(jpeg.decodes.count, images * 2)
        let threeJPEGs = three.variants.filter { $0.hasSuffix(".jpg") }
        XCTAssertEqual(threeJPEGs, jpeg.variants)
        XCTAssertEqual(threeJPEGs.count, images * 2)
        for path in threeJPEGs {
            XCTAssertEqual(try Data(contentsOf: three.cache.appendingPathComponent(path)),
                           try Data(contentsOf: jpeg.cache.appendingPathComponent(path)), "\(path): not the JPEG-only bytes")
        }
    }

    private struct Run {
        var cache: URL
        /// The cache's files under v1/, relative, sorted.
        var variants: [String]
        var decodes: [String]
    }

    private func warm(_ server: CatalogServer, _ directory: URL, _ name: String, formats: String) throws -> Run {
        let cache = directory.appendingPathComponent(name)
        let log = directory.appendingPathComponent("\(name)-decodes.log")
        let run = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache.path,
                                      "--format", formats, "--size", "150", "--size", "300", "--no-progress"],
                                     environment: ["WARM_TEST_DECODE_LOG": log.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let root = cache.appendingPathComponent("v1")
        let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".") }.map { "v1/" + $0 }.sorted()
        let decodes = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return Run(cache: cache, variants: files, decodes: decodes.split(separator: "\n").map(String.init))
    }

    /// How many distinct URLs serve each source, by its SHA-256 (hex), as the decode log names them.
    private func catalogSources(_ server: CatalogServer) async throws -> [String: Int] {
        var urls: [String: Int] = [:]
        for url in await TestCatalog.distinctThumbnails(server) {
            let answer = try await OriginRequests.get(url, timeout: .seconds(20))
            XCTAssertEqual(answer.status, 200, url)
            urls[SHA256Hex.digest(of: answer.body), default: 0] += 1
        }
        return urls
    }
}
