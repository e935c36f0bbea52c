@testable import Downsample
import Foundation
import XCTest

final class FormatSniffingTests: XCTestCase {
    func testFormatIsSniffedFromTheBytesOfEveryEncoding() throws {
        let pixels = ImageComposer.pattern(width: 32, height: 24)
        for format in [ImageFormat.jpeg, .png, .webp, .gif, .tiff] {
            let data = try ImageComposer.encode(pixels: pixels, width: 32, height: 24, bands: 3,
                                                as: CompositionEncoding(format: format))
            XCTAssertEqual(ImageFormat.sniff(data), format, "\(format)")
            XCTAssertEqual(try ImageSource(data: data).format, format, "\(format)")
        }
    }

    func testHEIFAndAVIFBrandsAreRecognised() {
        for brand in ["heic", "mif1", "avif"] {
            let box: [UInt8] = [0, 0, 0, 24] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0]
            XCTAssertEqual(ImageFormat.sniff(box), .heif, brand)
        }
        XCTAssertNil(ImageFormat.sniff([0, 0, 0, 24] + Array("ftypisom".utf8)), "an MP4 is not an image")
    }

    func testHTMLErrorPageIsNotAnImageAndSaysSo() {
        let html = Data("  <!DOCTYPE html><html><body>502 Bad Gateway</body></html>".utf8)
        XCTAssertThrowsError(try ImageSource(data: html)) { error in
            XCTAssertEqual(error as? DownsampleError, .notAnImage(looksLike: "an HTML page"))
            XCTAssertTrue("\(error)".contains("HTML"), "\(error)")
        }
        let json = Data(#"{"error":"not found"}"#.utf8)
        XCTAssertThrowsError(try ImageSource(data: json)) { error in
            XCTAssertEqual(error as? DownsampleError, .notAnImage(looksLike: "JSON text"))
        }
    }

    func testEmptyDataIsRefused() {
        XCTAssertThrowsError(try ImageSource(data: Data())) { error in
            XCTAssertEqual(error as? DownsampleError, .empty)
        }
    }
}
