@testable import Downsample
import Foundation
import ImageSamples
import XCTest

/// The pixels each engine path decodes, the figure `warm check` fails on: counted from the decoders' own output sizes,
/// so a lost shrink-on-load step or a fall-back to a larger decode shows exactly, on any machine and build.
final class DecodedPixelsTests: XCTestCase {
    let target = DecodeTarget(longestSide: 300)

    func pattern(_ width: Int, _ height: Int) -> [UInt8] {
        ImageComposer.pattern(width: width, height: height, seed: 5)
    }

    func testTheDirectJPEGPathCountsLibjpegsDCTScaledOutput() throws {
        let data = try ImageComposer.encode(pixels: pattern(1280, 960), width: 1280, height: 960, bands: 3,
                                            as: CompositionEncoding(format: .jpeg))
        let encoded = try ThumbnailEncoder().encode(try ImageSource(data: data), target: target)
        XCTAssertEqual(encoded.size, PixelSize(width: 300, height: 225))
        XCTAssertEqual(ShrinkOnLoad.jpegFactor(stored: PixelSize(width: 1280, height: 960), output: encoded.size), 2)
        XCTAssertEqual(encoded.decodedPixels, 640 * 480, "DCT scale 1/2, not the 1,228,800 stored pixels")
    }

    func testPNGAndWebPDecodeEveryStoredPixel() throws {
        for format in [ImageFormat.png, .webp] {
            let data = try ImageComposer.encode(pixels: pattern(640, 480), width: 640, height: 480, bands: 3,
                                                as: CompositionEncoding(format: format))
            let encoded = try ThumbnailEncoder().encode(try ImageSource(data: data), target: target)
            XCTAssertEqual(encoded.decodedPixels, 640 * 480, "\(format): no shrink-on-load in the decoder")
        }
    }

    func testEveryFormatOfOneTargetCarriesItsOneSharedDecode() throws {
        let data = try ImageComposer.encode(pixels: pattern(1280, 960), width: 1280, height: 960, bands: 3,
                                            as: CompositionEncoding(format: .jpeg))
        let images = try ThumbnailEncoder(formats: [.jpeg, .webp, .avif]).encode(try ImageSource(data: data), targets: [target])
        XCTAssertEqual(images.map(\.format), [.jpeg, .webp, .avif])
        XCTAssertEqual(images.map(\.decodedPixels), Array(repeating: 640 * 480, count: 3))
    }

    func testTheLibvipsPathsCountTheirLoadersShrunkOutput() throws {
        // CMYK: the direct path gives up at the header (nothing decoded), libvips' JPEG loader shrinks by 2.
        let cmyk = try ImageComposer.encode(pixels: pattern(1280, 960), width: 1280, height: 960, bands: 3,
                                            as: OddEncoding(format: .jpeg, cmyk: true))
        let fromCMYK = try ThumbnailEncoder().encode(try ImageSource(data: cmyk), target: target)
        XCTAssertEqual(fromCMYK.decodedPixels, 640 * 480)
        // 16 bits: the direct path refuses it, libvips' thumbnail loads the PNG whole.
        let deep = try ImageComposer.encode(pixels: pattern(640, 480), width: 640, height: 480, bands: 3,
                                            as: OddEncoding(format: .png, sixteenBit: true))
        let fromDeep = try ThumbnailEncoder().encode(try ImageSource(data: deep), target: target)
        XCTAssertEqual(fromDeep.decodedPixels, 640 * 480)
    }

    func testNaiveAndRendererDecodeTheFullImageAndTheAppsDecodeOfAThumbnailKeepsTheEnginesCount() throws {
        let data = try ImageComposer.encode(pixels: pattern(1280, 960), width: 1280, height: 960, bands: 3,
                                            as: CompositionEncoding(format: .jpeg))
        let source = try ImageSource(data: data)
        XCTAssertEqual(try NaiveDecode().decode(source, target: target).decodedPixels, 1280 * 960)
        XCTAssertEqual(try RendererResize().decode(source, target: target).decodedPixels, 1280 * 960)
        XCTAssertEqual(try ThumbnailAtDecode().decode(source, target: target).decodedPixels, 640 * 480)
    }
}
