@testable import Downsample
import WarmTestSupport
import XCTest

/// Properties of every hash, over seeded random images, and the encoder's refusals.
final class ThumbHashPropertyTests: XCTestCase {
    func testRandomImagesHashToAtMost25BytesAndKeepTheirQuantisedAspectRatio() throws {
        var random = SplitMix64(seed: 26)
        for round in 0..<150 {
            let width = Int.random(in: 1...100, using: &random)
            let height = Int.random(in: 1...100, using: &random)
            let transparency = Bool.random(using: &random)
            let rgba = (0..<(width * height)).flatMap { _ -> [UInt8] in
                let alpha: UInt8 = transparency ? .random(in: 0...255, using: &random) : 255
                return [.random(in: 0...255, using: &random), .random(in: 0...255, using: &random),
                        .random(in: 0...255, using: &random), alpha]
            }
            let label = "round \(round): \(width)x\(height), alpha \(transparency)"
            let hash = try ThumbHash.encode(width: width, height: height, rgba: rgba)
            XCTAssertLessThanOrEqual(hash.count, ThumbHash.maxByteCount, label)

            // The short side over the long one is kept as k / n, n = 7 terms (5 with alpha),
            // k the nearest whole number, at least 1: off by at most half a term.
            let hasAlpha = stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] < 255 }
            let terms = Double(hasAlpha ? 5 : 7)
            let shortOverLong = Double(min(width, height)) / Double(max(width, height))
            let ratio = try ThumbHash.approximateAspectRatio(hash)
            let hashShortOverLong = min(ratio, 1 / ratio)
            let allowed = shortOverLong * terms < 0.5 ? 1 / terms : 0.5 / terms
            XCTAssertEqual(hashShortOverLong, shortOverLong, accuracy: allowed + 1e-12, label)
            XCTAssertEqual(ratio >= 1, width >= height || ratio == 1, "\(label): orientation")

            let decoded = try ThumbHash.decode(hash)
            XCTAssertEqual(max(decoded.width, decoded.height), 32, label)
            // The placeholder's short side is the nearest whole pixel to 32 x the hash's proportion.
            let decodedShort = Double(min(decoded.width, decoded.height))
            XCTAssertEqual(decodedShort, 32 * hashShortOverLong, accuracy: 0.5 + 1e-9, label)
            XCTAssertEqual(decoded.rgba.count, decoded.width * decoded.height * 4, label)
        }
    }

    func testCommonPhotoShapesReadAsTheReferenceQuantisesThem() throws {
        // width x height -> the ratio the hash keeps: why the 8% holds for 4:3 and 3:2 but not 16:10.
        let shapes: [(Int, Int, Double)] = [(100, 100, 1), (100, 75, 7.0 / 5), (75, 100, 5.0 / 7),
                                            (99, 66, 7.0 / 5), (96, 54, 7.0 / 4), (100, 62, 7.0 / 4)]
        for (width, height, expected) in shapes {
            let rgba = [UInt8](repeating: 255, count: width * height * 4)  // opaque white: 7 terms on the long side
            let hash = try ThumbHash.encode(width: width, height: height, rgba: rgba)
            XCTAssertEqual(try ThumbHash.approximateAspectRatio(hash), expected, accuracy: 1e-12, "\(width)x\(height)")
        }
    }

    func testImageLargerThan100PixelsIsRefusedWithItsSize() {
        let rgba = [UInt8](repeating: 0, count: 101 * 10 * 4)
        XCTAssertThrowsError(try ThumbHash.encode(width: 101, height: 10, rgba: rgba)) { error in
            XCTAssertEqual(error as? ThumbHashError, .tooLarge(width: 101, height: 10, maxSide: 100))
            XCTAssertTrue("\(error)".contains("101x10"), "\(error)")
        }
    }

    func testPixelBufferOfTheWrongLengthIsRefused() {
        XCTAssertThrowsError(try ThumbHash.encode(width: 4, height: 4, rgba: [UInt8](repeating: 0, count: 60))) { error in
            XCTAssertEqual(error as? ThumbHashError, .wrongPixelByteCount(width: 4, height: 4, byteCount: 60))
        }
        XCTAssertThrowsError(try ThumbHash.encode(width: 0, height: 4, rgba: [])) { error in
            XCTAssertEqual(error as? ThumbHashError, .emptyImage(width: 0, height: 4))
        }
    }

    func testTruncatedHashIsRefusedNotReadPastItsEnd() throws {
        var rgba: [UInt8] = []
        for i in 0..<(40 * 30) {
            rgba += [UInt8(i % 256), UInt8(i / 5 % 256), 90, 255]
        }
        let hash = try ThumbHash.encode(width: 40, height: 30, rgba: rgba)
        XCTAssertThrowsError(try ThumbHash.decode(Array(hash.dropLast()))) { error in
            XCTAssertEqual(error as? ThumbHashError, .truncatedHash(byteCount: hash.count - 1, expectedByteCount: hash.count))
        }
        XCTAssertThrowsError(try ThumbHash.averageColor(Array(hash.prefix(4))))
        XCTAssertThrowsError(try ThumbHash.approximateAspectRatio([]))
    }

    func testAverageColourIsWrittenAsLowerCaseHashRRGGBB() {
        XCTAssertEqual(PlaceholderColor(red: 1, green: 0, blue: 0.5, alpha: 1).hexRGB, "#ff0080")
        XCTAssertEqual(PlaceholderColor(red: 0.0392, green: 0.6, blue: 0.999, alpha: 0.2).hexRGB, "#0a99ff")
    }
}
