import Downsample
import Foundation
import WarmMetrics

/// `warm report` as a library call: optionally measures local image files
/// first (the offline catalog: one image at a time, each strategy alone, into
/// `metrics.jsonl` and `metrics.csv` beside the report), then writes the
/// Markdown and HTML report from every metrics file.
///
/// Cost: images are measured one at a time (see `StrategyMeasurer`); the
/// report itself reads the records once into memory.
public enum ReportJob {
    /// Why the report could not be made.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case noImages(inputs: [String])
        case metrics(MetricsFileError)
        case noiseMeasurement(DownsampleError)

        public var description: String {
            switch self {
            case .noImages(let inputs): "no image files found in \(inputs.joined(separator: ", "))"
            case .metrics(let error): error.description
            case .noiseMeasurement(let error): "measuring the peak noise failed: \(error)"
            }
        }
    }

    public struct Output: Sendable {
        /// Files written: the measured metrics (if any), then the report.
        public var paths: [String]
        /// One paragraph for the console.
        public var summary: String
        /// Images measured from `measureInputs`.
        public var measuredImages: Int
    }

    /// Measures `measureInputs` (image files or directories; may be empty) at
    /// `longestSide` first, then reports them with `metricsPaths` (in catalog
    /// order) into `outputDirectory`, stating the peak noise of `noiseRepeats`
    /// measurements (0: skip); `onMeasured` follows each measured image.
    public static func run(metricsPaths: [String], measureInputs: [String], outputDirectory: String, cacheLimitBytes: Int,
                           noiseRepeats: Int, longestSide: Int, repeats: StrategyMeasurer.Repeats, pool: MeasuringPool,
                           onMeasured: @Sendable (ImageMetricsRecord) -> Void) async throws(Failure) -> Output {
        var metricsPaths = metricsPaths
        var written: [String] = []
        var measuredImages = 0
        let directory = URL(fileURLWithPath: outputDirectory)
        do {
            if !measureInputs.isEmpty {
                let files = FileThumbnailer.expandInputs(measureInputs)
                guard !files.isEmpty else { throw Failure.noImages(inputs: measureInputs) }
                let jsonl = directory.appendingPathComponent("metrics.jsonl").path
                let csv = directory.appendingPathComponent("metrics.csv").path
                let measured = try await FileMeasurement.measure(
                    files: files, configuration: .init(target: DecodeTarget(longestSide: longestSide),
                                                         repeats: repeats, pool: pool),
                    writingTo: jsonl, progress: onMeasured)
                try CSVWriter.write(measured, to: csv)
                measuredImages = measured.count
                metricsPaths.append(jsonl)
                written += [jsonl, csv]
            }
            let report = try await ReportGenerator.generate(
                metricsPaths: metricsPaths, outputDirectory: outputDirectory,
                cacheLimitBytes: cacheLimitBytes, noiseRepeats: noiseRepeats,
                defaultSize: longestSide, noisePool: pool)
            return Output(paths: written + report.paths, summary: report.summary, measuredImages: measuredImages)
        } catch let error as Failure {
            throw error
        } catch let error as MetricsFileError {
            throw .metrics(error)
        } catch let error as DownsampleError {
            throw .noiseMeasurement(error)
        } catch {
            // ReportGenerator and the writers throw only the two types above.
            throw .metrics(.unwritable(path: outputDirectory, reason: "\(error)"))
        }
    }
}
