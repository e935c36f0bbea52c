@testable import Downsample
import WarmTestSupport
import XCTest

/// Issue 26's acceptance test on 20 real photos (Fixtures/photos.json: crops of Debian's
/// mate-backgrounds at product-photo shapes, thumbnailed by vipsthumbnail to fit 64x64).
final class ThumbHashPhotoTests: XCTestCase {
    func testRealPhotoHashesEqualTheReference() throws {
        let photos = try ReferenceFixtures.photos()
        XCTAssertEqual(photos.count, 20)
        for photo in photos {
            let rgba = try ReferenceFixtures.bytes(photo.rgba)
            let hash = try ThumbHash.encode(width: photo.width, height: photo.height, rgba: rgba)
            XCTAssertEqual(Data(hash).base64EncodedString(), photo.hash, photo.name)
        }
    }

    /// 8%: the reference keeps the short side as a whole number of 7 terms, so 4:3 reads
    /// 7:5 (5% off) and 3:2 reads 7:5 too (6.7%); 1:1, 16:9 and their portraits are closer.
    func testRealPhotosKeepAspectRatioWithin8PercentAndAverageColourWithin5Hundredths() throws {
        for photo in try ReferenceFixtures.photos() {
            let rgba = try ReferenceFixtures.bytes(photo.rgba)
            let hash = try ThumbHash.encode(width: photo.width, height: photo.height, rgba: rgba)
            let ratio = try ThumbHash.approximateAspectRatio(hash)
            let decoded = try ThumbHash.decode(hash)
            XCTAssertEqual(ratio, photo.aspectRatio, accuracy: 0.08 * photo.aspectRatio, photo.name)
            XCTAssertEqual(Double(decoded.width) / Double(decoded.height), photo.aspectRatio,
                           accuracy: 0.08 * photo.aspectRatio, "\(photo.name): decoded placeholder")
            let colour = try ThumbHash.averageColor(hash)
            for (channel, mean) in zip([colour.red, colour.green, colour.blue], photo.meanRGB) {
                XCTAssertEqual(channel, mean, accuracy: 0.05, photo.name)
            }
            XCTAssertEqual(colour.alpha, 1, photo.name)
        }
    }
}
