@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import WarmTestSupport
import XCTest

/// One decode per size, every format from it: `ThumbnailEncoder(formats:)`.
final class MultiFormatTests: XCTestCase {
    /// A 4032x3024 phone photo stored sideways (EXIF orientation 6) with EXIF.
    private func rotatedPhoneJPEG() throws -> Data {
        try TestImages.large(PixelSize(width: 3024, height: 4032), as: CompositionEncoding(format: .jpeg, orientationTag: 6))
    }

    func testEverySizeComesInEveryFormatUprightWithoutMetadata() throws {
        let source = try ImageSource(data: try rotatedPhoneJPEG())
        let encoder = ThumbnailEncoder(formats: [.jpeg, .webp, .avif], settings: EncoderSettings(jpegQuality: 82))
        let images = try encoder.encode(source, targets: [DecodeTarget(longestSide: 150), DecodeTarget(longestSide: 300)])
        XCTAssertEqual(images.map(\.format), [.jpeg, .webp, .avif, .jpeg, .webp, .avif])
        let expected = [PixelSize(width: 113, height: 150), PixelSize(width: 225, height: 300)]
        for (index, image) in images.enumerated() {
            let label = "\(image.format) \(index)"
            XCTAssertEqual(image.size, expected[index / 3], label)
            let back = try ImageSource(data: image.data)
            XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), image.size, "\(label): upright")
            XCTAssertFalse(back.header.hasExif, label)
            XCTAssertEqual(back.header.exifOrientation, 0, label)
            XCTAssertEqual(ExifCounts.entries(in: image.data), 0, label)
            XCTAssertNotNil(image.encodeCPUSeconds, label)
        }
        XCTAssertEqual(images.map { ImageFormat.sniff($0.data) }, [.jpeg, .webp, .heif, .jpeg, .webp, .heif])
    }

    func testAVIFOutputIsAV1InHEIF() throws {
        let source = try ImageSource(data: try TestImages.jpeg(width: 640, height: 480))
        let avif = try ThumbnailEncoder(format: .avif).encode(source, target: DecodeTarget(longestSide: 300))
        XCTAssertEqual(ImageFormat.sniff(avif.data), .heif)
        XCTAssertEqual(String(decoding: avif.data[8..<12], as: UTF8.self), "avif", "the ftyp major brand of AV1 in HEIF")
        XCTAssertNotNil(avif.data.range(of: Data("av01".utf8)), "an av01 item (HEVC would be hvc1)")
        XCTAssertNil(avif.data.range(of: Data("hvc1".utf8)))
        XCTAssertEqual(avif.size, PixelSize(width: 300, height: 225))
    }

    func testAVIFKeepsAlphaOnlyWhenTheImageHasTransparency() throws {
        let transparent = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 64, height: 64, alpha: true),
                                                   width: 64, height: 64, bands: 4, as: CompositionEncoding(format: .png))
        let target = DecodeTarget(longestSide: 64)
        let kept = try ThumbnailEncoder(formats: [.jpeg, .avif]).encode(try ImageSource(data: transparent), targets: [target])
        XCTAssertFalse(try ImageSource(data: kept[0].data).header.hasAlpha, "JPEG flattens")
        XCTAssertTrue(try ImageSource(data: kept[1].data).header.hasAlpha, "AVIF keeps it")
        let opaque = try ThumbnailEncoder(format: .avif).encode(try ImageSource(data: try TestImages.jpeg(width: 64, height: 64)),
                                                                target: target)
        XCTAssertFalse(try ImageSource(data: opaque.data).header.hasAlpha)
    }

    func testPlaceholderComesFromTheFirstSizeAndKeepsTheAspectRatio() throws {
        let source = try ImageSource(data: try rotatedPhoneJPEG())
        for formats in [[OutputFormat.jpeg], [.jpeg, .webp, .avif]] {
            let made = try ThumbnailEncoder(formats: formats).thumbnails(
                source, targets: [DecodeTarget(longestSide: 150), DecodeTarget(longestSide: 300)], placeholder: true)
            let placeholder = try XCTUnwrap(made.placeholder, "\(formats)")
            XCTAssertLessThanOrEqual(placeholder.thumbHash.count, ThumbHash.maxByteCount)
            XCTAssertEqual(try ThumbHash.approximateAspectRatio(placeholder.thumbHash), 0.75, accuracy: 0.75 * 0.08,
                           "\(formats): upright 3:4")
            XCTAssertNotNil(placeholder.averageColor.wholeMatch(of: /#[0-9a-f]{6}/), placeholder.averageColor)
        }
        XCTAssertNil(try ThumbnailEncoder().thumbnails(source, targets: [DecodeTarget(longestSide: 150)], placeholder: false).placeholder)
    }

    func testFormatListsParseCommasRepeatsAndJpg() {
        XCTAssertEqual(OutputFormat.list("jpeg,webp,avif"), [.jpeg, .webp, .avif])
        XCTAssertEqual(OutputFormat.list(" AVIF , jpg,jpeg"), [.avif, .jpeg])
        XCTAssertNil(OutputFormat.list("jpeg,gif"))
        XCTAssertNil(OutputFormat.list(""))
        XCTAssertNil(OutputFormat.list("jpeg,"))
        XCTAssertEqual(ThumbnailEncoder(formats: [.webp, .webp, .jpeg]).formats, [.webp, .jpeg])
    }
}
