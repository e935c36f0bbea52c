@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import XCTest

/// AVIF thumbnails come from libheif's AV1 encoder directly (`warm_avif_encode`), driven as libvips 8.14's heifsave
/// drove it, so that leaving the saver changed the CPU and not the files.
final class AVIFEncodeTests: XCTestCase {
    private func bitmap(bands: Int) throws -> VipsImageHandle {
        try VipsImageHandle.fromPixels(ImageComposer.pattern(width: 300, height: 200, alpha: bands == 4),
                                       width: 300, height: 200, bands: bands)
    }

    private func saver(_ settings: EncoderSettings) -> String {
        ".heif[Q=\(settings.avifQuality),effort=\(settings.avifEffort),subsample_mode=auto,compression=av1,bitdepth=8,strip]"
    }

    /// At effort 0 (aom's speed 9, the default) aom's thread count does not change the bitstream, so the file is
    /// the saver's byte for byte, 4:2:0 and 4:4:4 (Q >= 90) alike. From effort 1 aom's multi-threaded encode makes
    /// other choices than one thread does: a file within 1% of the saver's, not the same (bench/findings.md, 24).
    func testAtTheDefaultEffortAVIFIsTheFileLibvipsHeifsaveWroteFromTheSameBitmap() throws {
        let image = try bitmap(bands: 3)
        for settings in [EncoderSettings.default, EncoderSettings(avifQuality: 92)] {
            let direct = try OutputFormat.avif.encode(image, quality: 82, settings: settings)
            let saved = try image.encoded(suffix: saver(settings))
            XCTAssertEqual(direct, saved, "Q \(settings.avifQuality) effort \(settings.avifEffort): \(direct.count) against \(saved.count) bytes")
        }
    }

    func testQualityAndEffortReachTheEncoder() throws {
        let image = try bitmap(bands: 3)
        func bytes(_ settings: EncoderSettings) throws -> Data { try OutputFormat.avif.encode(image, quality: 82, settings: settings) }
        let chosen = try bytes(.default)
        XCTAssertLessThan(try bytes(EncoderSettings(avifQuality: 40)).count, chosen.count)
        XCTAssertNotEqual(try bytes(EncoderSettings(avifEffort: 2)), chosen, "another aom speed, another bitstream")
    }

    func testTranslucentBitmapKeepsItsAlphaAsAnAuxiliaryImage() throws {
        let avif = try OutputFormat.avif.encode(try bitmap(bands: 4), quality: 82)
        XCTAssertEqual(ImageFormat.sniff(avif), .heif)
        XCTAssertNotNil(avif.range(of: Data("urn:mpeg:mpegB:cicp:systems:auxiliary:alpha".utf8)), "an alpha auxiliary item")
        let back = try VipsImageHandle.open(avif)
        XCTAssertEqual(back.bands, 4)
    }
}
