@testable import Downsample
import Foundation
import ImageSamples
import XCTest

/// JPEG, PNG or WebP to JPEG outside libvips' pipeline (`directThumbnail`:
/// libjpeg or libpng and a streamed Lanczos3 resample by hand, libwebp's own
/// scaling): taken for plain files,
/// upright in all eight orientations, the libvips path's pixels; left to
/// libvips for what it would get wrong (a foreign profile, CMYK, 16 bits,
/// interlacing, animation) or must refuse (corrupt data).
final class DirectThumbnailTests: XCTestCase {
    private let target = DecodeTarget(longestSide: 120)

    private func direct(_ source: ImageSource, quality: Int = 95) -> EncodedImage? {
        source.data.withUnsafeBytes {
            source.directThumbnail(memory: $0, target: target, quality: quality, jpeg: true, keepBitmap: false)?.jpeg
        }
    }

    func testPlainJPEGsPNGsAndWebPsComeOutUprightInAllEightOrientations() throws {
        // 480x320 bound for 120x80: a JPEG is decoded at 1/2, the resample does the rest.
        let width = 480, height = 320
        let upright = TestImages.quadrants(width: width, height: height)
        // libvips 8.14 reads no orientation from a PNG (eXIf): PNGs are checked upright.
        for format in [ImageFormat.jpeg, .png, .webp] {
            for orientation in format == .png ? [1] : Array(1...8) {
                let label = "\(format) orientation \(orientation)"
                let stored = TestImages.stored(upright, width: width, height: height, orientation: orientation)
                let data = try ImageComposer.encode(pixels: stored.pixels, width: stored.width, height: stored.height, bands: 3,
                                                    as: CompositionEncoding(format: format, quality: 95, orientationTag: orientation))
                let source = try ImageSource(data: data)
                XCTAssertEqual(source.header.orientation, orientation, label)
                let thumbnail = try XCTUnwrap(direct(source), "\(label): the direct path refused a plain file")
                XCTAssertEqual(thumbnail.size, PixelSize(width: 120, height: 80), label)
                let back = try ImageSource(data: thumbnail.data)
                XCTAssertEqual(back.header.format, .jpeg, label)
                XCTAssertEqual(back.header.exifOrientation, 0, "\(label): no EXIF left")
                XCTAssertFalse(back.header.hasICCProfile, label)
                XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), thumbnail.size, label)
                let image = try NaiveDecode().decode(back, target: target)
                let pixels = image.rgbaPixels()
                let corners: [(x: Int, y: Int, colour: [Int], name: String)] = [
                    (30, 20, [255, 0, 0], "top-left"), (90, 20, [0, 255, 0], "top-right"),
                    (30, 60, [0, 0, 255], "bottom-left"), (90, 60, [255, 255, 255], "bottom-right"),
                ]
                for corner in corners {
                    let p = TestImages.pixel(image, pixels, x: corner.x, y: corner.y)
                    for c in 0..<3 {
                        XCTAssertEqual(p[c], corner.colour[c], accuracy: 12, "\(label) \(corner.name): \(p)")
                    }
                }
            }
        }
    }

    func testAQualityOutOfRangeEncodesAsTheNearestInRangeOnBothPaths() throws {
        let data = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 500, height: 333), width: 500, height: 333,
                                            bands: 3, as: CompositionEncoding(format: .jpeg, quality: 95))
        let source = try ImageSource(data: data)
        let decoded = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
        for (outOfRange, nearest) in [(0, 1), (-7, 1), (101, 100), (500, 100)] {
            XCTAssertEqual(direct(source, quality: outOfRange)?.data, direct(source, quality: nearest)?.data,
                           "direct path, quality \(outOfRange)")
            XCTAssertEqual(try decoded.encoded(as: .jpeg, quality: outOfRange), try decoded.encoded(as: .jpeg, quality: nearest),
                           "libvips path, quality \(outOfRange)")
        }
        XCTAssertNotEqual(direct(source, quality: 1)?.data, direct(source, quality: 100)?.data, "the quality reaches the encoder")
    }

    func testDirectPathStoresTheLibvipsPathsPixels() throws {
        let pattern = ImageComposer.pattern(width: 500, height: 333)
        let alpha = ImageComposer.pattern(width: 300, height: 200, alpha: true)
        let grey = [UInt8](unsafeUninitializedCapacity: 500 * 333) { buffer, count in
            for i in 0..<(500 * 333) { buffer[i] = UInt8(truncatingIfNeeded: (i % 500) / 2 + (i / 500) / 3) }
            count = 500 * 333
        }
        let greyAlpha = [UInt8](unsafeUninitializedCapacity: 300 * 200 * 2) { buffer, count in
            for i in 0..<(300 * 200) { buffer[2 * i] = UInt8(i % 300 / 2); buffer[2 * i + 1] = UInt8(i / 300) }
            count = 300 * 200 * 2
        }
        let sources: [(String, Data)] = [
            ("baseline JPEG", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                       as: CompositionEncoding(format: .jpeg, quality: 95))),
            ("progressive JPEG, orientation 6", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                                          as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: 6,
                                                                                                  progressive: true))),
            ("sRGB-profile JPEG", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                           as: OddEncoding(format: .jpeg, quality: 95, iccProfile: "srgb"))),
            ("greyscale JPEG", try ImageComposer.encode(pixels: grey, width: 500, height: 333, bands: 1,
                                                        as: CompositionEncoding(format: .jpeg, quality: 95))),
            // PNGs shrink by less than 4x here: from 4x, libvips' resize box-shrinks
            // first where this path resamples with the whole kernel (on a noise
            // pattern 500x333 -> 120x80 that is 1.15 levels apart).
            ("RGB PNG", try ImageComposer.encode(pixels: alpha.enumerated().filter { $0.offset % 4 != 3 }.map(\.element),
                                                 width: 300, height: 200, bands: 3, as: CompositionEncoding(format: .png))),
            ("RGBA PNG", try ImageComposer.encode(pixels: alpha, width: 300, height: 200, bands: 4,
                                                  as: CompositionEncoding(format: .png))),
            ("grey-and-alpha PNG", try ImageComposer.encode(pixels: greyAlpha, width: 300, height: 200, bands: 2,
                                                            as: CompositionEncoding(format: .png))),
            ("WebP, orientation 3", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                             as: CompositionEncoding(format: .webp, quality: 95, orientationTag: 3))),
            ("WebP with alpha", try ImageComposer.encode(pixels: alpha, width: 300, height: 200, bands: 4,
                                                         as: CompositionEncoding(format: .webp, quality: 95))),
            ("sRGB-profile WebP", try ImageComposer.encode(pixels: pattern, width: 500, height: 333, bands: 3,
                                                           as: OddEncoding(format: .webp, quality: 95, iccProfile: "srgb"))),
            ("sRGB-profile PNG", try ImageComposer.encode(pixels: alpha.enumerated().filter { $0.offset % 4 != 3 }.map(\.element),
                                                          width: 300, height: 200, bands: 3,
                                                          as: OddEncoding(format: .png, iccProfile: "srgb"))),
        ]
        for (name, data) in sources {
            let source = try ImageSource(data: data)
            let thumbnail = try XCTUnwrap(direct(source, quality: 90), "\(name): refused")
            // The libvips path: the same decode and Lanczos3 resample, flattened
            // onto white, then libvips' encoder.
            let decoded = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
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

    func testFilesThatNeedLibvipsAreLeftToItAndStillThumbnailed() throws {
        let pattern = ImageComposer.pattern(width: 400, height: 300)
        func made(_ encoding: OddEncoding) throws -> Data {
            try ImageComposer.encode(pixels: pattern, width: 400, height: 300, bands: 3, as: encoding)
        }
        let files: [(String, Data)] = [
            ("CMYK JPEG", try made(OddEncoding(format: .jpeg, quality: 95, cmyk: true))),
            ("Display P3 JPEG", try made(OddEncoding(format: .jpeg, quality: 95, iccProfile: "p3"))),
            ("Display P3 PNG", try made(OddEncoding(format: .png, iccProfile: "p3"))),
            ("16-bit PNG", try made(OddEncoding(format: .png, sixteenBit: true))),
            ("interlaced PNG", try ImageComposer.encode(pixels: pattern, width: 400, height: 300, bands: 3,
                                                        as: CompositionEncoding(format: .png, progressive: true))),
            ("Display P3 WebP", try made(OddEncoding(format: .webp, quality: 95, iccProfile: "p3"))),
        ]
        for (name, data) in files {
            let source = try ImageSource(data: data)
            XCTAssertNil(direct(source), "\(name): not the direct path's to take")
            let thumbnail = try ThumbnailEncoder(format: .jpeg, settings: EncoderSettings(jpegQuality: 90)).encode(source, target: target)
            XCTAssertEqual(thumbnail.size, PixelSize(width: 120, height: 90), name)
            XCTAssertFalse(try ImageSource(data: thumbnail.data).header.hasICCProfile, name)
        }
    }

    func testTruncatedFilesAreLeftToLibvipsAndFailAsCorrupt() throws {
        let jpeg = try TestImages.jpeg(width: 640, height: 480)
        let png = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 640, height: 480), width: 640, height: 480, bands: 3,
                                           as: CompositionEncoding(format: .png))
        // (A WebP cut short does not get this far: libvips refuses its header.)
        for (format, whole) in [(ImageFormat.jpeg, jpeg), (.png, png)] {
            let source = try ImageSource(data: Data(whole.prefix(whole.count * 6 / 10)))
            XCTAssertNil(direct(source), "\(format): the decoder's complaint hands it back")
            XCTAssertThrowsError(try ThumbnailEncoder().encode(source, target: target), "\(format)") { error in
                guard case .corrupt(format, 640, 480, _)? = error as? DownsampleError else { return XCTFail("\(format): \(error)") }
            }
        }
    }
}
