import Downsample
import Foundation
import WarmSupport

/// What `warm check` compares against: per image the thumbnail figures the check needs, with the image's identity
/// (source SHA-256, else the URL's path and query) and the run's target size, output format and quality.
/// Stable JSON (sorted keys and images), so a committed baseline changes only where the numbers do.
public struct MetricsBaseline: Sendable, Equatable, Codable {
    public struct Image: Sendable, Equatable, Codable {
        var url: String
        /// SHA-256 of the source bytes; nil in version 1 baselines and for images made from cache entries.
        var sourceSHA256: String?
        /// False when the image failed when the baseline was made.
        public var decoded: Bool
        var retainedBytes: Int?
        public var peakBytes: Int?
        var outputWidth: Int?
        var outputHeight: Int?
        var ssim: Double?
        /// The thumbnail's CPU seconds (process user + system); nil when not measured, and in version 1 baselines.
        var cpuSeconds: Double?
        /// Pixels the thumbnail path decoded from these source bytes: the check's exact figure; nil before version 3.
        public var decodedPixels: Int?
        var errorReason: String?

        /// Where the image is in its catalog whatever serves it: the URL's path and query (no scheme, host or port).
        var location: String { Self.location(of: url) }

        static func location(of url: String) -> String {
            guard let components = URLComponents(string: url) else { return url }
            return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
    }

    /// Version 2 added `sourceSHA256`, `cpuSeconds`, `outputFormat` and `outputQuality`; version 3 `decodedPixels`,
    /// `build` and `decoders`. Versions 1 and 2 still read, and the check refuses to stand on them (no pixel counts).
    static let currentVersion = 3
    static let readableVersions = 1...3
    var version: Int
    public var targetLongestSide: Int
    /// Nil in a version 1 baseline (not recorded then: not compared).
    var outputFormat: OutputFormat?
    var outputQuality: Int?
    var peakMethod: PeakMethod
    /// The build ("debug" or "release") and the decoders (`VipsRuntime.decoderVersions`) that measured it; nil before
    /// version 3.
    var build: String?
    var decoders: String?
    public var images: [Image]

    /// The thumbnail figures of `records`' list thumbnails (carousel records are not checked). A URL measured twice
    /// keeps its last record.
    /// - Precondition: `records` is not empty and shares one target size (the caller checks).
    public init(records: [ImageMetricsRecord]) {
        let records = records.filter(\.isThumbnail)
        version = Self.currentVersion
        targetLongestSide = records.last?.targetLongestSide ?? 0
        outputFormat = records.last { $0.outputFormat != nil }?.outputFormat
        outputQuality = records.last { $0.outputQuality != nil }?.outputQuality
        // Unmeasured records have no peak method (nor peaks: their images keep sizes only).
        peakMethod = records.last { $0.peakMethod != nil }?.peakMethod ?? .forkedProcess
        build = records.last { $0.build != nil }?.build
        decoders = records.last { $0.decoders != nil }?.decoders
        images = Self.lastByURL(records).values.map { record in
            if let thumbnail = record.strategies.thumbnail, record.error == nil {
                return Image(url: record.url, sourceSHA256: record.sourceSHA256, decoded: true,
                             retainedBytes: thumbnail.retainedBytes, peakBytes: thumbnail.peakBytes,
                             outputWidth: thumbnail.outputWidth, outputHeight: thumbnail.outputHeight, ssim: thumbnail.ssim,
                             cpuSeconds: thumbnail.cpuSeconds, decodedPixels: thumbnail.decodedPixels)
            }
            return Image(url: record.url, sourceSHA256: record.sourceSHA256, decoded: false,
                         errorReason: record.errorReason ?? "unknown")
        }.sorted { $0.url < $1.url }
    }

    static func lastByURL(_ records: [ImageMetricsRecord]) -> [String: ImageMetricsRecord] {
        Dictionary(records.map { ($0.url, $0) }, uniquingKeysWith: { _, last in last })
    }

    func encoded() -> Data {
        var data = (try? JSONEncoder.readable().encode(self)) ?? Data()
        data.append(UInt8(ascii: "\n"))
        return data
    }

    public func write(to path: String) throws(MetricsFileError) {
        try MetricsFileError.write(encoded(), to: path)
    }

    public static func read(path: String) throws(MetricsFileError) -> MetricsBaseline {
        let data = try MetricsFileError.read(path)
        let baseline: MetricsBaseline
        do {
            baseline = try JSONDecoder().decode(MetricsBaseline.self, from: data)
        } catch {
            throw .badBaseline(path: path, reason: JSONLinesReader.reason(error))
        }
        guard readableVersions.contains(baseline.version) else {
            throw .badBaseline(path: path, reason: "it is version \(baseline.version), this warm reads versions \(readableVersions.lowerBound)-\(readableVersions.upperBound)")
        }
        return baseline
    }
}
