@testable import Cache
import CacheTestSupport
@testable import Downsample
import Foundation
import WarmTestSupport
import XCTest

/// The decode worker processes as a user meets them: a codec that crashes on
/// one image, or an image that needs more memory than a worker may take,
/// fails that image with a reason naming it, and the run goes on.
final class DecodeWorkerTests: XCTestCase {
    /// The worker's fault hook: a worker raises SIGSEGV on an image whose path
    /// or first bytes contain this mark, as a crashing codec would.
    static let crashMark = "WARM-TEST-CRASH-HERE"
    static let crashEnvironment = ["WARM_DECODER_FAULT": "crash:" + crashMark]

    private func photo(seed: UInt64, width: Int = 640, height: Int = 480, progressive: Bool = false) throws -> Data {
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120, seed: seed), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        return try ImageComposer.photo(small, size: PixelSize(width: width, height: height),
                                       as: CompositionEncoding(format: .jpeg, progressive: progressive))
    }

    func testACrashingDecoderFailsThatFileByNameAndTheOthersAreWritten() throws {
        let directory = try makeTemporaryDirectory()
        let inputs = directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let names = ["a", "b-\(Self.crashMark)", "c", "d", "e"]
        for (index, name) in names.enumerated() {
            try photo(seed: UInt64(index)).write(to: inputs.appendingPathComponent(name + ".jpg"))
        }
        let out = directory.appendingPathComponent("out")
        let result = try WarmBinary.run(["thumbnail", inputs.path, "--size", "100", "--out", out.path, "--concurrency", "2"],
                                        environment: Self.crashEnvironment)

        XCTAssertEqual(result.status, 2, "one file failed: \(result.stderr)")
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        XCTAssertEqual(errorLines.count, 1, result.stderr)
        let line = try XCTUnwrap(errorLines.first, result.stderr)
        XCTAssertTrue(line.contains("b-\(Self.crashMark).jpg") && line.contains("decoder process died")
                      && line.contains("signal 11"), String(line))
        for name in names where !name.contains(Self.crashMark) {
            let header = try ImageSource(data: try Data(contentsOf: out.appendingPathComponent(name + ".jpg"))).header
            XCTAssertEqual(header.width, 100, name)
        }
        XCTAssertTrue(result.stdout.contains("4 of 5 thumbnails written"), result.stdout)
    }

    /// A worker that answers garbage, announces a blob of 2^63 bytes, or closes
    /// its output and hangs (the debug build's `WARM_DECODER_FAULT` kinds):
    /// the parent neither traps nor waits for ever; that image fails with a
    /// reason, the worker is replaced and the other files are written.
    func testAWorkerThatBreaksTheProtocolOrHangsFailsOnlyItsImage() throws {
        let cases: [(kind: String, reason: String)] = [
            ("garbage", "not a valid frame"), ("huge-length", "not a valid frame"),
            ("hang", "took longer than 2.0 s"), ("sleep", "took longer than 2.0 s"),
        ]
        let directory = try makeTemporaryDirectory()
        let inputs = directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let names = ["a", "b-\(Self.crashMark)", "c", "d"]
        for (index, name) in names.enumerated() {
            try photo(seed: UInt64(20 + index)).write(to: inputs.appendingPathComponent(name + ".jpg"))
        }
        for (kind, reason) in cases {
            let out = directory.appendingPathComponent("out-\(kind)")
            // A parent that waited on the hung worker would never end; its error names the decode timeout instead.
            let result = try WarmBinary.run(["thumbnail", inputs.path, "--size", "100", "--out", out.path, "--concurrency", "2",
                                             "--decode-timeout", "2"],
                                            environment: ["WARM_DECODER_FAULT": kind + ":" + Self.crashMark])
            XCTAssertEqual(result.status, 2, "\(kind): \(result.stderr)")
            let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
            XCTAssertEqual(errorLines.count, 1, "\(kind): \(result.stderr)")
            let line = String(errorLines.first ?? "")
            XCTAssertTrue(line.contains("b-\(Self.crashMark).jpg") && line.contains(reason), "\(kind): \(line)")
            for name in names where !name.contains(Self.crashMark) {
                XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(name + ".jpg").path), "\(kind): \(name)")
            }
        }
    }

    func testAnImageOverTheWorkersMemoryLimitFailsAloneWithTheLimitInTheReason() throws {
        let directory = try makeTemporaryDirectory()
        // A progressive JPEG keeps every DCT coefficient of the whole image
        // while it decodes (about 2 bytes x 1.5 samples per pixel with 4:2:0
        // chroma: 8000x6000 is about 144 MB), whatever the shrink.
        let big = directory.appendingPathComponent("big.jpg"), small = directory.appendingPathComponent("small.jpg")
        try photo(seed: 1, width: 8000, height: 6000, progressive: true).write(to: big)
        try photo(seed: 2).write(to: small)
        let out = directory.appendingPathComponent("out")
        let limited = try WarmBinary.run(["thumbnail", big.path, small.path, "--size", "200", "--out", out.path,
                                          "--decoder-memory-limit", "400MiB"])

        XCTAssertEqual(limited.status, 2, limited.stderr)
        let errorLines = limited.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        XCTAssertEqual(errorLines.count, 1, limited.stderr)
        let line = try XCTUnwrap(errorLines.first, limited.stderr)
        XCTAssertTrue(line.contains("big.jpg"), String(line))
        XCTAssertTrue(line.contains("decoder memory limit"), "the reason names the limit: \(line)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("small.jpg").path))

        // Without the limit the same image decodes: the limit was the cause.
        let unlimited = try WarmBinary.run(["thumbnail", big.path, "--size", "200", "--out", out.path])
        XCTAssertEqual(unlimited.status, 0, unlimited.stderr)
    }

    func testRunRecordsACrashedDecodeAsThatImagesFailureAndCachesTheRest() throws {
        let directory = try makeTemporaryDirectory()
        var files: [(name: String, data: Data)] = []
        for index in 0..<6 {
            files.append(("p\(index)_thumb", try photo(seed: UInt64(10 + index))))
        }
        // libjpeg ignores bytes after the end-of-image marker; the fault hook finds the mark there.
        files[3].data.append(Data(Self.crashMark.utf8))
        let server = try StaticCatalogServer(files: files, directory: directory)
        defer { server.stop() }
        let cacheDirectory = directory.appendingPathComponent("cache").path
        let summaryPath = directory.appendingPathComponent("summary.json").path

        let run = try WarmBinary.run(["run", "--api", server.baseURL.absoluteString, "--cache-dir", cacheDirectory,
                                      "--size", "120", "--no-progress", "--summary", summaryPath, "--max-failed", "0"],
                                     environment: Self.crashEnvironment)

        XCTAssertEqual(run.status, 2, run.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any])
        XCTAssertEqual(summary["failedByReason"] as? [String: Int], ["decoder-crashed": 1])
        XCTAssertEqual(summary["imagesDownloaded"] as? Int, 5)
        XCTAssertTrue(run.stderr.contains(server.url(of: "p3_thumb")), "the log names the image\n\(run.stderr)")
        let cache = try DiskCache.open(root: cacheDirectory)
        defer { try? cache.close() }
        for (index, file) in files.enumerated() {
            let entry = try XCTUnwrap(try cache.entries(forURL: server.url(of: file.name)).first, file.name)
            if index == 3 {
                XCTAssertFalse(entry.fileIsPresent)
                XCTAssertTrue(entry.lastError?.contains("decoder process died") == true, entry.lastError ?? "no error")
            } else {
                XCTAssertTrue(entry.fileIsPresent, file.name)
            }
        }
        XCTAssertEqual(try WarmBinary.run(["cache", "verify", cacheDirectory]).status, 0)
    }
}
