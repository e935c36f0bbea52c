import Downsample
import Foundation

/// Reads metrics files, measures the peak's run-to-run noise (with a measuring pool), and writes the
/// memory comparison report: the one path behind `warm report` and `warm demo`.
public enum ReportGenerator {
    public struct Output: Sendable {
        public var paths: [String]
        public var summary: String
    }

    /// `warm report`'s and `warm demo`'s: the memory cache the LRU simulation fills, and the noise measurement's repeats.
    public static let defaultCacheLimitBytes = 100_000_000
    public static let defaultNoiseRepeats = 10

    public static func generate(metricsPaths: [String], outputDirectory: String, cacheLimitBytes: Int = defaultCacheLimitBytes,
                                noiseRepeats: Int = defaultNoiseRepeats, defaultSize: Int = DecodeTarget.defaultLongestSide,
                                noisePool: MeasuringPool? = nil) async throws -> Output {
        let records = ShardedRecords.inCatalogOrder(try JSONLinesReader.read(paths: metricsPaths))
        var noise: PeakNoise?
        if noiseRepeats > 0, let noisePool {
            let target = DecodeTarget(longestSide: records.last?.targetLongestSide ?? defaultSize)
            noise = try await PeakNoise.measureSyntheticJPEG(target: target, repeats: noiseRepeats, pool: noisePool)
        }
        let report = MemoryReport(records: records, cacheLimitBytes: cacheLimitBytes,
                                  context: .init(metricsPaths: metricsPaths, noise: noise))
        return Output(paths: try report.write(to: outputDirectory), summary: report.summary)
    }
}
