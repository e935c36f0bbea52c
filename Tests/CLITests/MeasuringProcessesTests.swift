import Downsample
import Foundation
@testable import WarmMetrics
import WarmTestSupport
import XCTest

/// Peaks measured the way `warm run --compare` and `warm demo` measure them
/// by default: children forked by `warm measure-server` processes
/// (`PeakIsolation.measuringProcesses`), with the real binary and libvips.
final class MeasuringProcessesTests: XCTestCase {
    func measurer(pool: MeasuringPool, singleRunMinimumPixels: Int?, exactPeakRepeats: Int = 2) -> StrategyMeasurer {
        // No close-call runs: the job counts below must not depend on noise.
        StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), thumbnailRepeats: 3, fullDecodeRepeats: 2,
                                              isolation: .measuringProcesses(pool), closeCallRepeats: 0,
                                              singleRunMinimumPixels: singleRunMinimumPixels, exactPeakRepeats: exactPeakRepeats))
    }

    /// `data` measured by a new pool of two measuring processes, naive and renderer once each
    /// with exact peaks; the record and how many jobs the pool answered.
    func measureWithOneExactRun(_ data: Data, url: String) async -> (ImageMetricsRecord, jobs: Int) {
        let pool = MeasuringPool(executablePath: WarmBinary.url.path, processes: 2)
        let record = await measurer(pool: pool, singleRunMinimumPixels: nil, exactPeakRepeats: 1)
            .measure(data: data, productId: 1, url: url)
        return (record, pool.jobsAnswered)
    }

    func testWithExactPeaksNaiveAndRendererRunOnceAndAChildThatFellBackToVmHWMGetsTheUsualRepeats() async throws {
        let data = try FreshProcessMeasurementTests.photo(width: 640, height: 480)
        let (exact, exactJobs) = await measureWithOneExactRun(data, url: "https://example.test/exact.jpg")
        XCTAssertNil(exact.error)
        XCTAssertEqual(exact.peakMethod, .forkedProcess)
        // naive 1 + renderer 1 (scoring after its span) + thumbnail 3.
        XCTAssertEqual(exactJobs, 5)

        // The measuring processes start with the watch switched off: their children read VmHWM.
        setenv(PeakWatch.switchVariable, "0", 1)
        defer { unsetenv(PeakWatch.switchVariable) }
        let (fellBack, fallbackJobs) = await measureWithOneExactRun(data, url: "https://example.test/vmhwm.jpg")
        XCTAssertNil(fellBack.error)
        XCTAssertEqual(fellBack.peakMethod, .forkedProcessHighWaterMark)
        // naive 1 + renderer 1 + thumbnail 3, then naive 1 + renderer 1 more: the repeats of a VmHWM reading.
        XCTAssertEqual(fallbackJobs, 7)
        XCTAssertNotNil(fellBack.strategies.renderer?.ssim, "the scores still come from renderer's first run")
    }

    func testAnImageFromTheSingleRunPixelCountGetsOneRunOfNaiveAndRendererAndNoQualityJobOfItsOwn() async throws {
        let data = try FreshProcessMeasurementTests.photo(width: 1280, height: 960)
        let pool = MeasuringPool(executablePath: WarmBinary.url.path, processes: 2)
        let once = await measurer(pool: pool, singleRunMinimumPixels: 1280 * 960)
            .measure(data: data, productId: 1, url: "https://example.test/large.jpg")
        XCTAssertNil(once.error)
        // naive 1 + renderer 1 (scoring after its span) + thumbnail 3.
        XCTAssertEqual(pool.jobsAnswered, 5)
        XCTAssertNotNil(once.strategies.naive?.peakBytes)
        XCTAssertNotNil(once.strategies.renderer?.peakBytes)

        let below = await measurer(pool: pool, singleRunMinimumPixels: 1280 * 960 + 1)
            .measure(data: data, productId: 1, url: "https://example.test/small.jpg")
        XCTAssertNil(below.error)
        // naive 2 + renderer 2 + thumbnail 3: below the count, the repeats as before.
        XCTAssertEqual(pool.jobsAnswered, 5 + 7)
    }

    func testQualityScoredInTheRendererRunsChildEqualsTheScoresOfUnmeasuredDecodes() async throws {
        let data = try FreshProcessMeasurementTests.photo(width: 1280, height: 960)
        let pool = MeasuringPool(executablePath: WarmBinary.url.path, processes: 2)
        let forked = await measurer(pool: pool, singleRunMinimumPixels: nil)
            .measure(data: data, productId: 2, url: "https://example.test/photo.jpg")
        let inProcess = await StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), thumbnailRepeats: 1,
                                                                     fullDecodeRepeats: 1))
            .measure(data: data, productId: 2, url: "https://example.test/photo.jpg", gate: MeasurementGate())
        XCTAssertEqual(forked.peakMethod, .forkedProcess)
        for kind in [StrategyKind.renderer, .thumbnail] {
            let scored = try XCTUnwrap(forked.strategies[kind]?.ssim, "\(kind) has no SSIM")
            XCTAssertGreaterThan(scored, 0.9)
            // The same decodes and the same reference, wherever they ran: equal to the last digit.
            XCTAssertEqual(scored, try XCTUnwrap(inProcess.strategies[kind]?.ssim), "\(kind)")
            XCTAssertEqual(forked.strategies[kind]?.psnr, inProcess.strategies[kind]?.psnr, "\(kind)")
        }
        XCTAssertNil(forked.strategies.naive?.ssim)
    }
}
