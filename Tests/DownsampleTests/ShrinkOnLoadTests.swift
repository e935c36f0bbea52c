import CWarmVips
import Downsample
import Foundation
import XCTest

/// The thumbnail path's own choices: how far libjpeg shrinks, that the output
/// has exactly the size `DecodeTarget` promises, and which embedded profiles
/// are skipped as sRGB already.
final class ShrinkOnLoadTests: XCTestCase {
    func testJPEGShrinkKeepsTwiceTheOutputForTheResample() {
        XCTAssertEqual(ShrinkOnLoad.minimumRatio, 2, "the default (WARM_JPEG_SHRINK_RATIO unset)")
        let fitted = { (w: Int, h: Int) in ShrinkOnLoad.jpegFactor(stored: PixelSize(width: w, height: h),
                                                                    output: PixelSize(width: 300, height: 225)) }
        XCTAssertEqual(fitted(4800, 3600), 8, "600x450 is twice 300x225")
        XCTAssertEqual(fitted(4032, 3024), 4, "1/8 would be 504x378, under twice the output; 1/4 is 1008x756")
        XCTAssertEqual(fitted(2397, 1797), 4, "libjpeg rounds 1/4 up to 600x450: enough")
        XCTAssertEqual(fitted(2396, 1796), 2, "1/4 would be 599x449: too small")
        XCTAssertEqual(fitted(1280, 960), 2)
        XCTAssertEqual(fitted(599, 449), 1)
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
            XCTAssertEqual(try ThumbnailAtDecode().decode(source, target: target).size, expected, "orientation \(orientation)")
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
