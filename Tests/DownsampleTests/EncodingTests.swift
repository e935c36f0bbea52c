import Downsample
import Foundation
import XCTest

final class EncodingTests: XCTestCase {
    func testThumbnailOfRotatedPhoneJPEGIsUprightAndCarriesNoEXIF() throws {
        // Stored 4032x3024 as the sensor saw it, tagged 6: a portrait photo.
        let data = try TestImages.large(PixelSize(width: 3024, height: 4032),
                                        as: CompositionEncoding(format: .jpeg, orientationTag: 6))
        XCTAssertGreaterThan(ExifReader.entryCount(in: data), 0, "the source has EXIF, so the check below can fail")
        let source = try ImageSource(data: data)
        XCTAssertEqual(source.header.width, 4032, "stored sideways")
        XCTAssertTrue(source.header.hasExif)
        XCTAssertEqual(source.header.orientation, 6)
        let thumbnail = try ThumbnailAtDecode().decode(source, target: DecodeTarget(longestSide: 300))
        XCTAssertEqual(thumbnail.size, PixelSize(width: 225, height: 300))
        for format in OutputFormat.allCases {
            let encoded = try thumbnail.encoded(as: format, quality: 80)
            XCTAssertEqual(ExifReader.entryCount(in: encoded), 0, "\(format)")
            let back = try ImageSource(data: encoded)
            XCTAssertFalse(back.header.hasExif, "\(format)")
            XCTAssertEqual(back.header.exifOrientation, 0, "\(format)")
            XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), PixelSize(width: 225, height: 300))
        }
    }

    func testJPEGOutputFlattensAlphaAndWebPKeepsIt() throws {
        let pixels = ImageComposer.pattern(width: 64, height: 64, alpha: true)
        let data = try ImageComposer.encode(pixels: pixels, width: 64, height: 64, bands: 4, as: CompositionEncoding(format: .png))
        let image = try ThumbnailAtDecode().decode(try ImageSource(data: data), target: DecodeTarget(longestSide: 64))
        XCTAssertFalse(try ImageSource(data: try image.encoded(as: .jpeg)).header.hasAlpha)
        XCTAssertTrue(try ImageSource(data: try image.encoded(as: .webp)).header.hasAlpha)
        XCTAssertTrue(try ImageSource(data: try image.encoded(as: .png)).header.hasAlpha)
    }

    func testOpaqueImageIsWrittenWithoutAnAlphaBand() throws {
        let image = try ThumbnailAtDecode().decode(try ImageSource(data: try TestImages.jpeg(width: 64, height: 48)),
                                                   target: DecodeTarget(longestSide: 64))
        XCTAssertFalse(try ImageSource(data: try image.encoded(as: .png)).header.hasAlpha)
    }
}
