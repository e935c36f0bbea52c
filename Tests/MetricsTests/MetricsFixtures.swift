@testable import Downsample
import Foundation
@testable import WarmSupport
@testable import WarmMetrics

/// Images and records the Metrics tests make for themselves.
enum MetricsFixtures {
    /// A phone-size photo: 4032x3024 JPEG (naive bitmap 48,771,072 bytes).
    static let phoneJPEG: Data = {
        do {
            let small = try ImageComposer.encode(pixels: ImageComposer.pattern(width: 160, height: 120), width: 160, height: 120,
                                                 bands: 3, as: CompositionEncoding(format: .jpeg))
            return try ImageComposer.photo(small, size: PixelSize(width: 4032, height: 3024), as: CompositionEncoding(format: .jpeg))
        } catch {
            fatalError("cannot make the test photo: \(error)")
        }
    }()

    /// Measuring processes of the `warm` binary `swift build` put beside the test binary.
    static let pool: MeasuringPool = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("warm").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return MeasuringPool(executablePath: directory.appendingPathComponent("warm").path, processes: 2)
    }()

    /// `data` measured as a run measures it (`MetricsRecorder`): a `StrategyMeasurer` for one size.
    static func measure(_ data: Data, productId: Int? = nil, url: String, longestSide: Int = 300) async -> ImageMetricsRecord {
        await StrategyMeasurer(configuration: .init(target: DecodeTarget(longestSide: longestSide), pool: pool))
            .measure(data: data, productId: productId, url: url)
    }

    static func image(width: Int, height: Int, seed: UInt64 = 1, alpha: Bool = false,
                      as encoding: CompositionEncoding) throws -> Data {
        try ImageComposer.encode(pixels: ImageComposer.pattern(width: width, height: height, seed: seed, alpha: alpha),
                                 width: width, height: height, bands: alpha ? 4 : 3, as: encoding)
    }

    /// A hand-made record: every strategy present with the given retained bytes, measured by a debug build; its
    /// source SHA-256 is the URL's, its thumbnail path decoded `decodedPixels`.
    static func record(url: String, naive: Int, renderer: Int, thumbnail: Int, thumbnailPeak: Int = 1_000_000,
                       thumbnailSize: PixelSize = PixelSize(width: 300, height: 225), ssim: Double = 0.99,
                       format: ImageFormat = .jpeg, target: Int = 300, decodedPixels: Int = 762_048) -> ImageMetricsRecord {
        func metrics(_ retained: Int, peak: Int, size: PixelSize, ssim: Double?, decoded: Int) -> ImageMetricsRecord.StrategyMetrics {
            ImageMetricsRecord.StrategyMetrics(retainedBytes: retained, peakBytes: peak, cpuSeconds: 0.01, wallSeconds: 0.02,
                                               outputWidth: size.width, outputHeight: size.height, decodedPixels: decoded,
                                               ssim: ssim, psnr: ssim.map { _ in 40 })
        }
        var record = ImageMetricsRecord(
            productId: 7, url: url, format: format, sourceBytes: 123_456, width: 4032, height: 3024, orientation: 1,
            targetLongestSide: target, peakMethod: .residentHighWaterMark,
            strategies: .init(naive: metrics(naive, peak: naive * 2, size: PixelSize(width: 4032, height: 3024), ssim: nil,
                                             decoded: 4032 * 3024),
                              renderer: metrics(renderer, peak: naive * 2, size: thumbnailSize, ssim: ssim, decoded: 4032 * 3024),
                              thumbnail: metrics(thumbnail, peak: thumbnailPeak, size: thumbnailSize, ssim: ssim, decoded: decodedPixels)))
        record.sourceSHA256 = SHA256Hex.digest(of: Data(url.utf8))
        record.build = "debug"
        return record
    }

    /// A record of a 4032x3024 JPEG warmed but not measured, its thumbnail `thumbnailSize`, with what the warm counts.
    static func unmeasured(url: String, thumbnailSize: PixelSize = PixelSize(width: 300, height: 225),
                           target: Int = 300, decodedPixels: Int = 762_048) -> ImageMetricsRecord {
        var record = ImageMetricsRecord.unmeasured(
            productId: 9, url: url, format: .jpeg, sourceBytes: 654_321, width: 4032, height: 3024, orientation: 1,
            targetLongestSide: target, thumbnailSize: thumbnailSize)
        record.sourceSHA256 = SHA256Hex.digest(of: Data(url.utf8))
        record.strategies.thumbnail?.decodedPixels = decodedPixels
        record.build = "debug"
        return record
    }

    /// A hand-made record of an image that failed to decode.
    static func failed(url: String, reason: String = "corrupt", target: Int = 300) -> ImageMetricsRecord {
        ImageMetricsRecord(productId: 8, url: url, format: .jpeg, sourceBytes: 999, width: 640, height: 480, orientation: 1,
                           targetLongestSide: target, peakMethod: .residentHighWaterMark,
                           error: "the 640x480 jpeg image is corrupt or truncated: premature end of file", errorReason: reason)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warm-metrics-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static var canResetPeakRSS: Bool {
        FileManager.default.isWritableFile(atPath: "/proc/self/clear_refs")
    }
}

extension PeakMethod {
    /// A method older versions wrote (VmHWM in the measuring process itself), as their metrics files name it.
    static let residentHighWaterMark = PeakMethod(rawValue: "vmhwm")
}

extension JSONLinesWriter {
    /// Writes all `records` to `path` at once, as a run would have appended them.
    static func write(_ records: [ImageMetricsRecord], to path: String) throws {
        try MetricsFileError.write(Data(records.map { try JSONLines.line($0) }.joined()), to: path)
    }
}
