@testable import Downsample
import Foundation
import WarmTestSupport
import XCTest

/// `--quality N` is JPEG's; `--quality jpeg=N,webp=N,avif=N` sets each format's on its own scale, and a value
/// outside 1-100 or an unknown format is a usage error naming `--quality`.
final class PerFormatQualityTests: XCTestCase {
    func testPlainQualityIsJPEGsAndEachFormatTakesItsOwn() throws {
        let directory = try makeTemporaryDirectory()
        let input = directory.appendingPathComponent("photo.png")
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: 400, height: 300, seed: 5), width: 400, height: 300,
                                 bands: 3, as: CompositionEncoding(format: .png)).write(to: input)
        func bytes(_ format: String, _ quality: String?) throws -> Int {
            let out = directory.appendingPathComponent("\(format)-\(quality ?? "default")")
            let result = try WarmBinary.run(["thumbnail", input.path, "--size", "200", "--out", out.path, "--format", format]
                                            + (quality.map { ["--quality", $0] } ?? []))
            XCTAssertEqual(result.status, 0, result.stderr)
            let ext = format == "jpeg" ? "jpg" : format
            return try Data(contentsOf: out.appendingPathComponent("photo.\(ext)")).count
        }
        XCTAssertLessThan(try bytes("jpeg", "30"), try bytes("jpeg", nil), "a plain number sets JPEG's quality")
        XCTAssertEqual(try bytes("webp", "30"), try bytes("webp", nil), "a plain number leaves WebP's default")
        XCTAssertLessThan(try bytes("webp", "webp=30"), try bytes("webp", nil))
        XCTAssertLessThan(try bytes("avif", "jpeg=90,avif=30"), try bytes("avif", nil))
        XCTAssertEqual(try bytes("jpeg", "avif=30"), try bytes("jpeg", nil), "AVIF's quality leaves JPEG's default")

        for bad in ["webp=0", "gif=50", "jpeg=82,webp", "avif=101", "82,webp=80"] {
            let result = try WarmBinary.run(["thumbnail", input.path, "--out", directory.path, "--quality", bad])
            XCTAssertEqual(result.status, 64, bad)
            XCTAssertTrue(result.stderr.contains("--quality"), "\(bad): \(result.stderr)")
        }
    }

    func testEncoderEffortsOutsideTheirEncodersRangesAreUsageErrorsNamingTheOption() throws {
        let cache = try makeTemporaryDirectory().appendingPathComponent("cache")
        let run = ["run", "--api", "http://127.0.0.1:9/", "--cache-dir", cache.path, "--no-progress", "--max-attempts", "1"]
        for (option, bad, good) in [("--webp-effort", "7", "2"), ("--avif-effort", "10", "9")] {
            let rejected = try WarmBinary.run(run + [option, bad])
            XCTAssertEqual(rejected.status, 64, "\(option) \(bad)")
            XCTAssertTrue(rejected.stderr.contains(option), rejected.stderr)
            let accepted = try WarmBinary.run(run + [option, good])
            XCTAssertNotEqual(accepted.status, 64, "\(option) \(good) is in range: \(accepted.stderr.prefix(300))")
        }
    }
}
