@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import XCTest

final class EncodingTests: XCTestCase {
    func testThumbnailOfRotatedPhoneJPEGIsUprightAndCarriesNoEXIF() throws {
        // Stored 4032x3024 as the sensor saw it, tagged 6: a portrait photo.
        let data = try TestImages.large(PixelSize(width: 3024, height: 4032),
                                        as: CompositionEncoding(format: .jpeg, orientationTag: 6))
        XCTAssertGreaterThan(ExifCounts.entries(in: data), 0, "the source has EXIF, so the check below can fail")
        let source = try ImageSource(data: data)
        XCTAssertEqual(source.header.width, 4032, "stored sideways")
        XCTAssertTrue(source.header.hasExif)
        XCTAssertEqual(source.header.orientation, 6)
        let thumbnail = try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 300))
        XCTAssertEqual(thumbnail.size, PixelSize(width: 225, height: 300))
        for format in OutputFormat.allCases {
            let encoded = try thumbnail.encoded(as: format, quality: 80)
            XCTAssertEqual(ExifCounts.entries(in: encoded), 0, "\(format)")
            let back = try ImageSource(data: encoded)
            XCTAssertFalse(back.header.hasExif, "\(format)")
            XCTAssertEqual(back.header.exifOrientation, 0, "\(format)")
            XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), PixelSize(width: 225, height: 300))
        }
    }

    func testJPEGOutputFlattensAlphaAndWebPKeepsIt() throws {
        let pixels = ImageComposer.pattern(width: 64, height: 64, alpha: true)
        let data = try ImageComposer.encode(pixels: pixels, width: 64, height: 64, bands: 4, as: CompositionEncoding(format: .png))
        let image = try ThumbnailAtDecode.libvipsPath.decode(try ImageSource(data: data), target: DecodeTarget(longestSide: 64))
        XCTAssertFalse(try ImageSource(data: try image.encoded(as: .jpeg)).header.hasAlpha)
        XCTAssertTrue(try ImageSource(data: try image.encoded(as: .webp)).header.hasAlpha)
        XCTAssertTrue(try ImageSource(data: try image.encoded(as: .png)).header.hasAlpha)
    }

    func testOpaqueImageIsWrittenWithoutAnAlphaBand() throws {
        let image = try ThumbnailAtDecode.libvipsPath.decode(try ImageSource(data: try TestImages.jpeg(width: 64, height: 48)),
                                                   target: DecodeTarget(longestSide: 64))
        XCTAssertFalse(try ImageSource(data: try image.encoded(as: .png)).header.hasAlpha)
    }

    /// The cache writer's streamed path must store what decoding to RGBA and
    /// encoding would: same size, same alpha decision, no metadata, same pixels.
    func testThumbnailEncoderMatchesDecodeThenEncodeForOddSources() throws {
        let pattern = ImageComposer.pattern(width: 160, height: 120)
        let sources: [(String, Data)] = [
            ("orientation 6 JPEG", try ImageComposer.encode(pixels: pattern, width: 160, height: 120, bands: 3,
                                                            as: CompositionEncoding(format: .jpeg, quality: 95, orientationTag: 6))),
            ("orientation 3 WebP", try ImageComposer.encode(pixels: pattern, width: 160, height: 120, bands: 3,
                                                            as: CompositionEncoding(format: .webp, quality: 95, orientationTag: 3))),
            ("CMYK JPEG", try ImageComposer.encode(pixels: pattern, width: 160, height: 120, bands: 3,
                                                   as: OddEncoding(format: .jpeg, quality: 95, cmyk: true))),
            ("16-bit PNG", try ImageComposer.encode(pixels: pattern, width: 160, height: 120, bands: 3,
                                                    as: OddEncoding(format: .png, sixteenBit: true))),
            ("ICC JPEG", try ImageComposer.encode(pixels: pattern, width: 160, height: 120, bands: 3,
                                                  as: OddEncoding(format: .jpeg, quality: 95, iccProfile: "srgb"))),
            ("alpha PNG", try ImageComposer.encode(pixels: ImageComposer.pattern(width: 64, height: 64, alpha: true),
                                                   width: 64, height: 64, bands: 4, as: CompositionEncoding(format: .png))),
            ("opaque-alpha PNG", try ImageComposer.encode(pixels: opaqueRGBA(width: 64, height: 48), width: 64, height: 48,
                                                          bands: 4, as: CompositionEncoding(format: .png))),
            ("greyscale PNG", try ImageComposer.encode(pixels: [UInt8](repeating: 90, count: 50 * 40), width: 50, height: 40,
                                                       bands: 1, as: CompositionEncoding(format: .png))),
        ]
        let target = DecodeTarget(longestSide: 48)
        for (name, data) in sources {
            let source = try ImageSource(data: data)
            let decoded = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
            for format in OutputFormat.allCases {
                let streamed = try ThumbnailEncoder(format: format, settings: EncoderSettings(jpegQuality: 90)).encode(source, target: target)
                let reference = try decoded.encoded(as: format, quality: 90)
                let label = "\(name) as \(format)"
                XCTAssertEqual(streamed.size, decoded.size, label)
                XCTAssertEqual(ExifCounts.entries(in: streamed.data), 0, label)
                let back = try ImageSource(data: streamed.data), referenceBack = try ImageSource(data: reference)
                XCTAssertEqual(back.header.hasAlpha, referenceBack.header.hasAlpha, label)
                XCTAssertFalse(back.header.hasICCProfile, label)
                XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), decoded.size, label)
                let a = try NaiveDecode().decode(back, target: target).rgbaPixels()
                let b = try NaiveDecode().decode(referenceBack, target: target).rgbaPixels()
                XCTAssertEqual(a.count, b.count, label)
                let difference = zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                // A PNG with alpha bound for JPEG is flattened before its resample
                // (`shrunkWithoutAlpha`), the reference after a premultiplied one:
                // the same pixels within one level (8-bit rounding at full size;
                // `vips subtract` of the two on a corpus screenshot: mean 0.78,
                // max 1), which JPEG's quantisation spreads a little further.
                let tolerance = name == "alpha PNG" && format == .jpeg ? 2.0 : 1.0
                XCTAssertLessThanOrEqual(Double(difference) / Double(max(1, a.count)), tolerance, "\(label): mean channel difference")
            }
        }
    }

    private func opaqueRGBA(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = UInt8(i / 4 % width * 4) }
        return pixels
    }
}
