import CWarmVips
@testable import Downsample
import Foundation
import XCTest

/// The thumbnail path's own choices: how far libjpeg shrinks, that the output
/// has exactly the size `DecodeTarget` promises, and which embedded profiles
/// are skipped as sRGB already.
final class ShrinkOnLoadTests: XCTestCase {
    func testJPEGShrinkKeepsOneAndAHalfTimesTheOutputForTheResample() {
        XCTAssertEqual(ShrinkOnLoad.minimumRatio, 1.5)
        let fitted = { (w: Int, h: Int) in ShrinkOnLoad.jpegFactor(stored: PixelSize(width: w, height: h),
                                                                    output: PixelSize(width: 300, height: 225)) }
        XCTAssertEqual(fitted(4032, 3024), 8, "1/8 is 504x378, at least 450x337.5")
        XCTAssertEqual(fitted(3593, 2697), 8, "libjpeg rounds 1/8 up to 450x338: enough")
        XCTAssertEqual(fitted(3592, 2696), 4, "1/8 would be 449x337: too small")
        XCTAssertEqual(fitted(1280, 960), 2, "1/2 is 640x480; 1/4 would be 320x240")
        XCTAssertEqual(fitted(900, 675), 2, "450x338")
        XCTAssertEqual(fitted(899, 674), 1, "1/2 would be 450x337: too small")
        XCTAssertEqual(fitted(599, 449), 1)
    }

    func testPNGForAJPEGOutputIsFlattenedOntoWhiteBeforeTheResampleInEveryOrientation() throws {
        // Left: red under alpha 0 (invisible); right: opaque blue. The edge
        // (x = 98) falls inside a 4x shrink's box, so an unpremultiplied
        // resample would mix the red in (red - green up to 64 there).
        // Resampling unpremultiplied colour would bleed the hidden red into
        // the edge; flattening first (or premultiplying) leaves no red anywhere.
        let width = 200, height = 100
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i..<i + 4] = x < 98 ? [255, 0, 0, 0] : [0, 0, 255, 255]
            }
        }
        let target = DecodeTarget(longestSide: 50)
        for orientation in [1, 6] {
            let data = try ImageComposer.encode(pixels: pixels, width: width, height: height, bands: 4,
                                                as: CompositionEncoding(format: .png, orientationTag: orientation))
            let source = try ImageSource(data: data)
            let thumbnail = try ThumbnailEncoder(format: .jpeg, settings: EncoderSettings(jpegQuality: 95)).encode(source, target: target)
            XCTAssertEqual(thumbnail.size, target.outputSize(for: source.header), "orientation \(orientation)")
            let back = try ImageSource(data: thumbnail.data)
            XCTAssertFalse(back.header.hasAlpha)
            let decoded = try NaiveDecode().decode(back, target: DecodeTarget(longestSide: 50))
            let rgba = decoded.rgbaPixels()
            var reddest = 0, whiteSeen = false, blueSeen = false
            for y in 0..<decoded.height {
                for x in 0..<decoded.width {
                    let p = TestImages.pixel(decoded, rgba, x: x, y: y)
                    reddest = max(reddest, p[0] - p[1])
                    if p[0] > 240 && p[1] > 240 && p[2] > 240 { whiteSeen = true }
                    if p[0] < 20 && p[1] < 20 && p[2] > 230 { blueSeen = true }
                }
            }
            XCTAssertTrue(whiteSeen && blueSeen, "orientation \(orientation): the transparent half is white, the other blue")
            XCTAssertLessThan(reddest, 16, "orientation \(orientation): red hidden under alpha 0 showed through")
        }
    }

    func testJPEGThumbnailHasExactlyTheTargetSizeInEveryOrientation() throws {
        let pattern = ImageComposer.pattern(width: 1001, height: 757)
        let target = DecodeTarget(longestSide: 120)
        for orientation in 1...8 {
            let data = try ImageComposer.encode(pixels: pattern, width: 1001, height: 757, bands: 3,
                                                as: CompositionEncoding(format: .jpeg, orientationTag: orientation))
            let source = try ImageSource(data: data)
            let expected = target.outputSize(for: source.header)
            XCTAssertEqual(try ThumbnailEncoder().encode(source, target: target).size, expected, "orientation \(orientation)")
            XCTAssertEqual(try ThumbnailAtDecode.libvipsPath.decode(source, target: target).size, expected, "orientation \(orientation)")
        }
    }

    func testSeveralTargetsComeBackInOrderFromOneCall() throws {
        let source = try ImageSource(data: try TestImages.jpeg(width: 800, height: 600))
        let images = try ThumbnailEncoder().encode(source, targets: [DecodeTarget(longestSide: 100), DecodeTarget(longestSide: 400)])
        XCTAssertEqual(images.map(\.size), [PixelSize(width: 100, height: 75), PixelSize(width: 400, height: 300)])
    }

    func testOnlyRGBProfilesDescribedAsSRGBAreTakenForSRGB() {
        XCTAssertEqual(isSRGB(Self.profile(colourSpace: "RGB ", v2Description: "sRGB IEC61966-2.1")), 1)
        XCTAssertEqual(isSRGB(Self.profile(colourSpace: "RGB ", v4Description: "sRGB built-in")), 1)
        XCTAssertEqual(isSRGB(Self.profile(colourSpace: "RGB ", v4Description: "Display P3")), 0)
        XCTAssertEqual(isSRGB(Self.profile(colourSpace: "RGB ", v2Description: "Adobe RGB (1998)")), 0)
        XCTAssertEqual(isSRGB(Self.profile(colourSpace: "GRAY", v2Description: "sRGB grey")), 0, "not an RGB profile")
        XCTAssertEqual(isSRGB(Array(Self.profile(colourSpace: "RGB ", v2Description: "sRGB").prefix(140))), 0, "truncated")
        XCTAssertEqual(isSRGB([]), 0)
    }

    private func isSRGB(_ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { warm_icc_profile_is_srgb($0.baseAddress, $0.count) }
    }

    /// A minimal ICC profile: the 128-byte header, a tag table with one
    /// 'desc' entry, and the description as ICC v2 text or a v4 'mluc'.
    static func profile(colourSpace: String, v2Description: String? = nil, v4Description: String? = nil) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var tag: [UInt8]
        if let text = v2Description {
            tag = Array("desc".utf8) + [0, 0, 0, 0] + be32(text.utf8.count + 1) + Array(text.utf8) + [0]
        } else {
            let utf16 = (v4Description ?? "").utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            tag = Array("mluc".utf8) + [0, 0, 0, 0] + be32(1) + be32(12) + Array("enUS".utf8) + be32(utf16.count) + be32(28) + utf16
        }
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(16..<20, with: Array(colourSpace.utf8))
        let table = be32(1) + Array("desc".utf8) + be32(128 + 4 + 12) + be32(tag.count)
        return header + table + tag
    }
}
