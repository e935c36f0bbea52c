@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// The measured thumbnail strategy is the engine that fills the cache: its
/// `outputSHA256` is the cached file's, and a memory regression planted in
/// the shipped path fails `warm check` against the committed baseline.
final class ShippedThumbnailTests: XCTestCase {
    struct Record: Decodable {
        struct Thumbnail: Decodable { var outputSHA256: String? }
        struct Strategies: Decodable { var thumbnail: Thumbnail? }
        var url: String
        var strategies: Strategies
    }

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
        try assertMeasuredIsCached(metrics: metrics, cache: cache, expected: files.count)
    }

    /// Every measured image's `outputSHA256` is its cached file's, the cache read in the test process (`warm cache get`
    /// reads the same rows; its own tests launch it).
    private func assertMeasuredIsCached(metrics: String, cache: String, expected: Int,
                                        file: StaticString = #filePath, line: UInt = #line) throws {
        let records = try String(contentsOfFile: metrics, encoding: .utf8).split(separator: "\n")
            .map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        let hashed = records.compactMap { record in record.strategies.thumbnail?.outputSHA256.map { (record.url, $0) } }
        XCTAssertEqual(hashed.count, expected, "every image is measured", file: file, line: line)
        let disk = try DiskCache.open(root: cache, readOnly: true)
        defer { try? disk.close() }
        for (url, measured) in hashed {
            let entry = try disk.lookup(url: url, variant: CacheVariant(longestSide: 300, format: .jpeg), recordingAccess: false)
            let path = try XCTUnwrap(entry?.absolutePath, url, file: file, line: line)
            XCTAssertEqual(measured, SHA256Hex.digest(of: try Data(contentsOf: URL(fileURLWithPath: path))), url, file: file, line: line)
        }
    }

    /// Three planted regressions, each caught by the count or the quality, never by time. A full-size decode held in
    /// the shipped path and a much lower JPEG quality (SSIM still above the 0.90 floor) are planted together in one idle
    /// run: the first moves decoded pixels and no SSIM, the second SSIM and no pixel, and each is named by its own
    /// regression lines. One shrink-on-load step lost moves no peak beyond the noise (the direct path streams rows)
    /// and its CPU time is lost in a loaded machine's, but every JPEG it hits decodes four times the pixels: with two
    /// CPU-bound processes beside the run it fails the check, and an unchanged build measured under that load passes.
    /// Each is checked against the committed baseline, as CI checks an unchanged build. The unchanged sample also shows
    /// that the measured thumbnail engine is the one that fills the cache: every image's `outputSHA256` is the cached
    /// file's (the bytes do not depend on the load).
    func testPlantedRegressionsFailTheCheckIdleAndLoadedWhileAnUnchangedBuildPassesUnderLoad() throws {
        let directory = try makeTemporaryDirectory()
        let baseline = BaselineCheckTests.baseline
        let planted = try sample(in: directory.appendingPathComponent("planted"),
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

        try withTwoBusyProcesses {
            let second = try sample(in: directory.appendingPathComponent("second"))
            let same = try WarmBinary.run(["check", "--metrics", second, "--baseline", baseline])
            XCTAssertEqual(same.status, 0, "an unchanged build on a loaded machine:\n\(same.stdout)\(same.stderr)")
            try assertMeasuredIsCached(metrics: second, cache: directory.appendingPathComponent("second/cache").path, expected: 23)
            let lostLoaded = try sample(in: directory.appendingPathComponent("lost-loaded"),
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

    /// Runs `body` with two CPU-bound processes beside it (as on a shared CI runner), stopped afterwards.
    private func withTwoBusyProcesses(_ body: () throws -> Void) throws {
        let busy = try (0..<2).map { _ in
            try ChildProcess.spawn("/bin/sh", arguments: ["-c", "while :; do :; done"], environment: [:])
        }
        defer {
            for child in busy {
                child.kill()
                _ = child.waitForExit()
            }
        }
        try body()
    }

    /// The 24-product sample measured in full on a free port; returns its metrics file.
    private func sample(in directory: URL, environment: [String: String] = [:]) throws -> String {
        let port = try Socket.ephemeralPort()
        let demo = try WarmBinary.run(["demo"] + WarmBinary.patient + ["--products", "24", "--port", "\(port)", "--dir", directory.path,
                                       "--no-progress", "--compare", "all"], environment: environment)
        XCTAssertEqual(demo.status, 0, demo.stderr)
        return directory.appendingPathComponent("metrics.jsonl").path
    }
}
