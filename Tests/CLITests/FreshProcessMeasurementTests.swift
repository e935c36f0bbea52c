import Downsample
import Foundation
import WarmMetrics
import WarmTestSupport
import XCTest

/// Peaks measured the way `warm run --compare`, `warm demo` and `warm report`
/// measure them by default: every strategy in fresh `warm measure-strategy`
/// processes (`PeakIsolation.childProcess`).
final class FreshProcessMeasurementTests: XCTestCase {
    static func photo(width: Int, height: Int) throws -> Data {
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        return try ImageComposer.photo(small, size: PixelSize(width: width, height: height), as: CompositionEncoding(format: .jpeg))
    }

    /// Naive and renderer measured in four processes each (the commands use
    /// two), and four more on a close call, so that each lowest peak sits near
    /// its floor: single runs of a 1280x960 JPEG's naive decode spread over
    /// about 300 KiB, more than the renderer's 264 KiB canvas.
    func measurer(executable: String = WarmBinary.url.path) -> StrategyMeasurer {
        StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), fullDecodeRepeats: 4,
                                              isolation: .childProcess(executablePath: executable), closeCallRepeats: 4))
    }

    func testRendererPeakIsAtLeastNaivePeakWhenEachRunsInFreshProcesses() async throws {
        let data = try Self.photo(width: 1280, height: 960)
        let record = await measurer().measure(data: data, productId: 7, url: "https://example.test/photo.jpg",
                                              gate: MeasurementGate())
        XCTAssertNil(record.error)
        XCTAssertEqual(record.peakMethod, .freshProcess)
        XCTAssertEqual(record.productId, 7)
        XCTAssertEqual(record.url, "https://example.test/photo.jpg")
        let naive = try XCTUnwrap(record.strategies.naive)
        let renderer = try XCTUnwrap(record.strategies.renderer)
        let thumbnail = try XCTUnwrap(record.strategies.thumbnail)
        XCTAssertEqual(naive.retainedBytes, 1280 * 960 * 4)
        XCTAssertEqual(renderer.retainedBytes, 300 * 225 * 4)
        // In a long-lived process this held only within about 1.5% (the
        // in-process test allows it); in fresh processes it holds outright.
        let naivePeak = try XCTUnwrap(naive.peakBytes), rendererPeak = try XCTUnwrap(renderer.peakBytes)
        XCTAssertGreaterThanOrEqual(rendererPeak, naivePeak, "renderer peak \(rendererPeak), naive peak \(naivePeak)")
        XCTAssertGreaterThanOrEqual(naivePeak, naive.retainedBytes)
        XCTAssertLessThan(try XCTUnwrap(thumbnail.peakBytes), naivePeak)
        // Quality is still scored (in the parent, from unmeasured decodes).
        XCTAssertGreaterThan(try XCTUnwrap(thumbnail.ssim), 0.9)
        XCTAssertGreaterThan(try XCTUnwrap(renderer.ssim), 0.9)
    }

    func testACorruptImageIsRecordedWithTheDecodersReasonFromTheChild() async throws {
        var data = try Self.photo(width: 1280, height: 960)
        data = data.prefix(data.count / 3)  // the header survives, the scan data does not
        let record = await measurer().measure(data: data, productId: nil, url: "cut.jpg", gate: MeasurementGate())
        let error = try XCTUnwrap(record.error)
        XCTAssertTrue(error.hasPrefix("the naive decode failed:"), error)
        XCTAssertEqual(record.errorReason, "corrupt")
        XCTAssertEqual(record.width, 1280)
        XCTAssertNil(record.strategies.naive)
    }

    func testAMeasuringProcessThatFailsIsAnErrorOnThatImageNotACrash() async throws {
        let data = try Self.photo(width: 320, height: 240)
        let exited = await measurer(executable: "/bin/false").measure(data: data, productId: nil, url: "a.jpg", gate: MeasurementGate())
        XCTAssertEqual(exited.errorReason, "measurement-failed")
        XCTAssertTrue(exited.error?.contains("exited with status 1") == true, exited.error ?? "no error")
        XCTAssertNil(exited.strategies.naive)

        let missing = await measurer(executable: "/nonexistent/warm").measure(data: data, productId: nil, url: "a.jpg",
                                                                               gate: MeasurementGate())
        XCTAssertEqual(missing.errorReason, "measurement-failed")
        XCTAssertTrue(missing.error?.contains("could not start") == true, missing.error ?? "no error")
    }

    func testMeasureStrategyPrintsOneReportLine() throws {
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("photo.jpg")
        try Self.photo(width: 640, height: 480).write(to: file)
        let result = try WarmBinary.run(["measure-strategy", file.path, "--strategy", "thumbnail", "--size", "100"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONDecoder().decode(IsolatedStrategyRun.Report.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.peakMethod, .freshProcess)
        let metrics = try XCTUnwrap(report.metrics)
        XCTAssertEqual(metrics.outputWidth, 100)
        XCTAssertEqual(metrics.outputHeight, 75)
        XCTAssertGreaterThan(try XCTUnwrap(metrics.peakBytes), 0)
        XCTAssertFalse(try WarmBinary.run(["--help"]).stdout.contains("measure-strategy"), "the child command is hidden")
    }
}
