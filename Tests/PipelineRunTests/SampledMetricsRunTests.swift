@testable import DemoCatalog
@testable import Downsample
import Foundation
@testable import Pipeline
@testable import WarmMetrics
import WarmTestSupport
import XCTest

/// A run that measures a sample (`--compare sample`, `--compare-one-in`)
/// against a real catalog server on loopback: its metrics file still covers
/// every warmed image, the ones outside the sample with computed retained bytes.
final class SampledMetricsRunTests: XCTestCase {
    func testSampledRunWritesOneRecordPerWarmedImageAndMeasuresOnlyTheSample() async throws {
        let server = try await TestCatalog.start(products: 48)
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let distinct = await TestCatalog.distinctThumbnails(server)
        let metricsPath = directory.appendingPathComponent("metrics.jsonl").path
        var configuration = TestCatalog.configuration(server, cache: directory.appendingPathComponent("cache"))
        configuration.measuring.compare = .oneIn(4)
        configuration.measuring.metricsPath = metricsPath
        // Peaks are measured in children of the `warm` binary's measuring processes, built beside this test binary.
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let pool = MeasuringPool(executablePath: bin.appendingPathComponent("warm").path, processes: 2)

        let first = try await WarmPipeline.run(configuration, measuringPool: pool, progressBar: false)
        let records = try JSONLinesReader.read(path: metricsPath)
        XCTAssertEqual(first.imagesFailed, 0)
        XCTAssertEqual(records.count, distinct.count, "one record per warmed image")
        XCTAssertEqual(Set(records.map(\.url)), distinct)
        let measured = records.filter(\.measured)
        XCTAssertEqual(measured.count, first.imagesMeasured)
        XCTAssertGreaterThan(measured.count, 0, "the sample is not empty")
        XCTAssertLessThan(measured.count, records.count, "and not the whole catalog")
        for record in measured {
            XCTAssertNotNil(record.peakMethod, record.url)
            XCTAssertNotNil(record.strategies.thumbnail?.peakBytes, record.url)
        }
        for record in records where !record.measured {
            XCTAssertTrue(record.isComplete, record.url)
            XCTAssertNil(record.peakMethod, record.url)
            XCTAssertNil(record.strategies.naive?.peakBytes, record.url)
            XCTAssertEqual(record.strategies.naive?.retainedBytes, (record.sourcePixels ?? 0) * 4, record.url)
            let thumbnail = try XCTUnwrap(record.strategies.thumbnail, record.url)
            XCTAssertEqual(max(thumbnail.outputWidth, thumbnail.outputHeight),
                           min(64, max(record.width ?? 0, record.height ?? 0)), record.url)
            XCTAssertEqual(thumbnail.retainedBytes, thumbnail.outputWidth * thumbnail.outputHeight * 4, record.url)
        }
        let comparison = MemoryComparison(records: records, cacheLimitBytes: 100_000_000)
        XCTAssertEqual(comparison.comparedCount, records.count)
        XCTAssertEqual(comparison.measuredCount, measured.count)

        // Second run: the sample is measured again; the other images are fresh
        // (no request, no decode) and their records come from the cache manifest.
        let second = try await WarmPipeline.run(configuration, measuringPool: pool, progressBar: false)
        let again = try JSONLinesReader.read(path: metricsPath)
        await server.shutdown()
        XCTAssertEqual(second.imagesFresh, records.count - measured.count)
        XCTAssertEqual(again.count, records.count)
        XCTAssertEqual(Set(again.filter(\.measured).map(\.url)), Set(measured.map(\.url)))
        let firstByURL = Dictionary(uniqueKeysWithValues: records.map { ($0.url, $0) })
        for record in again where !record.measured {
            let before = try XCTUnwrap(firstByURL[record.url])
            for kind in StrategyKind.allCases {
                XCTAssertEqual(record.strategies[kind]?.retainedBytes, before.strategies[kind]?.retainedBytes,
                               "\(record.url) \(kind.rawValue)")
                XCTAssertEqual(record.strategies[kind].map { [$0.outputWidth, $0.outputHeight] },
                               before.strategies[kind].map { [$0.outputWidth, $0.outputHeight] }, "\(record.url) \(kind.rawValue)")
            }
            XCTAssertEqual(record.sourceBytes, before.sourceBytes)
            XCTAssertEqual(record.format, before.format)
        }
    }
}
