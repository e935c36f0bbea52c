@testable import Downsample
@testable import WarmMetrics
import XCTest

final class ImageSimilarityTests: XCTestCase {
    let width = 300, height = 225

    func rgba(_ rgb: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: rgb.count / 3 * 4)
        for p in 0..<(rgb.count / 3) {
            out[p * 4] = rgb[p * 3]; out[p * 4 + 1] = rgb[p * 3 + 1]; out[p * 4 + 2] = rgb[p * 3 + 2]
        }
        return out
    }

    func noise(seed: UInt64) -> [UInt8] {
        var state = seed | 1
        return (0..<(width * height * 4)).map { index in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: state)
        }
    }

    func testSSIMOfIdenticalImagesIsOneAndOfNoiseIsLow() {
        let image = rgba(ImageComposer.pattern(width: width, height: height))
        XCTAssertEqual(ImageSimilarity.ssim(image, image, width: width, height: height), 1, accuracy: 1e-12)
        XCTAssertEqual(ImageSimilarity.psnr(image, image, width: width, height: height), ImageSimilarity.psnrCapDecibels)

        let random = noise(seed: 99)
        let ssim = ImageSimilarity.ssim(image, random, width: width, height: height)
        XCTAssertLessThan(ssim, 0.1)
        XCTAssertGreaterThan(ssim, -1)
        XCTAssertLessThan(ImageSimilarity.psnr(image, random, width: width, height: height), 12)
    }

    func testMoreDistortionGivesLowerScores() {
        let image = rgba(ImageComposer.pattern(width: width, height: height))
        func distorted(by amount: Int) -> [UInt8] {
            let random = noise(seed: 5)
            return image.indices.map { i in
                i % 4 == 3 ? 255 : UInt8(clamping: Int(image[i]) + (Int(random[i]) - 128) * amount / 128)
            }
        }
        let slight = distorted(by: 4), heavy = distorted(by: 40)
        let ssimSlight = ImageSimilarity.ssim(image, slight, width: width, height: height)
        let ssimHeavy = ImageSimilarity.ssim(image, heavy, width: width, height: height)
        XCTAssertLessThan(ssimSlight, 1)
        XCTAssertGreaterThan(ssimSlight, ssimHeavy)
        XCTAssertGreaterThan(ImageSimilarity.psnr(image, slight, width: width, height: height),
                             ImageSimilarity.psnr(image, heavy, width: width, height: height))
        // SSIM is symmetric.
        XCTAssertEqual(ssimHeavy, ImageSimilarity.ssim(heavy, image, width: width, height: height), accuracy: 1e-12)
    }

    func testFullyTransparentPixelsCompareAsWhiteWhateverTheirColour() {
        var a = [UInt8](repeating: 0, count: 16 * 16 * 4), b = a
        for p in 0..<(16 * 16) { a[p * 4] = 200; b[p * 4 + 2] = 17 }  // alpha stays 0
        XCTAssertEqual(ImageSimilarity.ssim(a, b, width: 16, height: 16), 1, accuracy: 1e-12)
        XCTAssertEqual(ImageSimilarity.psnr(a, b, width: 16, height: 16), ImageSimilarity.psnrCapDecibels)
    }

    func testImagesSmallerThanTheWindowAreStillScored() {
        let a = rgba(ImageComposer.pattern(width: 5, height: 3)), b = rgba(ImageComposer.pattern(width: 5, height: 3, seed: 7))
        XCTAssertEqual(ImageSimilarity.ssim(a, a, width: 5, height: 3), 1, accuracy: 1e-12)
        XCTAssertLessThan(ImageSimilarity.ssim(a, b, width: 5, height: 3), 1)
    }
}
