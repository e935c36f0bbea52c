@testable import Downsample
import Foundation
import WarmTestSupport
import ImageSamples
import XCTest

/// `warm thumbnail` as a user runs it: the real binary on real files.
final class ThumbnailCommandTests: XCTestCase {
    func testRotatedPhoneJPEGBecomesUpright225x300JPEGWithoutEXIF() throws {
        let directory = try makeTemporaryDirectory()
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        // Stored 4032x3024, tagged 6: a portrait photo as a phone writes it.
        let photo = try ImageComposer.photo(small, size: PixelSize(width: 3024, height: 4032),
                                            as: CompositionEncoding(format: .jpeg, orientationTag: 6))
        XCTAssertEqual(try ImageSource(data: photo).header.width, 4032)
        let input = directory.appendingPathComponent("IMG_0001.JPG")
        try photo.write(to: input)

        let result = try WarmBinary.run(["thumbnail", input.path, "--size", "300", "--out", directory.appendingPathComponent("out").path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try Data(contentsOf: directory.appendingPathComponent("out/IMG_0001.jpg"))
        let header = try ImageSource(data: output).header
        XCTAssertEqual(header.format, .jpeg)
        XCTAssertEqual(PixelSize(width: header.width, height: header.height), PixelSize(width: 225, height: 300))
        XCTAssertFalse(header.hasExif)
        XCTAssertEqual(ExifCounts.entries(in: output), 0)
    }

    func testOneBadFileIsNamedAndTheOthersAreStillDone() throws {
        let directory = try makeTemporaryDirectory()
        let inputs = directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for index in 0..<4 {
            let data = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 640, height: 480, seed: UInt64(index)),
                                                width: 640, height: 480, bands: 3, as: CompositionEncoding(format: index % 2 == 0 ? .png : .webp))
            try data.write(to: inputs.appendingPathComponent("good\(index)_thumb"))  // no extension, like object-store keys
        }
        try Data("<html><body>500</body></html>".utf8).write(to: inputs.appendingPathComponent("broken_thumb"))

        let out = directory.appendingPathComponent("out")
        let result = try WarmBinary.run(["thumbnail", inputs.path, "--size", "100", "--out", out.path, "--format", "webp"])
        XCTAssertEqual(result.status, 2, "some failed: \(result.stderr)")
        XCTAssertTrue(result.stderr.contains("broken_thumb") && result.stderr.contains("HTML"), result.stderr)
        for index in 0..<4 {
            let header = try ImageSource(data: try Data(contentsOf: out.appendingPathComponent("good\(index)_thumb.webp"))).header
            XCTAssertEqual(header.format, .webp)
            XCTAssertEqual(header.width, 100)
            XCTAssertFalse(header.hasExif)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("broken_thumb.webp").path))
    }

    func testAnOutputThatCannotBeWrittenIsNamedLeavesNoTemporaryFileAndAnOldOutputIsReplaced() throws {
        let directory = try makeTemporaryDirectory()
        let out = directory.appendingPathComponent("out")
        // b's output path is taken by a directory: its rename fails. c's output
        // exists from an earlier run: it is replaced whole.
        try FileManager.default.createDirectory(at: out.appendingPathComponent("b.jpg"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: out.appendingPathComponent("c.jpg"))
        var inputs: [String] = []
        for name in ["a", "b", "c"] {
            let input = directory.appendingPathComponent("\(name).png")
            try ImageComposer.encode(pixels: ImageComposer.pattern(width: 320, height: 240), width: 320, height: 240, bands: 3,
                                     as: CompositionEncoding(format: .png)).write(to: input)
            inputs.append(input.path)
        }
        let result = try WarmBinary.run(["thumbnail"] + inputs + ["--size", "64", "--out", out.path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains(out.appendingPathComponent("b.jpg").path) && result.stderr.contains("rename"), result.stderr)
        for name in ["a", "c"] {
            let header = try ImageSource(data: try Data(contentsOf: out.appendingPathComponent("\(name).jpg"))).header
            XCTAssertEqual(PixelSize(width: header.width, height: header.height), PixelSize(width: 64, height: 48), name)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(left, ["a.jpg", "b.jpg", "c.jpg"], "no temporary file is left behind")
    }

    func testTwoInputsWithOneBaseNameKeepTheFirstOutputAndNameTheSecond() throws {
        let directory = try makeTemporaryDirectory()
        var inputs: [String] = []
        for (folder, seed) in [("one", 1), ("two", 2)] {
            let input = directory.appendingPathComponent("\(folder)/photo.png")
            try FileManager.default.createDirectory(at: input.deletingLastPathComponent(), withIntermediateDirectories: true)
            try ImageComposer.encode(pixels: ImageComposer.pattern(width: 320, height: 240, seed: UInt64(seed)), width: 320,
                                     height: 240, bands: 3, as: CompositionEncoding(format: .png)).write(to: input)
            inputs.append(input.path)
        }
        let out = directory.appendingPathComponent("out")
        let result = try WarmBinary.run(["thumbnail"] + inputs + ["--size", "64", "--out", out.path])
        XCTAssertEqual(result.status, 2, result.stderr)
        let skipped = "\(inputs[1]): skipped, its output \(out.path)/photo.jpg is already the output of \(inputs[0])"
        XCTAssertTrue(result.stderr.contains(skipped), result.stderr)
        XCTAssertTrue(result.stdout.contains("1 of 2 thumbnails written"), result.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["photo.jpg"])
    }

    func testAnOutputDirectoryThatCannotBeCreatedFailsEveryInputByName() throws {
        let directory = try makeTemporaryDirectory()
        let input = directory.appendingPathComponent("a.png")
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: 320, height: 240), width: 320, height: 240, bands: 3,
                                 as: CompositionEncoding(format: .png)).write(to: input)
        let blocker = directory.appendingPathComponent("file")
        try Data("not a directory".utf8).write(to: blocker)
        let out = blocker.appendingPathComponent("out")
        let result = try WarmBinary.run(["thumbnail", input.path, "--size", "64", "--out", out.path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(out.path): the output directory cannot be created"), result.stderr)
        XCTAssertTrue(result.stdout.contains("0 of 1 thumbnails written"), result.stdout)
    }

    func testInspectReportsRetainedBytesPerStrategyAsJSON() throws {
        let directory = try makeTemporaryDirectory()
        let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                             bands: 3, as: CompositionEncoding(format: .jpeg))
        let photo = try ImageComposer.photo(small, size: PixelSize(width: 4032, height: 3024), as: CompositionEncoding(format: .jpeg))
        let input = directory.appendingPathComponent("photo")
        try photo.write(to: input)
        let result = try WarmBinary.run(["inspect", input.path, "--size", "300", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let strategies = try XCTUnwrap(json.first?["strategies"] as? [String: [String: Int]])
        XCTAssertEqual(strategies["naive"]?["retainedBytes"], 48_771_072)
        XCTAssertEqual(strategies["thumbnail"]?["retainedBytes"], 270_000)
        XCTAssertEqual(strategies["thumbnail"]?["outputWidth"], 300)
        XCTAssertEqual(strategies["renderer"]?["outputHeight"], 225)
    }

    func testBombIsRefusedByNameWithTheLimitInTheMessage() throws {
        let directory = try makeTemporaryDirectory()
        var png = [UInt8](try ImageComposer.encode(pixels: [0, 0, 0], width: 1, height: 1, bands: 3, as: CompositionEncoding(format: .png)))
        for (offset, value) in [(16, 30000), (20, 30000)] {
            for k in 0..<4 { png[offset + k] = UInt8((value >> (24 - 8 * k)) & 0xFF) }
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in png[12..<29] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        crc = ~crc
        for k in 0..<4 { png[29 + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xFF) }
        let input = directory.appendingPathComponent("bomb.png")
        try Data(png).write(to: input)
        let result = try WarmBinary.run(["thumbnail", input.path, "--out", directory.appendingPathComponent("out").path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("bomb.png") && result.stderr.contains("30000x30000") && result.stderr.contains("max pixels"), result.stderr)
    }
}
