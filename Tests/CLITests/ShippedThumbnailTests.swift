@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// The measured thumbnail strategy is the engine that fills the cache: its `outputSHA256` is the cached file's (here
/// for profiled images; BaselineCheckTests checks the sample catalog), and a regression planted in the shipped path
/// fails `warm check` against the committed baseline.
final class ShippedThumbnailTests: XCTestCase {
    /// Profiled PNGs went through libvips' resize, which the measuring children ran without ORC and the decode workers
    /// with it: other bytes. A Display P3 and an Adobe-RGB-like ("p3", built into libvips) PNG and JPEG, opaque and
    /// with alpha, next to plain ones; at a quality other than the default, which both paths must use.
    func testProfiledPNGsAndJPEGsAreMeasuredAsTheyAreCached() throws {
        let directory = try makeTemporaryDirectory()
        let pixels = ImageComposer.pattern(width: 928, height: 1238, seed: 7)
        func odd(_ format: ImageFormat, profile: String?) throws -> Data {
            try ImageComposer.encode(pixels: pixels, width: 928, height: 1238, bands: 3,
                                     as: OddEncoding(format: format, iccProfile: profile))
        }
        let files: [(name: String, data: Data)] = [
            ("p3-png", try odd(.png, profile: "p3")), ("p3-jpeg", try odd(.jpeg, profile: "p3")),
            ("srgb-png", try odd(.png, profile: "srgb")), ("plain-png", try odd(.png, profile: nil)),
            ("plain-jpeg", try odd(.jpeg, profile: nil)),
        ]
        let server = try StaticCatalogServer(files: files, directory: directory)
        addTeardownBlock { server.stop() }
        let cache = directory.appendingPathComponent("cache").path
        let metrics = directory.appendingPathComponent("metrics.jsonl").path
        let run = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cache, "--size", "300",
                                      "--no-progress", "--compare", "--metrics", metrics, "--quality", "70"])
        XCTAssertEqual(run.status, 0, run.stderr)
        try SampleCatalog.assertMeasuredIsCached(metrics: metrics, cache: cache, expected: files.count)
    }

    /// Three planted regressions, each caught by the count or the quality, never by time. A full-size decode held in
    /// the shipped path and a much lower JPEG quality (SSIM still above the 0.90 floor) are planted together in one idle
    /// run: the first moves decoded pixels and no SSIM, the second SSIM and no pixel, and each is named by its own
    /// regression lines. One shrink-on-load step lost moves no peak beyond the noise (the direct path streams rows)
    /// and its CPU time is lost in a loaded machine's, but every JPEG it hits decodes four times the pixels: with two
    /// CPU-bound processes beside the run it fails the check (BaselineCheckTests measures an unchanged build under that
    /// load, which passes). Each is checked against the committed baseline, as CI checks an unchanged build.
    func testPlantedRegressionsFailTheCheckIdleAndLoaded() throws {
        let directory = try makeTemporaryDirectory()
        let baseline = BaselineCheckTests.baseline
        let planted = try SampleCatalog.measure(in: directory.appendingPathComponent("planted"),
                                                environment: ["WARM_TEST_PLANT_FULL_DECODE": "1", "WARM_TEST_PLANT_QUALITY": "\(Self.plantedQuality)"])
        let ssims = try String(contentsOfFile: planted, encoding: .utf8).split(separator: "\n").compactMap { line in
            ((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["strategies"] as? [String: Any])
                .flatMap { ($0["thumbnail"] as? [String: Any])?["ssim"] as? Double }
        }
        XCTAssertEqual(ssims.count, 23)
        XCTAssertGreaterThan(ssims.min() ?? 0, 0.90, "the floor alone would pass it")
        let check = try WarmBinary.run(["check", "--metrics", planted, "--baseline", baseline])
        XCTAssertEqual(check.status, 3, check.stdout + check.stderr)
        let regressions = check.stdout.split(separator: "\n").filter { $0.hasPrefix("regression: ") }
        let pixels = "pixels from the same source bytes", ssim = "thumbnail SSIM fell from"
        XCTAssertTrue(regressions.contains { $0.contains(pixels) }, "the full decode is counted:\n\(check.stdout)")
        XCTAssertTrue(regressions.contains { $0.contains(ssim) }, "the quality:\n\(check.stdout)")
        XCTAssertTrue(regressions.allSatisfy { $0.contains(pixels) || $0.contains(ssim) }, check.stdout)
        XCTAssertFalse(check.stdout.contains("below the minimum"), check.stdout)

        try SampleCatalog.withTwoBusyProcesses {
            let lostLoaded = try SampleCatalog.measure(in: directory.appendingPathComponent("lost-loaded"),
                                                       environment: ["WARM_TEST_PLANT_LOST_SHRINK_STEP": "1"])
            try assertLostStepFails(metrics: lostLoaded, baseline: baseline)
        }
    }

    static let plantedQuality = 60

    private func assertLostStepFails(metrics: String, baseline: String, line: UInt = #line) throws {
        let check = try WarmBinary.run(["check", "--metrics", metrics, "--baseline", baseline])
        XCTAssertEqual(check.status, 3, check.stdout + check.stderr, line: line)
        let regressions = check.stdout.split(separator: "\n").filter { $0.hasPrefix("regression: ") }
        XCTAssertFalse(regressions.isEmpty, check.stdout, line: line)
        XCTAssertTrue(regressions.allSatisfy { $0.contains("pixels from the same source bytes") },
                      "every regression names the decoded pixels:\n\(check.stdout)", line: line)
    }
}
