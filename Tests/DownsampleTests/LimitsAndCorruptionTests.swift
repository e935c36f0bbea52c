import CWarmVips
@testable import Downsample
import Foundation
import XCTest

final class LimitsAndCorruptionTests: XCTestCase {
    func testPNGDeclaring30000x30000IsRefusedFromItsHeaderWithoutAllocatingIt() throws {
        let bomb = try TestImages.pngDeclaring(width: 30000, height: 30000)
        XCTAssertLessThan(bomb.count, 1024)
        XCTAssertThrowsError(try ImageSource(data: bomb)) { error in
            XCTAssertEqual(error as? DownsampleError,
                           .tooManyPixels(format: .png, width: 30000, height: 30000, limit: 50_000_000))
            let message = "\(error)"
            XCTAssertTrue(message.contains("30000x30000") && message.contains("max pixels"), message)
        }
        // Refused from the header: 30000 x 30000 x 3 bytes would be 2.7 GB; nothing near that was ever held.
        XCTAssertLessThan(vips_tracked_get_mem_highwater(), 900_000_000)
        XCTAssertLessThan(TestImages.peakResidentBytes(), 2_000_000_000)
    }

    func testJPEGDeclaring30000x30000IsRefused() throws {
        let bomb = try TestImages.jpegDeclaring(width: 30000, height: 30000)
        XCTAssertThrowsError(try ImageSource(data: bomb)) { error in
            XCTAssertEqual(error as? DownsampleError,
                           .tooManyPixels(format: .jpeg, width: 30000, height: 30000, limit: 50_000_000))
        }
    }

    func testPixelLimitIsConfigurable() throws {
        let data = try TestImages.jpeg(width: 200, height: 100)
        XCTAssertNoThrow(try ImageSource(data: data, limits: DecodeLimits(maxPixels: 20_000)))
        XCTAssertThrowsError(try ImageSource(data: data, limits: DecodeLimits(maxPixels: 19_999))) { error in
            XCTAssertEqual(error as? DownsampleError, .tooManyPixels(format: .jpeg, width: 200, height: 100, limit: 19_999))
        }
    }

    func testEncodedSizeLimitIsCheckedBeforeAnythingElse() throws {
        let data = try TestImages.jpeg(width: 64, height: 64)
        XCTAssertThrowsError(try ImageSource(data: data, limits: DecodeLimits(maxEncodedBytes: 100))) { error in
            XCTAssertEqual(error as? DownsampleError, .tooManyBytes(byteCount: data.count, limit: 100))
            XCTAssertTrue("\(error)".contains("max encoded size"))
        }
    }

    func testTruncatedJPEGIsAnErrorFromEveryStrategyNotAGreyImage() throws {
        let whole = try TestImages.jpeg(width: 640, height: 480)
        let truncated = whole.prefix(whole.count * 6 / 10)
        let source = try ImageSource(data: Data(truncated))  // the header is intact
        for kind in StrategyKind.allCases {
            XCTAssertThrowsError(try kind.strategy.decode(source, target: DecodeTarget(longestSide: 100)), "\(kind)") { error in
                guard case .corrupt(.jpeg, 640, 480, _)? = error as? DownsampleError else {
                    return XCTFail("\(kind): \(error)")
                }
            }
        }
    }

    func testTruncatedPNGIsAnError() throws {
        let whole = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 300, height: 200), width: 300, height: 200, bands: 3,
                                             as: CompositionEncoding(format: .png))
        let source = try ImageSource(data: Data(whole.prefix(whole.count / 2)))
        for kind in StrategyKind.allCases {
            XCTAssertThrowsError(try kind.strategy.decode(source, target: DecodeTarget(longestSide: 100)), "\(kind)")
        }
    }

    func testGarbageAfterAValidSignatureIsAnErrorNotACrash() throws {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        var state: UInt32 = 7
        for _ in 0..<4096 { state = state &* 1_664_525 &+ 1_013_904_223; bytes.append(UInt8(state >> 24)) }
        XCTAssertThrowsError(try ImageSource(data: Data(bytes))) { error in
            XCTAssertNotNil(error as? DownsampleError)
        }
    }
}
