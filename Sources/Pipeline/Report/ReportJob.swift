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
public struct ReportJob: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// JSON Lines metrics files, in catalog order.
        public var metricsPaths: [String]
        /// Image files or directories to measure first (may be empty).
        public var measureInputs: [String]
        public var outputDirectory: String
        public var cacheLimitBytes: Int
        /// Peak-noise measurements stated in the report (0: skip).
        public var noiseRepeats: Int
        /// Longest upright side, for measuring and for the noise measurement.
        public var longestSide: Int
        /// The measuring processes (the images and the noise).
        public var pool: MeasuringPool

        public init(metricsPaths: [String], measureInputs: [String] = [], outputDirectory: String,
                    cacheLimitBytes: Int = 100_000_000, noiseRepeats: Int = 10, longestSide: Int = 300,
                    pool: MeasuringPool) {
            self.pool = pool
            self.metricsPaths = metricsPaths
            self.measureInputs = measureInputs
            self.outputDirectory = outputDirectory
            self.cacheLimitBytes = cacheLimitBytes
            self.noiseRepeats = noiseRepeats
            self.longestSide = longestSide
        }
    }

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

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// - Parameter onMeasured: called after each measured image (for progress and per-image errors).
    public func run(onMeasured: @Sendable (ImageMetricsRecord) -> Void = { _ in }) async throws(Failure) -> Output {
        var metricsPaths = configuration.metricsPaths
        var written: [String] = []
        var measuredImages = 0
        let directory = URL(fileURLWithPath: configuration.outputDirectory)
        do {
            if !configuration.measureInputs.isEmpty {
                let files = FileThumbnailer.expandInputs(configuration.measureInputs)
                guard !files.isEmpty else { throw Failure.noImages(inputs: configuration.measureInputs) }
                let jsonl = directory.appendingPathComponent("metrics.jsonl").path
                let csv = directory.appendingPathComponent("metrics.csv").path
                let measured = try await FileMeasurement.measure(
                    files: files, configuration: .init(target: DecodeTarget(longestSide: configuration.longestSide),
                                                         pool: configuration.pool),
                    writingTo: jsonl, progress: onMeasured)
                try CSVWriter.write(measured, to: csv)
                measuredImages = measured.count
                metricsPaths.append(jsonl)
                written += [jsonl, csv]
            }
            let report = try await ReportGenerator.generate(
                metricsPaths: metricsPaths, outputDirectory: configuration.outputDirectory,
                cacheLimitBytes: configuration.cacheLimitBytes, noiseRepeats: configuration.noiseRepeats,
                defaultSize: configuration.longestSide, noisePool: configuration.pool)
            return Output(paths: written + report.paths, summary: report.summary, measuredImages: measuredImages)
        } catch let error as Failure {
            throw error
        } catch let error as MetricsFileError {
            throw .metrics(error)
        } catch let error as DownsampleError {
            throw .noiseMeasurement(error)
        } catch {
            // ReportGenerator and the writers throw only the two types above.
            throw .metrics(.unwritable(path: configuration.outputDirectory, reason: "\(error)"))
        }
    }
}
