@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
@testable import Pipeline
@testable import DemoCatalog
import WarmTestSupport
import XCTest

/// ENOSPC at each place a run writes (the temp file, the rename into `v1/`, the manifest, the summary): the night
/// reports a failure, what earlier nights cached stays, and the next run with room finishes. The real full disk (a
/// tmpfs) is FullDiskTests'.
final class FullDiskRunTests: XCTestCase {
    func testENOSPCAtEveryWriteSiteKeepsWhatWasCachedAndTheNextRunFinishes() async throws {
        let before = try await TestCatalog.start(products: 20)
        let tonight = try await TestCatalog.start(products: 20)
        let beforeCount = await TestCatalog.distinctThumbnails(before).count
        let tonightCount = await TestCatalog.distinctThumbnails(tonight).count
        for point: FaultPoint in [.temporaryWrite, .install, .manifestWrite, .summaryWrite] {
            try await checkFullDisk(at: point, before: before, tonight: tonight, expectedEntries: beforeCount + tonightCount)
        }
        await before.shutdown()
        await tonight.shutdown()
    }

    private func checkFullDisk(at point: FaultPoint, before: CatalogServer, tonight: CatalogServer,
                               expectedEntries: Int) async throws {
        let directory = try makeTemporaryDirectory("full-disk-\(point.rawValue)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cacheDirectory = directory.appendingPathComponent("cache")
        let summaryPath = cacheDirectory.appendingPathComponent(SummaryFile.defaultFileName).path
        let prometheusPath = directory.appendingPathComponent("warm.prom").path
        func configuration(_ server: CatalogServer) -> WarmConfiguration {
            var configuration = TestCatalog.configuration(server, cache: cacheDirectory)
            configuration.output = .init(summaryPath: summaryPath, prometheusPath: prometheusPath)
            return configuration
        }
        let first = try await WarmPipeline.run(configuration(before), progressBar: false)
        XCTAssertTrue(first.success, "\(point): \(first.reason ?? "")")
        let firstWritten = try SummaryFile.read(summaryPath)
        let cachedBefore = try cacheContents(cacheDirectory)

        // Tonight's images all hit the full disk at `point`.
        let full: Cache.FaultInjector = { $0 == point ? ENOSPC : nil }
        do {
            let failed = try await WarmPipeline.run(configuration(tonight), faults: full, progressBar: false)
            XCTAssertFalse(failed.success, "\(point)")
            XCTAssertEqual(failed.reasonCode, .stoppedEarly, "\(point): \(failed.reason ?? "")")
            XCTAssertTrue(failed.stopReason?.contains("disk is full") == true, "\(point): \(failed.stopReason ?? "")")
            let written = try SummaryFile.read(summaryPath)
            XCTAssertFalse(written.success, "\(point): last-run.json says the night failed")
            XCTAssertEqual(written.lastSuccessAt, firstWritten.lastSuccessAt, "\(point): the last success is carried over")
        } catch WarmRunError.output(let reason) {
            XCTAssertEqual(point, .summaryWrite, "only the summary's own write fails the run this way: \(reason)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: summaryPath),
                           "the earlier night's success is not left to be read as tonight's")
        }
        let prometheus = try String(contentsOfFile: prometheusPath, encoding: .utf8)
        XCTAssertTrue(prometheus.contains("\nwarm_last_run_success 0\n"), "\(point): \(prometheus)")

        let cachedAfter = try cacheContents(cacheDirectory)
        XCTAssertTrue(cachedBefore.isSubset(of: cachedAfter), "\(point): nothing cached before is lost")
        try assertVerifies(cacheDirectory, point)

        let next = try await WarmPipeline.run(configuration(tonight), progressBar: false)
        XCTAssertTrue(next.success, "\(point): \(next.reason ?? "")")
        XCTAssertTrue(try SummaryFile.read(summaryPath).success, "\(point)")
        XCTAssertEqual(try cacheContents(cacheDirectory).count, expectedEntries, "\(point)")
        try assertVerifies(cacheDirectory, point)
    }

    /// Each entry with a file: its URL, variant and SHA-256.
    private func cacheContents(_ directory: URL) throws -> Set<String> {
        let cache = try DiskCache.open(root: directory.path, readOnly: true)
        defer { try? cache.close() }
        var contents: Set<String> = []
        try cache.maintenance.exportAppManifest { image in contents.insert("\(image)") }
        return contents
    }

    private func assertVerifies(_ directory: URL, _ point: FaultPoint, line: UInt = #line) throws {
        let cache = try DiskCache.open(root: directory.path, readOnly: true)
        defer { try? cache.close() }
        let report = try cache.maintenance.verify(validator: CachedImageValidator.decodesCompletely)
        XCTAssertTrue(report.isClean, "\(point): \(report)", line: line)
    }
}
