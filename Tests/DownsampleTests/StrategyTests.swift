@testable import Downsample
import Foundation
import XCTest

final class StrategyTests: XCTestCase {
    let target = DecodeTarget(longestSide: 300)

    /// The acceptance figures: a 4032x3024 photo at --size 300.
    func testPhoneSizePhotoRetainsFullBitmapNaivelyAnd300x225Thumbnail() throws {
        for format in [ImageFormat.jpeg, .webp, .png] {
            let data = try TestImages.large(PixelSize(width: 4032, height: 3024), as: CompositionEncoding(format: format))
            let source = try ImageSource(data: data)
            XCTAssertEqual(source.header.width, 4032)
            XCTAssertEqual(source.header.height, 3024)

            let naive = try NaiveDecode().decode(source, target: target)
            XCTAssertEqual(naive.size, PixelSize(width: 4032, height: 3024), "\(format)")
            XCTAssertEqual(naive.retainedBytes, 48_771_072, "\(format)")

            let renderer = try RendererResize().decode(source, target: target)
            XCTAssertEqual(renderer.size, PixelSize(width: 300, height: 225), "\(format)")
            XCTAssertEqual(renderer.retainedBytes, 270_000, "\(format)")

            let thumbnail = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
            XCTAssertEqual(thumbnail.size, PixelSize(width: 300, height: 225), "\(format)")
            XCTAssertEqual(thumbnail.retainedBytes, 270_000, "\(format)")
            XCTAssertEqual(thumbnail.bands, 4)
        }
    }

    func testRendererAndThumbnailAgreeOnOutputSizeWithinOnePixel() throws {
        let sizes = [PixelSize(width: 1001, height: 333), PixelSize(width: 333, height: 1001),
                     PixelSize(width: 1280, height: 853), PixelSize(width: 999, height: 998),
                     PixelSize(width: 2000, height: 1500)]
        for size in sizes {
            for tag in [1, 6] {
                let data = try TestImages.large(size, as: CompositionEncoding(format: .jpeg, orientationTag: tag))
                let source = try ImageSource(data: data)
                let renderer = try RendererResize().decode(source, target: target)
                let thumbnail = try ThumbnailAtDecode.libvipsPath.decode(source, target: target)
                XCTAssertLessThanOrEqual(abs(renderer.width - thumbnail.width), 1, "\(size) tag \(tag)")
                XCTAssertLessThanOrEqual(abs(renderer.height - thumbnail.height), 1, "\(size) tag \(tag)")
                XCTAssertEqual(max(thumbnail.width, thumbnail.height), 300, "\(size) tag \(tag)")
                XCTAssertEqual(renderer.size, target.outputSize(for: source.header), "\(size) tag \(tag)")
            }
        }
    }

    func testSmallerImageIsNeverUpscaled() throws {
        let source = try ImageSource(data: try TestImages.jpeg(width: 120, height: 90))
        for kind in StrategyKind.allCases {
            let image = try kind.strategy.decode(source, target: target)
            XCTAssertEqual(image.size, PixelSize(width: 120, height: 90), "\(kind)")
        }
    }

    func testStrategiesAreSafeToRunFromManyTasksAtOnce() async throws {
        let inputs = try (0..<8).map { try TestImages.jpeg(width: 400 + $0 * 37, height: 300 + $0 * 11, seed: UInt64($0)) }
        let serial = try inputs.map { try ThumbnailAtDecode.libvipsPath.decode(try ImageSource(data: $0), target: DecodeTarget(longestSide: 64)).rgbaPixels() }
        let concurrent = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, data) in inputs.enumerated() {
                group.addTask {
                    let source = try ImageSource(data: data)
                    _ = try NaiveDecode().decode(source, target: DecodeTarget(longestSide: 64))
                    return (index, try ThumbnailAtDecode.libvipsPath.decode(source, target: DecodeTarget(longestSide: 64)).rgbaPixels())
                }
            }
            var results = [[UInt8]](repeating: [], count: inputs.count)
            for try await (index, pixels) in group { results[index] = pixels }
            return results
        }
        XCTAssertEqual(concurrent, serial)
    }
}
