@testable import Downsample
import Foundation
@testable import WarmMetrics
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// Peaks measured as `warm run --compare`, `warm demo` and `warm report`
/// measure them: every strategy run a child forked by a `warm measure-server`
/// process, with the real binary and libvips.
final class MeasuringProcessesTests: XCTestCase {
    static func photo(width: Int, height: Int) throws -> Data {
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        return try ImageComposer.photo(small, size: PixelSize(width: width, height: height), as: CompositionEncoding(format: .jpeg))
    }

    func measurer(_ pool: MeasuringPool, encoder: ThumbnailEncoder = ThumbnailEncoder()) -> StrategyMeasurer {
        StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300), encoder: encoder, pool: pool))
    }

    func pool(_ executable: String = WarmBinary.url.path) -> MeasuringPool {
        MeasuringPool(executablePath: executable, processes: 2)
    }

    func testEveryStrategyGetsAPeakRendererIsAtLeastNaiveWithinTheNoiseAndThumbnailIsFarBelow() async throws {
        let record = await measurer(pool()).measure(data: try Self.photo(width: 4032, height: 3024), productId: 1, url: "phone.jpg")
        XCTAssertNil(record.error)
        XCTAssertEqual(record.peakMethod, .forkedProcess)
        let naive = try XCTUnwrap(record.strategies.naive?.peakBytes)
        let renderer = try XCTUnwrap(record.strategies.renderer?.peakBytes)
        let thumbnail = try XCTUnwrap(record.strategies.thumbnail?.peakBytes)
        XCTAssertGreaterThanOrEqual(naive, 4032 * 3024 * 4, "naive holds the full bitmap")
        XCTAssertGreaterThanOrEqual(renderer, naive - PeakComparison.noiseBytes)
        XCTAssertGreaterThan(thumbnail, 0)
        XCTAssertLessThan(thumbnail * 5, naive, "shrink-on-load never holds the full bitmap")
    }

    func testThumbnailIsTheShippedEngineWithTheRunsFormatAndQuality() async throws {
        let data = try Self.photo(width: 1280, height: 960)
        let directory = try makeTemporaryDirectory()
        let source = directory.appendingPathComponent("photo.jpg")
        try data.write(to: source)
        for encoder in [ThumbnailEncoder(format: .jpeg, settings: EncoderSettings(jpegQuality: 82)), ThumbnailEncoder(format: .webp, settings: EncoderSettings(webpQuality: 60))] {
            let record = await measurer(pool(), encoder: encoder).measure(data: data, productId: nil, url: "photo.jpg")
            let thumbnail = try XCTUnwrap(record.strategies.thumbnail)
            // Shipped: what a decode worker makes (libvips' resample there runs ORC code, as in the measuring children).
            let out = directory.appendingPathComponent(encoder.format.rawValue)
            let made = try WarmBinary.run(["thumbnail", source.path, "--out", out.path, "--size", "300",
                                           "--format", encoder.format.rawValue, "--quality", "jpeg=\(encoder.settings.jpegQuality),webp=\(encoder.settings.webpQuality)"])
            XCTAssertEqual(made.status, 0, made.stderr)
            let shipped = try Data(contentsOf: out.appendingPathComponent("photo.\(encoder.format.fileExtension)"))
            XCTAssertEqual(thumbnail.outputSHA256, SHA256Hex.digest(of: shipped), "\(encoder.format)")
            XCTAssertEqual(thumbnail.retainedBytes, 300 * 225 * 4)
            XCTAssertGreaterThan(try XCTUnwrap(thumbnail.ssim), 0.9)
            XCTAssertGreaterThan(try XCTUnwrap(record.strategies.renderer?.ssim), 0.9)
            XCTAssertNil(record.strategies.naive?.outputSHA256)
        }
    }

    func testACorruptImageIsRecordedWithTheDecodersReasonFromTheChild() async throws {
        let data = try Self.photo(width: 1280, height: 960)
        let record = await measurer(pool()).measure(data: data.prefix(data.count / 3), productId: nil, url: "cut.jpg")
        XCTAssertEqual(record.errorReason, "corrupt", record.error ?? "no error")
        XCTAssertEqual(record.width, 1280)
        XCTAssertNil(record.strategies.naive)
    }

    func testARefusedImageNeverReachesAChild() async throws {
        let directory = try makeTemporaryDirectory()
        let started = directory.appendingPathComponent("started").path
        let script = directory.appendingPathComponent("mark-start.sh")
        try """
            #!/bin/sh
            touch "\(started)"
            exec "\(WarmBinary.url.path)" "$@"
            """.write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script.path, 0o755), 0)
        let record = await measurer(pool(script.path)).measure(data: Data("<html>not an image</html>".utf8), productId: nil,
                                                               url: "page.html")
        XCTAssertEqual(record.errorReason, "not-an-image", record.error ?? "no error")
        XCTAssertFalse(FileManager.default.fileExists(atPath: started), "no measuring process was started")
    }

    /// The first measuring process dies on its first job (as a child crashing
    /// mid-decode would take its answer with it); the next image is measured in full.
    func testACrashInAMeasuringProcessFailsOnlyThatImagesMeasurement() async throws {
        let directory = try makeTemporaryDirectory()
        let mark = directory.appendingPathComponent("crashed").path
        let script = directory.appendingPathComponent("crash-once.sh")
        try """
            #!/bin/sh
            if mkdir "\(mark)" 2>/dev/null; then head -c 4 >/dev/null; kill -SEGV $$; fi
            exec "\(WarmBinary.url.path)" "$@"
            """.write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script.path, 0o755), 0)
        let measurer = StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: 300),
                                                             pool: MeasuringPool(executablePath: script.path, processes: 1)))
        let data = try Self.photo(width: 640, height: 480)
        let first = await measurer.measure(data: data, productId: nil, url: "first.jpg")
        XCTAssertEqual(first.errorReason, "measurement-failed", first.error ?? "no error")
        let second = await measurer.measure(data: data, productId: nil, url: "second.jpg")
        XCTAssertNil(second.error)
        XCTAssertTrue(second.isComplete)
    }
}
