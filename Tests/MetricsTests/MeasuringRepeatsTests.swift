import Downsample
@testable import WarmMetrics
import XCTest

/// How many runs an image gets: the repeats, the single-run size, the close-call rule.
final class MeasuringRepeatsTests: XCTestCase {
    let configuration = StrategyMeasurer.Configuration(target: DecodeTarget(longestSide: 300), thumbnailRepeats: 3,
                                                       fullDecodeRepeats: 2, singleRunMinimumPixels: 8_000_000)

    func testImagesFromTheSingleRunPixelCountGetOneRunOfNaiveAndRendererAndThumbnailKeepsItsRepeats() {
        let phonePhoto = 4032 * 3024, screenshot = 1170 * 2532
        XCTAssertEqual(configuration.repeats(of: .naive, pixels: phonePhoto), 1)
        XCTAssertEqual(configuration.repeats(of: .renderer, pixels: phonePhoto), 1)
        XCTAssertEqual(configuration.repeats(of: .thumbnail, pixels: phonePhoto), 3)
        XCTAssertEqual(configuration.repeats(of: .naive, pixels: 8_000_000), 1)
        XCTAssertEqual(configuration.repeats(of: .naive, pixels: 7_999_999), 2)
        XCTAssertEqual(configuration.repeats(of: .renderer, pixels: screenshot), 2)
        XCTAssertEqual(configuration.repeats(of: .naive, pixels: nil), 2, "a size not known keeps the repeats")
        var never = configuration
        never.singleRunMinimumPixels = nil
        XCTAssertEqual(never.repeats(of: .renderer, pixels: phonePhoto), 2)
    }

    func testWithExactPeaksNaiveAndRendererRunOnceByDefaultAndThumbnailKeepsItsRepeats() {
        let defaults = StrategyMeasurer.Configuration(target: DecodeTarget(longestSide: 300))
        let seedsImage = 1150 * 1150
        XCTAssertEqual(defaults.repeats(of: .naive, pixels: seedsImage, exactPeaks: true), 1)
        XCTAssertEqual(defaults.repeats(of: .renderer, pixels: seedsImage, exactPeaks: true), 1)
        XCTAssertEqual(defaults.repeats(of: .thumbnail, pixels: seedsImage, exactPeaks: true), defaults.thumbnailRepeats)
        XCTAssertEqual(defaults.repeats(of: .naive, pixels: seedsImage, exactPeaks: false), defaults.fullDecodeRepeats)
        XCTAssertGreaterThan(defaults.fullDecodeRepeats, 1, "without exact peaks the lowest of several runs is kept")
        var more = defaults
        more.exactPeakRepeats = 3
        XCTAssertEqual(more.repeats(of: .renderer, pixels: seedsImage, exactPeaks: true), defaults.fullDecodeRepeats,
                       "never more runs with exact peaks than without")
    }

    func testTheDefaultSingleRunCountTakesThePhonePhotosButNoSeedsOrScreenshotImage() {
        let defaults = StrategyMeasurer.Configuration(target: DecodeTarget(longestSide: 300))
        XCTAssertEqual(defaults.repeats(of: .naive, pixels: 4032 * 3024), 1)
        XCTAssertEqual(defaults.repeats(of: .naive, pixels: 1170 * 2532), defaults.fullDecodeRepeats)
        XCTAssertEqual(defaults.repeats(of: .naive, pixels: 1150 * 1150), defaults.fullDecodeRepeats)
    }

    /// A record read with `VmHWM` (the canvas rules) unless `peakMethod` says otherwise.
    func record(naivePeak: Int, rendererPeak: Int, canvasBytes: Int = 270_000,
                peakMethod: PeakMethod = .forkedProcessHighWaterMark) -> ImageMetricsRecord {
        var record = ImageMetricsRecord(productId: nil, url: "close.jpg", format: .jpeg, sourceBytes: 1, width: 4032,
                                        height: 3024, orientation: 1, targetLongestSide: 300, peakMethod: peakMethod)
        record.strategies.naive = .init(retainedBytes: 4032 * 3024 * 4, peakBytes: naivePeak, cpuSeconds: 0, wallSeconds: 0,
                                        outputWidth: 4032, outputHeight: 3024)
        record.strategies.renderer = .init(retainedBytes: canvasBytes, peakBytes: rendererPeak, cpuSeconds: 0, wallSeconds: 0,
                                           outputWidth: 300, outputHeight: 225)
        return record
    }

    func testOnAnImageMeasuredOnceRendererLessThanHalfACanvasAboveNaiveIsACloseCallAndHalfACanvasOrMoreIsNot() {
        let measurer = StrategyMeasurer(configuration: configuration)
        let naive = 85_000_000
        XCTAssertTrue(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive - 1)), "renderer under naive")
        XCTAssertTrue(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive + 134_999)))
        XCTAssertFalse(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive + 135_000)))
        XCTAssertFalse(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive + 200_000)))
    }

    func testOnAnImageMeasuredRepeatedlyRendererLessThanAWholeCanvasAboveNaiveIsACloseCall() {
        let measurer = StrategyMeasurer(configuration: configuration)
        let naive = 85_000_000
        var small = record(naivePeak: naive, rendererPeak: naive + 200_000)
        (small.width, small.height) = (1170, 2532)
        XCTAssertTrue(measurer.isCloseCall(small))
        small.strategies.renderer?.peakBytes = naive + 270_000
        XCTAssertFalse(measurer.isCloseCall(small))
        var never = configuration
        never.singleRunMinimumPixels = nil
        XCTAssertTrue(StrategyMeasurer(configuration: never).isCloseCall(record(naivePeak: naive, rendererPeak: naive + 200_000)),
                      "without single runs every image keeps the whole-canvas rule")
    }

    func testASecondCloseCallRoundOnlyWhenRendererIsStillBelowNaiveAndNeverAThird() {
        let measurer = StrategyMeasurer(configuration: configuration)
        let naive = 85_000_000
        let below = record(naivePeak: naive, rendererPeak: naive - 4096)
        let close = record(naivePeak: naive, rendererPeak: naive + 100_000)
        XCTAssertTrue(measurer.needsCloseCallRound(below, roundsDone: 0))
        XCTAssertTrue(measurer.needsCloseCallRound(close, roundsDone: 0))
        XCTAssertTrue(measurer.needsCloseCallRound(below, roundsDone: 1), "still below naive: a second round")
        XCTAssertFalse(measurer.needsCloseCallRound(close, roundsDone: 1), "above naive, if closely: done")
        XCTAssertFalse(measurer.needsCloseCallRound(below, roundsDone: 2))
        XCTAssertFalse(measurer.needsCloseCallRound(record(naivePeak: naive, rendererPeak: naive + 270_000), roundsDone: 0))
    }

    func testWithExactPeaksOnlyRendererBelowNaiveIsACloseCallWhateverTheImage() {
        let measurer = StrategyMeasurer(configuration: configuration)
        let naive = 85_000_000
        XCTAssertTrue(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive - 1, peakMethod: .forkedProcess)))
        XCTAssertFalse(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive, peakMethod: .forkedProcess)))
        XCTAssertFalse(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive + 4096, peakMethod: .forkedProcess)),
                       "a few KiB above naive, under half a canvas: read exactly, not noise")
        var small = record(naivePeak: naive, rendererPeak: naive + 200_000, peakMethod: .forkedProcess)
        (small.width, small.height) = (1170, 2532)
        XCTAssertFalse(measurer.isCloseCall(small), "under a whole canvas on a repeated image: not noise either")
        XCTAssertTrue(measurer.isCloseCall(record(naivePeak: naive, rendererPeak: naive + 4096, peakMethod: .freshProcess)),
                      "VmHWM keeps the canvas rule")
    }

    func testCloseCallsNeedCloseCallRepeats() {
        let naive = 85_000_000
        var none = configuration
        none.closeCallRepeats = 0
        XCTAssertFalse(StrategyMeasurer(configuration: none).isCloseCall(record(naivePeak: naive, rendererPeak: naive - 1)))
    }
}
