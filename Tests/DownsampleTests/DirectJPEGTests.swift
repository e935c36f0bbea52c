@testable import Downsample
import Foundation
import ImageSamples
import XCTest

/// JPEG to JPEG outside libvips' pipeline (`directJPEGThumbnail`, libjpeg
/// and a Lanczos3 resample by hand): taken for plain files, upright in all
/// eight orientations, the libvips path's pixels; left to libvips for what it
/// would get wrong (a foreign profile, CMYK) or must refuse (corrupt data).
final class DirectJPEGTests: XCTestCase {
    private let target = DecodeTarget(longestSide: 120)

    private func direct(_ source: ImageSource, quality: Int = 95) -> EncodedImage? {
        source.data.withUnsafeBytes { source.directJPEGThumbnail(memory: $0, target: target, quality: quality) }
    }

    func testPlainJPEGsComeOutUprightInAllEightOrientations() throws {
        // 480x320 bound for 120x80: libjpeg decodes at 1/2, the resample does the rest.
        let width = 480, height = 320
        let upright = TestImages.quadrants(width: width, height: height)
        for orientation in 1...8 {
            let stored = TestImages.stored(upright, width: width, height: height, orientation: orientation)
            let data = try ImageComposer.encode(pixels: stored.pixels, width: stored.width, height: stored.height, bands: 3,
                                                as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: orientation))
            let source = try ImageSource(data: data)
            let thumbnail = try XCTUnwrap(direct(source), "orientation \(orientation): the direct path refused a plain JPEG")
            XCTAssertEqual(thumbnail.size, PixelSize(width: 120, height: 80), "orientation \(orientation)")
            let back = try ImageSource(data: thumbnail.data)
            XCTAssertEqual(back.header.exifOrientation, 0, "orientation \(orientation): no EXIF left")
            XCTAssertFalse(back.header.hasICCProfile)
            XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), thumbnail.size)
            let image = try NaiveDecode().decode(back, target: target)
            let pixels = image.rgbaPixels()
            let corners: [(x: Int, y: Int, colour: [Int], name: String)] = [
                (30, 20, [255, 0, 0], "top-left"), (90, 20, [0, 255, 0], "top-right"),
                (30, 60, [0, 0, 255], "bottom-left"), (90, 60, [255, 255, 255], "bottom-right"),
            ]
            for corner in corners {
                let p = TestImages.pixel(image, pixels, x: corner.x, y: corner.y)
                for c in 0..<3 {
                    XCTAssertEqual(p[c], corner.colour[c], accuracy: 12, "orientation \(orientation) \(corner.name): \(p)")
                }
            }
        }
    }

    func testDirectPathStoresTheLibvipsPathsPixels() throws {
        let pattern = ImageComposer.pattern(width: 500, height: 333)
        let grey = [UInt8](unsafeUninitializedCapacity: 500 * 333) { buffer, count in
            for i in 0..<(500 * 333) { buffer[i] = UInt8(truncatingIfNeeded: (i % 500) / 2 + (i / 500) / 3) }
            count = 500 * 333
        }
        let sources: [(String, Data)] = [
            ("baseline", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                  as: CompositionEncoding(format: .jpeg, quality: 95))),
            ("progressive, orientation 6", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                                     as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: 6,
                                                                                             progressive: true))),
            ("sRGB profile", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                      as: CompositionEncoding(format: .jpeg, quality: 95, iccProfile: "srgb"))),
            ("greyscale", try ImageComposer.encode(pixels: grey, width: 500, height: 333, bands: 1,
                                                   as: CompositionEncoding(format: .jpeg, quality: 95))),
        ]
        for (name, data) in sources {
            let source = try ImageSource(data: data)
            let thumbnail = try XCTUnwrap(direct(source, quality: 90), "\(name): refused")
            // The libvips path: the same DCT scale and Lanczos3 resample, then libvips' encoder.
            let decoded = try ThumbnailAtDecode().decode(source, target: target)
            let reference = try ImageSource(data: try decoded.encoded(as: .jpeg, quality: 90))
            let back = try ImageSource(data: thumbnail.data)
            XCTAssertEqual(back.header.bands, reference.header.bands, "\(name): bands")
            XCTAssertEqual(thumbnail.size, decoded.size, name)
            let a = try NaiveDecode().decode(back, target: target).rgbaPixels()
            let b = try NaiveDecode().decode(reference, target: target).rgbaPixels()
            XCTAssertEqual(a.count, b.count, name)
            let difference = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            XCTAssertLessThanOrEqual(Double(difference) / Double(max(1, a.count)), 1.0, "\(name): mean channel difference")
        }
    }

    func testJPEGsThatNeedLibvipsAreLeftToItAndStillThumbnailed() throws {
        let pattern = ImageComposer.pattern(width: 400, height: 300)
        let cmyk = try ImageComposer.encode(pixels: pattern, width: 400, height: 300, bands: 3,
                                            as: CompositionEncoding(format: .jpeg, quality: 95, cmyk: true))
        let displayP3 = try ImageComposer.encode(pixels: pattern, width: 400, height: 300, bands: 3,
                                                 as: CompositionEncoding(format: .jpeg, quality: 95, iccProfile: "p3"))
        for (name, data) in [("CMYK", cmyk), ("Display P3 profile", displayP3)] {
            let source = try ImageSource(data: data)
            XCTAssertNil(direct(source), "\(name): the direct path has no colour management")
            let thumbnail = try ThumbnailEncoder(format: .jpeg, quality: 90).encode(source, target: target)
            XCTAssertEqual(thumbnail.size, PixelSize(width: 120, height: 90), name)
            XCTAssertFalse(try ImageSource(data: thumbnail.data).header.hasICCProfile, name)
        }
    }

    func testTruncatedJPEGIsLeftToLibvipsAndFailsAsCorrupt() throws {
        let whole = try TestImages.jpeg(width: 640, height: 480)
        let source = try ImageSource(data: Data(whole.prefix(whole.count * 6 / 10)))
        XCTAssertNil(direct(source), "libjpeg's end-of-data warning hands it back")
        XCTAssertThrowsError(try ThumbnailEncoder().encode(source, target: target)) { error in
            guard case .corrupt(.jpeg, 640, 480, _)? = error as? DownsampleError else { return XCTFail("\(error)") }
        }
    }
}
