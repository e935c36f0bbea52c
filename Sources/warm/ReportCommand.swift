import ArgumentParser
import Downsample
import Foundation
import Pipeline
import WarmMetrics

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write the memory comparison report (Markdown and self-contained HTML) from per-image metrics.",
        discussion: """
            Reads JSON Lines metrics (one ImageMetricsRecord per line, from one or more files, put in catalog order: product id descending, as the newest-first list is, records without one last) \
            and writes DIR/memory-comparison.md and DIR/memory-comparison.html. Memory figures are decimal MB \
            (1 MB = 1,000,000 bytes). With --measure, image files are measured first (serially, one strategy at a time) \
            into DIR/metrics.jsonl and DIR/metrics.csv and reported too.
            Exit status: 0 report written; 1 could not read the metrics or write the report; 64 usage error.
            """)

    @Option(name: .customLong("metrics"), parsing: .upToNextOption,
            help: ArgumentHelp("JSON Lines metrics files.", valueName: "file"))
    var metricsFiles: [String] = []

    @Option(help: ArgumentHelp("Output directory (created if missing).", valueName: "dir"))
    var out: String

    @Option(help: "Memory-cache limit for the 'fit in the cache' row and the LRU simulation (e.g. 100MB; a number is bytes).")
    var cacheLimitBytes = ByteCount(bytes: ReportGenerator.defaultCacheLimitBytes)

    @Option(help: "Measure the peak's run-to-run noise this many times on a synthetic JPEG and state it in the report (0: skip).")
    var noiseRepeats: Int = ReportGenerator.defaultNoiseRepeats

    @Option(parsing: .upToNextOption,
            help: ArgumentHelp("Image files or directories to measure first (offline catalog).", valueName: "path"))
    var measure: [String] = []

    @Option(help: "Longest upright side the strategies decode for, in pixels (with --measure, and for the noise measurement when there are no metrics).")
    var size: Int = DecodeTarget.defaultLongestSide

    @OptionGroup var measurement: MeasurementOptions

    func validate() throws {
        guard !metricsFiles.isEmpty || !measure.isEmpty else {
            throw ValidationError("Give at least one --metrics file (or --measure images).")
        }
        guard cacheLimitBytes.bytes > 0 else { throw ValidationError("--cache-limit-bytes must be positive.") }
        try OptionCheck.count(noiseRepeats, in: 0...10_000, option: "--noise-repeats")
        try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size")
    }

    func run() async throws {
        do {
            let output = try await ReportJob.run(
                metricsPaths: metricsFiles, measureInputs: measure, outputDirectory: out, cacheLimitBytes: cacheLimitBytes.bytes,
                noiseRepeats: noiseRepeats, longestSide: size, repeats: measurement.repeats,
                pool: measurement.pool()
            ) { record in
                if let error = record.error { Console.error("error: \(record.url): \(error)") }
            }
            if output.measuredImages > 0 { print("measured \(output.measuredImages) images") }
            for path in output.paths { print("wrote \(path)") }
            print(output.summary)
        } catch {
            throw Console.failure(error)
        }
    }
}
