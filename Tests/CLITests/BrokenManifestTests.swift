@testable import Cache
import CacheTestSupport
@testable import DemoCatalog
import Foundation
@testable import Pipeline
import WarmTestSupport
import XCTest

/// A cache manifest broken between two nights (bytes overwritten, the file
/// truncated, a directory in its place): `verify` and `get` say so and name
/// the repair, the next `warm run` moves it aside, rebuilds it and exits 5,
/// and the run after exits 0 with every listed image cached.
final class BrokenManifestTests: XCTestCase {
    enum Damage: String, CaseIterable {
        case overwritten, truncated, directory
    }

    func testABrokenManifestIsRebuiltByTheNextRunAndTheOneAfterExitsZero() async throws {
        let server = try await CatalogServer.start(configuration: TestCatalog.configuration(products: 30, shared: 0, without: 0))
        let distinct = await TestCatalog.distinctThumbnails(server)
        for damage in Damage.allCases {
            let directory = try makeTemporaryDirectory("manifest-\(damage)")
            let cache = directory.appendingPathComponent("cache").path
            let arguments = ["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "48", "--no-progress",
                             "--prometheus-file", directory.appendingPathComponent("warm.prom").path]
            XCTAssertEqual(try WarmBinary.run(arguments).status, 0, "\(damage): first run")
            try Self.damage(cache + "/manifest.sqlite", damage)

            let verify = try WarmBinary.run(["cache", "verify", cache])
            XCTAssertEqual(verify.status, 1, "\(damage): \(verify.stderr)")
            XCTAssertTrue(verify.stderr.contains("broken") && verify.stderr.contains("warm run"), "\(damage): \(verify.stderr)")
            let get = try WarmBinary.run(["cache", "get", cache, try XCTUnwrap(distinct.first), "--size", "48"])
            XCTAssertEqual(get.status, 1, "\(damage): \(get.stdout)")
            XCTAssertTrue(get.stderr.contains("broken"), "\(damage): \(get.stderr)")
            XCTAssertEqual(get.stdout, "", "\(damage): nothing is served from a broken manifest")

            let repairing = try WarmBinary.run(arguments)
            XCTAssertEqual(repairing.status, 5, "\(damage): \(repairing.stderr.suffix(1500))")
            let summary = try GracefulStopTests.decodeSummary(cache + "/last-run.json")
            XCTAssertTrue(summary.manifestRebuilt, "\(damage)")
            XCTAssertEqual(summary.imagesDownloaded, distinct.count, "\(damage): what the catalog lists is fetched again")
            let prometheus = try String(contentsOfFile: directory.appendingPathComponent("warm.prom").path, encoding: .utf8)
            XCTAssertTrue(prometheus.contains("warm_manifest_rebuilt 1"), "\(damage)")
            let movedAside = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasPrefix("manifest.sqlite.broken-") }
            XCTAssertFalse(movedAside.isEmpty, "\(damage): the broken manifest is kept aside")
            XCTAssertEqual(try WarmBinary.run(["cache", "verify", cache]).status, 0, "\(damage): verify after the repair")

            let next = try WarmBinary.run(arguments)
            XCTAssertEqual(next.status, 0, "\(damage): \(next.stderr.suffix(1500))")
            XCTAssertEqual(try GracefulStopTests.decodeSummary(cache + "/last-run.json").imagesFresh, distinct.count, "\(damage)")
            let disk = try DiskCache.open(root: cache)
            for url in distinct {
                XCTAssertEqual(try disk.entries(forURL: url).first?.fileIsPresent, true, "\(damage): \(url)")
            }
            try disk.close()
            XCTAssertEqual(try WarmBinary.run(["cache", "verify", cache]).status, 0, "\(damage): verify after the next run")
        }
        await server.shutdown()
    }

    /// Breaks the closed manifest the way a bad disk, a full disk or a person would.
    static func damage(_ path: String, _ damage: Damage) throws {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        switch damage {
        case .overwritten:
            // 200 bytes from the start of the second page (the first table's b-tree).
            let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
            try handle.seek(toOffset: 4096)
            try handle.write(contentsOf: Data(repeating: 0xA5, count: 200))
            try handle.close()
        case .truncated:
            XCTAssertEqual(truncate(path, off_t(size / 2 + 100)), 0)
        case .directory:
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
    }
}
