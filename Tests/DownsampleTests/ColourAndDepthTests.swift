@testable import Downsample
import ImageSamples
import Foundation
import XCTest

/// Every strategy hands out 8-bit sRGB RGBA, whatever the file holds.
final class ColourAndDepthTests: XCTestCase {
    let target = DecodeTarget(longestSide: 64)

    func testAlphaPNGKeepsItsTransparency() throws {
        let pixels = ImageComposer.pattern(width: 128, height: 96, alpha: true)
        let data = try ImageComposer.encode(pixels: pixels, width: 128, height: 96, bands: 4, as: CompositionEncoding(format: .png))
        let source = try ImageSource(data: data)
        XCTAssertTrue(source.header.hasAlpha)
        for kind in StrategyKind.allCases {
            // The engine keeps alpha for a format that has it.
            let strategy = kind == .thumbnail ? ThumbnailAtDecode.libvipsPath : kind.strategy
            let image = try strategy.decode(source, target: target)
            let rgba = image.rgbaPixels()
            let right = TestImages.pixel(image, rgba, x: image.width - 1, y: image.height - 1)
            let middle = TestImages.pixel(image, rgba, x: image.width / 2, y: image.height - 1)
            XCTAssertGreaterThan(right[3], 200, "\(kind): right edge is nearly opaque")
            XCTAssertLessThan(middle[3], 200, "\(kind): the middle is translucent")
        }
    }

    func testGreyscaleBecomesRGBAWithEqualChannels() throws {
        var grey = [UInt8](repeating: 0, count: 100 * 80)
        for i in grey.indices { grey[i] = UInt8(i % 100 * 2) }
        let data = try ImageComposer.encode(pixels: grey, width: 100, height: 80, bands: 1, as: CompositionEncoding(format: .png))
        let source = try ImageSource(data: data)
        XCTAssertEqual(source.header.bands, 1)
        for kind in StrategyKind.allCases {
            let image = try kind.strategy.decode(source, target: target)
            XCTAssertEqual(image.bands, 4)
            let p = TestImages.pixel(image, image.rgbaPixels(), x: image.width / 2, y: 3)
            XCTAssertEqual(p[0], p[1], "\(kind)")
            XCTAssertEqual(p[1], p[2], "\(kind)")
        }
    }

    func testCMYKJPEGComesOutAsSRGB() throws {
        let data = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120, bands: 3,
                                            as: OddEncoding(format: .jpeg, quality: 95, cmyk: true))
        let source = try ImageSource(data: data)
        XCTAssertEqual(source.header.colourSpace, "cmyk")
        XCTAssertEqual(source.header.bands, 4)
        XCTAssertTrue(source.header.hasICCProfile)
        for kind in StrategyKind.allCases {
            let image = try kind.strategy.decode(source, target: target)
            XCTAssertEqual(image.bands, 4)
            // The red corner survives the CMYK round trip as red, not as an inverted or cyan mess.
            let p = TestImages.pixel(image, image.rgbaPixels(), x: 2, y: 2)
            XCTAssertGreaterThan(p[0], 180, "\(kind) \(p)")
            XCTAssertLessThan(p[1], 90, "\(kind) \(p)")
            XCTAssertLessThan(p[2], 90, "\(kind) \(p)")
            XCTAssertEqual(p[3], 255, "\(kind): CMYK's fourth band is not alpha")
        }
    }

    func testSixteenBitPNGComesOutAsEightBit() throws {
        let data = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 120, height: 90), width: 120, height: 90, bands: 3,
                                            as: OddEncoding(format: .png, sixteenBit: true))
        let source = try ImageSource(data: data)
        XCTAssertTrue(source.header.isSixteenBit)
        for kind in StrategyKind.allCases {
            let image = try kind.strategy.decode(source, target: target)
            XCTAssertEqual(image.retainedBytes, image.width * image.height * 4, "\(kind): 4 bytes per pixel")
            let p = TestImages.pixel(image, image.rgbaPixels(), x: 2, y: 2)
            XCTAssertGreaterThan(p[0], 230, "\(kind) \(p)")
            XCTAssertLessThan(p[1], 30, "\(kind) \(p)")
        }
    }

    func testEmbeddedICCProfileIsAppliedAndNotCarriedOut() throws {
        let data = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 120, height: 90), width: 120, height: 90, bands: 3,
                                            as: OddEncoding(format: .jpeg, quality: 95, iccProfile: "srgb"))
        let source = try ImageSource(data: data)
        XCTAssertTrue(source.header.hasICCProfile)
        let image = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
        let encoded = try image.encoded(as: .jpeg)
        XCTAssertFalse(try ImageSource(data: encoded).header.hasICCProfile, "output is plain sRGB")
        let p = TestImages.pixel(image, image.rgbaPixels(), x: 2, y: 2)
        XCTAssertGreaterThan(p[0], 200)
    }
}
