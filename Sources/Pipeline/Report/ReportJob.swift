import Downsample
import Foundation
import WarmMetrics

/// `warm report` as a library call: optionally measures local files first (one at a time, into `metrics.jsonl` and
/// `.csv`), then writes the report. Cost: the report reads the records once into memory.
public enum ReportJob {
    enum Failure: Error, Sendable, CustomStringConvertible {
        case noImages(inputs: [String])
        case noiseMeasurement(DownsampleError)

        var description: String {
            switch self {
            case .noImages(let inputs): "no image files found in \(inputs.joined(separator: ", "))"
            case .noiseMeasurement(let error): "measuring the peak noise failed: \(error)"
            }
        }
    }

    public struct Output: Sendable {
        /// The measured metrics (if any), then the report.
        public var paths: [String]
        public var summary: String
        public var measuredImages: Int
    }

    /// `measureInputs` (files or directories; may be empty) are measured first and reported after `metricsPaths`;
    /// `noiseRepeats` 0 skips the peak-noise measurement. Throws a `Failure` or a `MetricsFileError`.
    public static func run(metricsPaths: [String], measureInputs: [String], outputDirectory: String, cacheLimitBytes: Int,
                           noiseRepeats: Int, longestSide: Int, repeats: StrategyMeasurer.Repeats, pool: MeasuringPool,
                           onMeasured: @Sendable (ImageMetricsRecord) -> Void) async throws -> Output {
        var metricsPaths = metricsPaths
        var written: [String] = []
        var measuredImages = 0
        let directory = URL(fileURLWithPath: outputDirectory)
        if !measureInputs.isEmpty {
            let files = FileThumbnailer.expandInputs(measureInputs)
            guard !files.isEmpty else { throw Failure.noImages(inputs: measureInputs) }
            let jsonl = directory.appendingPathComponent("metrics.jsonl").path
            let csv = directory.appendingPathComponent("metrics.csv").path
            let measured = try await FileMeasurement.measure(
                files: files, configuration: .init(target: DecodeTarget(longestSide: longestSide), repeats: repeats,
                                                     pool: pool),
                writingTo: jsonl, progress: onMeasured)
            try CSVWriter.write(measured, to: csv)
            measuredImages = measured.count
            metricsPaths.append(jsonl)
            written += [jsonl, csv]
        }
        do {
            let report = try await ReportGenerator.generate(
                metricsPaths: metricsPaths, outputDirectory: outputDirectory, cacheLimitBytes: cacheLimitBytes,
                noiseRepeats: noiseRepeats, defaultSize: longestSide, noisePool: pool)
            return Output(paths: written + report.paths, summary: report.summary, measuredImages: measuredImages)
        } catch let error as DownsampleError {
            throw Failure.noiseMeasurement(error)
        }
    }
}
