@testable import Downsample
import Foundation
import ImageSamples
import XCTest

/// WebP thumbnails come from libwebp's encoder directly (`warm_webp_encode`), from the bitmap the direct path hands
/// over or from libvips' decode: a bare bitstream with no metadata chunk, alpha only where the source has it, and
/// `webpQuality` as libwebp's quality.
final class WebPEncodeTests: XCTestCase {
    private let target = DecodeTarget(longestSide: 200)

    func testWebPOfAPhonePhotoWithGPSIsABareVP8BitstreamAtTheJPEGsSize() throws {
        let source = try ImageSource(data: try HostileImages.phoneJPEGWithGPS())
        XCTAssertGreaterThan(ExifCounts.gpsEntries(in: source.data), 0, "the source carries GPS, so the check can fail")
        let made = try ThumbnailEncoder(formats: [.jpeg, .webp]).encode(source, targets: [target])
        let webp = made[1].data
        // libvips' saver wrote VP8X and EXIF chunks here (the EXIF one even with `strip`).
        XCTAssertEqual(HostileImages.riffChunks(webp).map(\.fourCC), ["VP8 "], "the simple format: one VP8 chunk, nothing else")
        XCTAssertEqual(ExifCounts.entries(in: webp), 0)
        let back = try ImageSource(data: webp)
        XCTAssertEqual(PixelSize(width: back.header.width, height: back.header.height), PixelSize(width: 150, height: 200),
                       "upright, as the JPEG beside it")
        XCTAssertEqual(made[1].size, made[0].size)
    }

    func testTranslucentSourceKeepsItsAlphaInAnALPHChunkAndNothingElse() throws {
        let pixels = ImageComposer.pattern(width: 320, height: 240, alpha: true)
        let png = try ImageComposer.encode(pixels: pixels, width: 320, height: 240, bands: 4,
                                           as: CompositionEncoding(format: .png))
        let webp = try ThumbnailEncoder(format: .webp).encode(try ImageSource(data: png), target: target).data
        let chunks = HostileImages.riffChunks(webp)
        XCTAssertEqual(chunks.map(\.fourCC), ["VP8X", "ALPH", "VP8 "])
        XCTAssertEqual(chunks.first?.bytes[8], 0x10, "VP8X flags: alpha, and no EXIF, XMP or ICC flag")
        XCTAssertTrue(try ImageSource(data: webp).header.hasAlpha)
    }

    func testWebPQualityIsLibwebpsQuality() throws {
        let source = try ImageSource(data: try HostileImages.phoneJPEGWithGPS())
        func bytes(_ quality: Int) throws -> Data {
            try ThumbnailEncoder(format: .webp, settings: EncoderSettings(webpQuality: quality)).encode(source, target: target).data
        }
        let (low, chosen, next) = (try bytes(50), try bytes(EncoderSettings.defaultWebPQuality),
                                   try bytes(EncoderSettings.defaultWebPQuality + 1))
        XCTAssertLessThan(low.count, chosen.count)
        XCTAssertNotEqual(chosen, next, "one step of quality changes the bitstream")
        XCTAssertEqual(chosen, try bytes(EncoderSettings.defaultWebPQuality), "the same settings give the same bytes")
    }

    func testWebPEffortIsLibwebpsMethod() throws {
        let source = try ImageSource(data: try HostileImages.phoneJPEGWithGPS())
        func webp(_ effort: Int) throws -> Data {
            try ThumbnailEncoder(format: .webp, settings: EncoderSettings(webpEffort: effort)).encode(source, target: target).data
        }
        let chosen = try webp(EncoderSettings.defaultWebPEffort)
        XCTAssertEqual(chosen, try ThumbnailEncoder(format: .webp).encode(source, target: target).data, "the default")
        let fast = try webp(2)
        XCTAssertNotEqual(fast, chosen, "method 2 decides modes by distortion alone: another bitstream")
        XCTAssertEqual(HostileImages.riffChunks(fast).map(\.fourCC), ["VP8 "])
    }
}
