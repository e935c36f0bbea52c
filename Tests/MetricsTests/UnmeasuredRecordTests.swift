@testable import Downsample
import Foundation
@testable import WarmSupport
@testable import WarmMetrics
import XCTest

/// Records of images a run warmed but did not measure: what they hold, that
/// their computed retained bytes are what the strategies really allocate,
/// and that files written before them still read.
final class UnmeasuredRecordTests: XCTestCase {
    func testUnmeasuredRecordHasNullPeaksAndSaysSoInItsLine() throws {
        let record = MetricsFixtures.unmeasured(url: "https://example.test/u.jpg")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: try JSONLines.line(record)) as? [String: Any])
        XCTAssertEqual(object["measured"] as? Bool, false)
        XCTAssertTrue(object["peakMethod"] is NSNull)
        let thumbnail = try XCTUnwrap((object["strategies"] as? [String: Any])?["thumbnail"] as? [String: Any])
        XCTAssertEqual(thumbnail["retainedBytes"] as? Int, 300 * 225 * 4)
        for field in ["peakBytes", "cpuSeconds", "wallSeconds", "ssim", "psnr"] {
            XCTAssertTrue(thumbnail[field] is NSNull, "\(field) is null")
        }
        let naive = try XCTUnwrap((object["strategies"] as? [String: Any])?["naive"] as? [String: Any])
        XCTAssertEqual(naive["retainedBytes"] as? Int, 4032 * 3024 * 4)

        let measured = try XCTUnwrap(JSONSerialization.jsonObject(
            with: try JSONLines.line(MetricsFixtures.record(url: "m", naive: 1, renderer: 1, thumbnail: 1))) as? [String: Any])
        XCTAssertEqual(measured["measured"] as? Bool, true)

        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("run.jsonl").path
        try JSONLinesWriter.write([record], to: path)
        XCTAssertEqual(try JSONLinesReader.read(path: path), [record])
        XCTAssertTrue(CSVWriter.csv([record]).contains(",false,"), "the CSV has a measured column")
    }

    func testMetricsWrittenBeforeUnmeasuredRecordsExistedStillReadAsMeasured() throws {
        // A line as warm wrote it before `measured` (and null peaks) existed.
        let old = #"{"error":null,"errorReason":null,"format":"jpeg","height":3024,"orientation":1,"peakMethod":"forked-process","productId":7,"shard":null,"sourceBytes":123456,"strategies":{"naive":{"cpuSeconds":0.01,"outputHeight":3024,"outputWidth":4032,"peakBytes":97542144,"psnr":null,"retainedBytes":48771072,"ssim":null,"wallSeconds":0.02},"renderer":null,"thumbnail":{"cpuSeconds":0.01,"outputHeight":225,"outputWidth":300,"peakBytes":1000000,"psnr":40,"retainedBytes":270000,"ssim":0.99,"wallSeconds":0.02}},"targetLongestSide":300,"url":"https://example.test/old.jpg","width":4032}"#
        let directory = try MetricsFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.jsonl").path
        try Data((old + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let records = try JSONLinesReader.read(path: path)
        XCTAssertEqual(records.count, 1)
        XCTAssertTrue(records[0].measured)
        XCTAssertEqual(records[0].peakMethod, .forkedProcess)
        XCTAssertEqual(records[0].strategies.thumbnail?.peakBytes, 1_000_000)
        XCTAssertEqual(records[0].strategies.naive?.retainedBytes, 48_771_072)
    }

    func testSampledRunsRecordsAreReadInCatalogOrderNotInTheOrderTheyWereWritten() {
        // Written as a sampled run writes them: the unmeasured ones as warmed, the measured one later.
        func unmeasured(_ id: Int) -> ImageMetricsRecord {
            var record = MetricsFixtures.unmeasured(url: "u\(id)")
            record.productId = id
            return record
        }
        var measured = MetricsFixtures.record(url: "m3", naive: 1, renderer: 1, thumbnail: 1)
        measured.productId = 3
        let ordered = ShardedRecords.inCatalogOrder([unmeasured(4), unmeasured(2), unmeasured(1), measured])
        XCTAssertEqual(ordered.map(\.url), ["u4", "m3", "u2", "u1"], "newest product first, as the list is crawled")
        // A fully measured file is in the order its measurements finished:
        // sorted too, so that two runs over one catalog read the same sequence.
        var older = MetricsFixtures.record(url: "a", naive: 1, renderer: 1, thumbnail: 1)
        older.productId = 2
        XCTAssertEqual(ShardedRecords.inCatalogOrder([older, measured]).map(\.url), ["m3", "a"], "a fully measured file is sorted too")
    }

    func testComputedRetainedBytesAndSizesEqualWhatTheStrategiesAllocate() async throws {
        let images: [(name: String, data: Data)] = [
            ("1600x1200 JPEG, orientation 6", try ImageComposer.photo(
                try MetricsFixtures.image(width: 160, height: 120, as: CompositionEncoding(format: .jpeg)),
                size: PixelSize(width: 1600, height: 1200), as: CompositionEncoding(format: .jpeg, orientationTag: 6))),
            ("997x601 JPEG", try MetricsFixtures.image(width: 997, height: 601, seed: 4, as: CompositionEncoding(format: .jpeg))),
            ("640x480 PNG with alpha", try MetricsFixtures.image(width: 640, height: 480, seed: 2, alpha: true,
                                                                  as: CompositionEncoding(format: .png))),
            ("333x500 WebP", try MetricsFixtures.image(width: 333, height: 500, seed: 3, as: CompositionEncoding(format: .webp))),
            ("200x150 JPEG, smaller than the target", try MetricsFixtures.image(width: 200, height: 150, seed: 5,
                                                                                as: CompositionEncoding(format: .jpeg))),
        ]
        let target = DecodeTarget(longestSide: 300)
        for image in images {
            let measured = await MetricsFixtures.measure(image.data, url: image.name, longestSide: target.longestSide)
            XCTAssertTrue(measured.isComplete, "\(image.name): \(measured.error ?? "")")
            let source = try ImageSource(data: image.data)
            // What a warm stores: the cache writer's thumbnail, and the header it read.
            let stored = try ThumbnailEncoder().encode(source, target: target)
            let fromHeader = ImageMetricsRecord.unmeasured(
                productId: nil, url: image.name, format: source.header.format, sourceBytes: image.data.count,
                width: source.header.width, height: source.header.height, orientation: source.header.orientation,
                targetLongestSide: target.longestSide, thumbnailSize: stored.size)
            // What a run knows of a fresh cache entry: no orientation.
            let fromCacheEntry = ImageMetricsRecord.unmeasured(
                productId: nil, url: image.name, format: source.header.format, sourceBytes: image.data.count,
                width: source.header.width, height: source.header.height, orientation: nil,
                targetLongestSide: target.longestSide, thumbnailSize: stored.size)
            for computed in [fromHeader, fromCacheEntry] {
                XCTAssertTrue(computed.isComplete)
                XCTAssertFalse(computed.measured)
                for kind in StrategyKind.allCases {
                    let real = try XCTUnwrap(measured.strategies[kind]), estimate = try XCTUnwrap(computed.strategies[kind])
                    XCTAssertEqual(estimate.retainedBytes, real.retainedBytes, "\(image.name), \(kind.rawValue)")
                    XCTAssertEqual([estimate.outputWidth, estimate.outputHeight], [real.outputWidth, real.outputHeight],
                                   "\(image.name), \(kind.rawValue)")
                    XCTAssertNil(estimate.peakBytes)
                }
            }
        }
    }
}
