@testable import Downsample
import CWarmVips
import Foundation
import XCTest

/// The quality reference (`referenceImage`) is a Lanczos3 of the naive bitmap
/// with alpha premultiplied around it. Its faster way (the colour bands alone
/// when every alpha is 255, the float image copied into memory first) must
/// give that resample's pixels exactly: every SSIM and PSNR in the report is
/// measured against it.
final class ReferenceResampleTests: XCTestCase {
    /// The bytes of `resample(hscale, vscale)` of the naive bitmap, cropped to `size` as
    /// `referenceImage` crops libvips' rounding (a pixel too many).
    private func resampledPixels(_ full: VipsImageHandle, size: PixelSize,
                                 _ resample: (Double, Double) throws -> VipsImageHandle) throws -> [UInt8] {
        let resized = try resample(Double(size.width) / Double(full.width), Double(size.height) / Double(full.height))
        let exact = resized.width == size.width && resized.height == size.height
            ? resized : try resized.cropped(left: 0, top: 0, width: size.width, height: size.height)
        return try XCTUnwrap(exact.materialized().pixelBytes)
    }

    private func assertSamePixels(_ data: Data, size: PixelSize, _ label: String) throws {
        let source = try ImageSource(data: data)
        let full = try NaiveDecode.fullBitmap(source)
        // The reference made the plain way: `warm_resize`, premultiplied, streamed.
        let expected = try resampledPixels(full, size: size) { try full.resized(hscale: $0, vscale: $1, kernel: VIPS_KERNEL_LANCZOS3) }
        let reference = try referenceImage(for: source, size: size, from: DecodedImage(strategy: .naive, image: full))
        XCTAssertEqual(reference.size, size, label)
        assertEqualPixels(reference.rgbaPixels(), expected, label)

        // Streamed instead of copied into memory (what an image above the limit gets): the same pixels.
        let opaque = try full.isOpaque()
        let streamed = try resampledPixels(full, size: size) {
            try full.referenceResized(hscale: $0, vscale: $1, opaque: opaque, materializeLimit: 0)
        }
        assertEqualPixels(streamed, expected, "\(label), streamed")
    }

    /// Equal byte for byte; on failure, how many samples differ and by how much (not the arrays).
    private func assertEqualPixels(_ actual: [UInt8], _ expected: [UInt8], _ label: String,
                                   file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, expected.count, "\(label): sizes differ", file: file, line: line)
        let differences = zip(actual, expected).map { abs(Int($0) - Int($1)) }.filter { $0 > 0 }
        XCTAssertTrue(differences.isEmpty, "\(label): \(differences.count) samples differ from the premultiplied "
                      + "resample's, by up to \(differences.max() ?? 0)", file: file, line: line)
    }

    func testAnOpaqueImagesReferenceHasThePixelsOfThePremultipliedResample() throws {
        // 1600x1200 to 200x150: libvips' resize box-shrinks by an integer first, then Lanczos3 does the rest.
        let pixels = ImageComposer.pattern(width: 1600, height: 1200, seed: 7)
        let jpeg = try ImageComposer.encode(pixels: pixels, width: 1600, height: 1200, bands: 3,
                                            as: CompositionEncoding(format: .jpeg, quality: 90))
        try assertSamePixels(jpeg, size: PixelSize(width: 200, height: 150), "opaque JPEG")
        // Not a whole factor apart on either side, and the two scales differ.
        try assertSamePixels(jpeg, size: PixelSize(width: 301, height: 187), "opaque JPEG, odd size")
    }

    func testATranslucentImagesReferenceHasThePixelsOfThePremultipliedResample() throws {
        // Alpha varies over the image (the pattern's fourth band): the premultiplied way, copied into memory.
        let pixels = ImageComposer.pattern(width: 900, height: 700, seed: 3, alpha: true)
        XCTAssertTrue(stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] < 255 }, "the test image must be translucent")
        let png = try ImageComposer.encode(pixels: pixels, width: 900, height: 700, bands: 4,
                                           as: CompositionEncoding(format: .png, quality: 90))
        try assertSamePixels(png, size: PixelSize(width: 180, height: 140), "translucent PNG")
    }

    func testAnImageWithAnAlphaBandThatIsAllOpaqueTakesTheOpaqueWayWithTheSamePixels() throws {
        var pixels = ImageComposer.pattern(width: 800, height: 600, seed: 5, alpha: true)
        for i in stride(from: 3, to: pixels.count, by: 4) { pixels[i] = 255 }
        let png = try ImageComposer.encode(pixels: pixels, width: 800, height: 600, bands: 4,
                                           as: CompositionEncoding(format: .png, quality: 90))
        let source = try ImageSource(data: png)
        XCTAssertTrue(source.header.hasAlpha)
        XCTAssertTrue(try NaiveDecode.fullBitmap(source).isOpaque())
        try assertSamePixels(png, size: PixelSize(width: 160, height: 120), "RGBA PNG with alpha 255 everywhere")
    }
}
