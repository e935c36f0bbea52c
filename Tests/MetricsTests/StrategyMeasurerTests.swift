@testable import Downsample
import Foundation
@testable import WarmMetrics
import XCTest

final class StrategyMeasurerTests: XCTestCase {
    func testNaiveRetainedBytesAreWidthTimesHeightTimesFour() async throws {
        // Stored 1001x333 with orientation 6: upright it is 333x1001.
        let data = try MetricsFixtures.image(width: 1001, height: 333, as: CompositionEncoding(format: .jpeg, orientationTag: 6))
        let record = await MetricsFixtures.measure(data, productId: 42, url: "https://example.test/a")
        XCTAssertNil(record.error)
        XCTAssertEqual(record.width, 1001)
        XCTAssertEqual(record.height, 333)
        XCTAssertEqual(record.orientation, 6)
        XCTAssertEqual(record.format, .jpeg)
        XCTAssertEqual(record.sourceBytes, data.count)
        XCTAssertEqual(record.productId, 42)
        let naive = try XCTUnwrap(record.strategies.naive)
        XCTAssertEqual(naive.outputWidth, 333)
        XCTAssertEqual(naive.outputHeight, 1001)
        XCTAssertEqual(naive.retainedBytes, 333 * 1001 * 4)
        let thumbnail = try XCTUnwrap(record.strategies.thumbnail)
        XCTAssertEqual(thumbnail.retainedBytes, thumbnail.outputWidth * thumbnail.outputHeight * 4)
        XCTAssertEqual(max(thumbnail.outputWidth, thumbnail.outputHeight), 300)
        XCTAssertNil(naive.ssim)
        XCTAssertNil(naive.psnr)
    }

    func testEachStrategyRunsItsRepeatCountAndOnlyRenderersFirstRunScoresQuality() throws {
        func runs(_ repeats: StrategyMeasurer.Repeats) -> [String] {
            StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), repeats: repeats, pool: MetricsFixtures.pool))
                .requests(imagePath: "a.jpg").map { $0.strategy.rawValue + ($0.scoresQuality == true ? "+q" : "") }
        }
        XCTAssertEqual(runs(StrategyMeasurer.Repeats()), ["renderer+q", "naive", "naive", "thumbnail", "thumbnail", "thumbnail"])
        XCTAssertEqual(runs(try XCTUnwrap(.init(naive: 1, renderer: 2, thumbnail: 1))), ["renderer+q", "renderer", "naive", "thumbnail"])
        XCTAssertNil(StrategyMeasurer.Repeats(naive: 2, renderer: 0, thumbnail: 3))
    }

    func testThumbnailPeakIsBelowNaivePeakForALargeJPEG() async throws {
        try XCTSkipUnless(MetricsFixtures.canResetPeakRSS, "/proc/self/clear_refs is not writable here")
        let record = await MetricsFixtures.measure(MetricsFixtures.phoneJPEG, url: "phone.jpg")
        XCTAssertNil(record.error)
        XCTAssertEqual(record.peakMethod, .forkedProcess)
        let naive = try XCTUnwrap(record.strategies.naive)
        let thumbnail = try XCTUnwrap(record.strategies.thumbnail)
        XCTAssertEqual(naive.retainedBytes, 48_771_072)
        XCTAssertEqual(thumbnail.retainedBytes, 270_000)
        let naivePeak = try XCTUnwrap(naive.peakBytes), thumbnailPeak = try XCTUnwrap(thumbnail.peakBytes)
        // A measured peak holds the bitmap still alive at its end, less the stated noise (pages resident before the
        // span and freed in it: 11% of whole-catalog measurements read up to 172 KB under their bitmap).
        XCTAssertGreaterThanOrEqual(naivePeak, naive.retainedBytes - PeakComparison.noiseBytes)
        XCTAssertGreaterThan(thumbnailPeak, 0)
        // Shrink-on-load never holds the full bitmap.
        XCTAssertLessThan(thumbnailPeak, naive.retainedBytes / 4, "thumbnail peak \(thumbnailPeak), naive peak \(naivePeak)")
        XCTAssertLessThan(thumbnailPeak, naivePeak)
    }

    func testRendererPeakIsAtLeastNaivePeak() async throws {
        try XCTSkipUnless(MetricsFixtures.canResetPeakRSS, "/proc/self/clear_refs is not writable here")
        let record = await MetricsFixtures.measure(MetricsFixtures.phoneJPEG, url: "phone.jpg")
        let naive = try XCTUnwrap(record.strategies.naive)
        let renderer = try XCTUnwrap(record.strategies.renderer)
        let naivePeak = try XCTUnwrap(naive.peakBytes), rendererPeak = try XCTUnwrap(renderer.peakBytes)
        // The renderer holds the full bitmap and its canvas at once...
        XCTAssertGreaterThanOrEqual(rendererPeak, naive.retainedBytes + renderer.retainedBytes - PeakComparison.noiseBytes)
        // ...and decodes exactly as naive does, so its peak is naive's, within
        // run-to-run noise (measured here: up to 1.3 MB, 1.5%, on this 4032x3024 JPEG).
        XCTAssertGreaterThanOrEqual(rendererPeak, naivePeak - PeakComparison.noiseBytes, "renderer peak \(rendererPeak), naive peak \(naivePeak)")
        XCTAssertEqual(renderer.retainedBytes, 270_000)
    }

    func testTruncatedImageGivesARecordWithTheErrorAndTheHeader() async throws {
        let data = try MetricsFixtures.image(width: 640, height: 480, as: CompositionEncoding(format: .jpeg))
        let truncated = data.prefix(data.count / 2)
        let record = await MetricsFixtures.measure(Data(truncated), productId: 9, url: "cut.jpg")
        XCTAssertFalse(record.isComplete)
        XCTAssertEqual(record.errorReason, "corrupt")
        XCTAssertTrue(record.error?.contains("640x480") ?? false, record.error ?? "no error")
        XCTAssertEqual(record.format, .jpeg)
        XCTAssertEqual(record.width, 640)
        XCTAssertEqual(record.height, 480)
        XCTAssertNil(record.strategies.naive)
    }

    func testNonImageGivesARecordThatSaysWhatItIs() async {
        let record = await MetricsFixtures.measure(Data("<!doctype html><html>404</html>".utf8), productId: 1, url: "https://example.test/404")
        XCTAssertEqual(record.errorReason, "not-an-image")
        XCTAssertTrue(record.error?.contains("HTML") ?? false, record.error ?? "no error")
        XCTAssertNil(record.format)
        XCTAssertNil(record.width)
        XCTAssertEqual(record.strategies, ImageMetricsRecord.Strategies())
    }

    func testRendererAndThumbnailScoreHighAgainstTheReference() async throws {
        let data = try MetricsFixtures.image(width: 1200, height: 900, as: CompositionEncoding(format: .jpeg, quality: 92))
        let record = await MetricsFixtures.measure(data, url: "q.jpg")
        for kind in [StrategyKind.renderer, .thumbnail] {
            let metrics = try XCTUnwrap(record.strategies[kind])
            let ssim = try XCTUnwrap(metrics.ssim, "\(kind)")
            let psnr = try XCTUnwrap(metrics.psnr, "\(kind)")
            XCTAssertGreaterThan(ssim, 0.9, "\(kind)")
            XCTAssertLessThan(ssim, 1.0, "\(kind) is not the Lanczos3 reference itself")
            XCTAssertGreaterThan(psnr, 25, "\(kind)")
        }
    }
}
