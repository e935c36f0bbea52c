import CWarmVips
@testable import Downsample
import Foundation
import ImageSamples
@testable import WarmSupport
import XCTest

/// The hostile and odd set (`HostileImages`) at the decoder: each sample is
/// refused with its reason, or decodes to its upright size. The same set runs
/// end to end through `warm run` in CLITests' HostileCatalogTests.
final class HostileImageTests: XCTestCase {
    func testEverySampleIsRefusedWithItsReasonOrDecodesToItsUprightSize() throws {
        let samples = try HostileImages.all()
        XCTAssertEqual(Set(samples.map(\.name)).count, samples.count, "names are unique")
        for sample in samples {
            let outcome: HostileSample.Outcome
            do {
                let source = try ImageSource(data: sample.data)
                // Larger than every sample: never upscaled, so the output is the upright size.
                let image = try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 1000))
                outcome = .decodes(upright: image.size)
            } catch {
                outcome = .refused(reasonCode: error.reasonCode)
            }
            XCTAssertEqual(outcome, sample.outcome, sample.name)
        }
    }

    func testBombsAreSmallAndRefusedFromTheirHeaders() throws {
        let bombs = try HostileImages.all().filter { $0.name.hasPrefix("bomb-") }
        XCTAssertEqual(bombs.count, 5)
        for sample in bombs {
            XCTAssertLessThan(sample.data.count, 2048, sample.name)
            XCTAssertThrowsError(try ImageSource(data: sample.data), sample.name) { error in
                guard case .tooManyPixels(_, let width, let height, let limit)? = error as? DownsampleError,
                      width * height > limit, [16000, 30000].contains(width) else {
                    return XCTFail("\(sample.name): \(error)")
                }
            }
        }
        // libvips' animated WebP loader allocates the canvas in its header read
        // (16000 x 16000 x 4 = 1 GB): the declared size is checked before it runs.
        XCTAssertLessThan(vips_tracked_get_mem_highwater(), 900_000_000, "no bomb's canvas was allocated")
    }

    func testAnimatedGIFAndWebPShowTheirFirstFrame() throws {
        for name in ["animated-gif", "animated-webp"] {
            let sample = try XCTUnwrap(try HostileImages.all().first { $0.name == name })
            let source = try ImageSource(data: sample.data)
            XCTAssertEqual(source.header.pageCount, 3, name)
            for kind in StrategyKind.allCases {
                let image = try kind.strategy.decode(source, target: DecodeTarget(longestSide: 60))
                let centre = TestImages.pixel(image, image.rgbaPixels(), x: image.width / 2, y: image.height / 2)
                XCTAssertGreaterThan(centre[0], 200, "\(name) \(kind): the first frame is red, got \(centre)")
                XCTAssertLessThan(centre[2], 60, "\(name) \(kind): not the blue second frame, got \(centre)")
            }
        }
    }

    func testOrientationsOutsideOneToEightAreReadAsTheyAreAndTreatedAsUpright() throws {
        for value in [0, 9, 65535] {
            let sample = try XCTUnwrap(try HostileImages.all().first { $0.name == "orientation-\(value)" })
            let source = try ImageSource(data: sample.data)
            XCTAssertEqual(source.header.exifOrientation, value)
            XCTAssertEqual(source.header.orientation, 1)
            let image = try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 100))
            let topLeft = TestImages.pixel(image, image.rgbaPixels(), x: 10, y: 10)
            XCTAssertGreaterThan(topLeft[0], 200, "orientation \(value): red stays top-left, got \(topLeft)")
            XCTAssertLessThan(topLeft[1], 60, "orientation \(value): got \(topLeft)")
        }
    }

    func testPhonePhotosCarryGPSExifThatTheThumbnailsDoNot() throws {
        for name in ["gps-phone-jpeg", "gps-phone-webp", "huge-exif"] {
            let sample = try XCTUnwrap(try HostileImages.all().first { $0.name == name })
            let source = try ImageSource(data: sample.data)
            XCTAssertTrue(source.header.hasExif, "\(name): the source has EXIF, so the checks below can fail")
            let image = try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 100))
            for format in OutputFormat.allCases {
                let encoded = try image.encoded(as: format)
                XCTAssertEqual(ExifCounts.entries(in: encoded), 0, "\(name) -> \(format)")
                XCTAssertFalse(encoded.range(of: Data("WarmTestPhone".utf8)) != nil, "\(name) -> \(format): the camera's make leaked")
                XCTAssertFalse(try ImageSource(data: encoded).header.hasExif, "\(name) -> \(format)")
            }
        }
        let gps = try HostileImages.phoneJPEGWithGPS()
        XCTAssertEqual(ExifCounts.entries(in: gps), 9, "make, model, orientation, date and 5 GPS tags")
        XCTAssertEqual(ExifCounts.gpsEntries(in: gps), 5)
        let webp = try HostileImages.phoneWebPWithGPS()
        XCTAssertEqual(ExifCounts.entries(in: webp), 9, "the EXIF chunk of a WebP is read too")
        XCTAssertEqual(ExifCounts.gpsEntries(in: webp), 5)
    }
}
