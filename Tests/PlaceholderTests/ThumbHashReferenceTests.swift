import Foundation
@testable import Downsample
import WarmTestSupport
import XCTest

/// warm's ThumbHash against evanw's reference, on the vectors in Fixtures/vectors.json
/// (synthetic images: gradients, alpha, portrait, landscape, 1x1, 100x75, noise, flat).
final class ThumbHashReferenceTests: XCTestCase {
    func testHashesEqualTheReferenceByteForByte() throws {
        let vectors = try ReferenceFixtures.vectors()
        XCTAssertGreaterThanOrEqual(vectors.count, 10)
        for vector in vectors {
            let rgba = try ReferenceFixtures.bytes(vector.rgba)
            let hash = try ThumbHash.encode(width: vector.width, height: vector.height, rgba: rgba)
            XCTAssertEqual(Data(hash).base64EncodedString(), vector.hash, vector.name)
        }
    }

    func testAverageColourAndAspectRatioEqualTheReference() throws {
        for vector in try ReferenceFixtures.vectors() {
            let hash = try ReferenceFixtures.bytes(vector.hash)
            let colour = try ThumbHash.averageColor(hash)
            let expected = vector.averageRGBA
            XCTAssertEqual([colour.red, colour.green, colour.blue, colour.alpha], expected, vector.name)
            XCTAssertEqual(try ThumbHash.approximateAspectRatio(hash), vector.aspectRatio, vector.name)
        }
    }

    func testDecodedPlaceholderEqualsTheReference() throws {
        for vector in try ReferenceFixtures.vectors() {
            let image = try ThumbHash.decode(try ReferenceFixtures.bytes(vector.hash))
            XCTAssertEqual(image.width, vector.decoded.width, vector.name)
            XCTAssertEqual(image.height, vector.decoded.height, vector.name)
            let expected = try ReferenceFixtures.bytes(vector.decoded.rgba)
            XCTAssertEqual(image.rgba.count, expected.count, vector.name)
            let differing = zip(image.rgba, expected).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(vector.name): \(differing) of \(expected.count) bytes differ")
        }
    }

    /// The hash rounds terms that are exactly 7.5 before the cosine's last bit, so the port
    /// computes JavaScript's cosine; the C library's differs on these arguments.
    func testCosineEqualsJavaScriptsWhereTheCLibraryDiffers() throws {
        let cosines = try ReferenceFixtures.cosines()
        XCTAssertGreaterThanOrEqual(cosines.count, 20)
        var cLibraryDiffers = 0
        for row in cosines {
            let argument = Double.pi / row[0] * row[1] * (row[2] + 0.5)
            XCTAssertEqual(ReferenceCosine.cos(argument).bitPattern, row[3].bitPattern, "\(row)")
            cLibraryDiffers += Foundation.cos(argument) == row[3] ? 0 : 1
        }
        XCTAssertEqual(cLibraryDiffers, cosines.count, "the fixture's arguments are where the C library's cosine differs")
    }
}
