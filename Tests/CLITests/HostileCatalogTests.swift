@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
import ImageSamples
import WarmTestSupport
import XCTest

/// The hostile and odd image set (`HostileImages`) served by a real HTTP server
/// on loopback, run through the real `warm` binary: nothing crashes, each bad
/// image fails alone with a clear reason naming it, the odd but valid ones are
/// cached, and no bomb gets its declared size allocated.
final class HostileCatalogTests: XCTestCase {
    /// 30000 x 30000 x 4 bytes = 3.6 GB; a run that allocated one bomb would be far above this.
    static let peakLimitBytes = 600_000_000
    static let size = 64

    func testHostileImagesFailOneByOneWithTheirReasonsAndTheOddOnesAreCached() throws {
        let directory = try makeTemporaryDirectory()
        let samples = try HostileImages.all()
        let server = try StaticCatalogServer(files: samples.map { ($0.name, $0.data) }, directory: directory)
        defer { server.stop() }
        let cacheDirectory = directory.appendingPathComponent("cache").path
        let summaryPath = directory.appendingPathComponent("summary.json").path

        let run = try MeasuredChild.run(WarmBinary.url, [
            "run", "--api", server.baseURL.absoluteString, "--cache-dir", cacheDirectory, "--size", String(Self.size),
            "--items-per-page", "7", "--no-progress", "--summary", summaryPath, "--max-failed", "0"])

        XCTAssertEqual(run.status, 2, "finished with some images failed\n" + run.stderr)
        XCTAssertGreaterThan(run.peakResidentBytes, 0, "the peak was measured")
        XCTAssertLessThan(run.peakResidentBytes, Self.peakLimitBytes, "peak RSS of warm run")
        print("warm run over \(samples.count) hostile images: peak RSS \(run.peakResidentBytes) bytes (ru_maxrss)")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any])
        var expectedReasons: [String: Int] = [:]
        for case .refused(let reason) in samples.map(\.outcome) { expectedReasons[reason, default: 0] += 1 }
        XCTAssertEqual(summary["failedByReason"] as? [String: Int], expectedReasons)
        XCTAssertEqual(summary["imagesFailed"] as? Int, expectedReasons.values.reduce(0, +))
        XCTAssertEqual(summary["imagesDownloaded"] as? Int, samples.count - expectedReasons.values.reduce(0, +))
        XCTAssertEqual(summary["stoppedEarly"] as? Bool, false)
        XCTAssertLessThan(try XCTUnwrap(summary["peakResidentBytes"] as? Int), Self.peakLimitBytes, "the run's own VmHWM")

        let cache = try DiskCache.open(root: cacheDirectory)
        defer { try? cache.close() }
        for sample in samples {
            let url = server.url(of: sample.name)
            let entry = try XCTUnwrap(try cache.entries(forURL: url).first, sample.name)
            switch sample.outcome {
            case .refused(let reason):
                XCTAssertTrue(run.stderr.contains(url), "\(sample.name): the log names the image\n\(run.stderr)")
                XCTAssertFalse(entry.fileIsPresent, sample.name)
                let lastError = try XCTUnwrap(entry.lastError, sample.name)
                XCTAssertTrue(lastError.contains(Self.words[reason] ?? reason), "\(sample.name): \(lastError)")
            case .decodes(let upright):
                XCTAssertNil(entry.lastError, sample.name)
                let path = try XCTUnwrap(entry.absolutePath, sample.name)
                let thumbnail = try Data(contentsOf: URL(fileURLWithPath: path))
                let header = try ImageSource(data: thumbnail).header
                let expected = Self.fitted(upright)
                XCTAssertEqual(max(header.width, header.height), Self.size, sample.name)
                XCTAssertEqual(Double(header.width), Double(expected.width), accuracy: 1, sample.name)
                XCTAssertEqual(Double(header.height), Double(expected.height), accuracy: 1, sample.name)
                XCTAssertEqual(ExifCounts.entries(in: thumbnail), 0, "\(sample.name): no EXIF in the cache")
            }
        }
        let verify = try WarmBinary.run(["cache", "verify", cacheDirectory])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
    }

    func testThumbnailCommandNamesEachHostileFileAndWritesTheOddOnes() throws {
        let directory = try makeTemporaryDirectory()
        let samples = try HostileImages.all()
        let inputs = directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for sample in samples { try sample.data.write(to: inputs.appendingPathComponent(sample.name)) }
        let out = directory.appendingPathComponent("out")

        let run = try MeasuredChild.run(WarmBinary.url, ["thumbnail", inputs.path, "--size", String(Self.size), "--out", out.path])

        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        XCTAssertGreaterThan(run.peakResidentBytes, 0, "the peak was measured")
        XCTAssertLessThan(run.peakResidentBytes, Self.peakLimitBytes, "peak RSS of warm thumbnail")
        print("warm thumbnail over \(samples.count) hostile files: peak RSS \(run.peakResidentBytes) bytes (ru_maxrss)")
        let errorLines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        for sample in samples {
            let output = out.appendingPathComponent(sample.name + ".jpg")
            switch sample.outcome {
            case .refused(let reason):
                let line = errorLines.first { $0.contains(inputs.appendingPathComponent(sample.name).path + ":") }
                XCTAssertNotNil(line, "\(sample.name): an error line names the file\n\(run.stderr)")
                XCTAssertTrue(line?.contains(Self.words[reason] ?? reason) == true, "\(sample.name): \(line ?? "")")
                XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), sample.name)
            case .decodes(let upright):
                let header = try ImageSource(data: Data(contentsOf: output)).header
                XCTAssertEqual(Double(header.width), Double(Self.fitted(upright).width), accuracy: 1, sample.name)
                XCTAssertEqual(Double(header.height), Double(Self.fitted(upright).height), accuracy: 1, sample.name)
            }
        }
    }

    /// Words each reason's sentence contains.
    static let words = [
        "corrupt": "corrupt or truncated", "not-an-image": "not an image", "too-many-pixels": "max pixels",
        "empty": "empty", "unreadable-header": "cannot be read",
    ]

    static func fitted(_ upright: PixelSize) -> PixelSize {
        let longest = max(upright.width, upright.height)
        guard longest > size else { return upright }
        let scale = Double(size) / Double(longest)
        return PixelSize(width: Int((Double(upright.width) * scale).rounded()), height: Int((Double(upright.height) * scale).rounded()))
    }
}
