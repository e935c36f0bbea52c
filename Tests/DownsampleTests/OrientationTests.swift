@testable import Downsample
import Foundation
import XCTest

final class OrientationTests: XCTestCase {
    /// For each EXIF orientation, a file stored as a camera writes it must come
    /// out upright from every strategy: red top-left, green top-right, blue
    /// bottom-left, white bottom-right.
    func testAllEightOrientationsComeOutUprightFromEveryStrategy() throws {
        let width = 96, height = 64
        let upright = TestImages.quadrants(width: width, height: height)
        for orientation in 1...8 {
            let stored = TestImages.stored(upright, width: width, height: height, orientation: orientation)
            let data = try ImageComposer.encode(pixels: stored.pixels, width: stored.width, height: stored.height, bands: 3,
                                                as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: orientation))
            let source = try ImageSource(data: data)
            XCTAssertEqual(source.header.orientation, orientation)
            XCTAssertEqual(source.header.uprightWidth, width)
            for kind in StrategyKind.allCases {
                let image = try kind.strategy.decode(source, target: DecodeTarget(longestSide: 48))
                let expected = kind == .naive ? PixelSize(width: 96, height: 64) : PixelSize(width: 48, height: 32)
                XCTAssertEqual(image.size, expected, "orientation \(orientation) \(kind)")
                let pixels = image.rgbaPixels()
                let qx = image.width / 4, qy = image.height / 4
                assertColour(TestImages.pixel(image, pixels, x: qx, y: qy), [255, 0, 0], "orientation \(orientation) \(kind) top-left")
                assertColour(TestImages.pixel(image, pixels, x: 3 * qx, y: qy), [0, 255, 0], "orientation \(orientation) \(kind) top-right")
                assertColour(TestImages.pixel(image, pixels, x: qx, y: 3 * qy), [0, 0, 255], "orientation \(orientation) \(kind) bottom-left")
                assertColour(TestImages.pixel(image, pixels, x: 3 * qx, y: 3 * qy), [255, 255, 255], "orientation \(orientation) \(kind) bottom-right")
            }
        }
    }

    func testOrientationOutsideOneToEightIsTreatedAsUpright() throws {
        let data = try ImageComposer.encode(pixels: TestImages.quadrants(width: 40, height: 20), width: 40, height: 20, bands: 3,
                                            as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: 9))
        let source = try ImageSource(data: data)
        XCTAssertEqual(source.header.exifOrientation, 9)
        XCTAssertEqual(source.header.orientation, 1)
        let image = try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 40))
        XCTAssertEqual(image.size, PixelSize(width: 40, height: 20))
        assertColour(TestImages.pixel(image, image.rgbaPixels(), x: 5, y: 5), [255, 0, 0], "top-left")
    }

    private func assertColour(_ rgba: [Int], _ rgb: [Int], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        for channel in 0..<3 where abs(rgba[channel] - rgb[channel]) > 40 {
            XCTFail("\(message): got \(rgba), expected about \(rgb)", file: file, line: line)
            return
        }
        XCTAssertEqual(rgba[3], 255, message, file: file, line: line)
    }
}
