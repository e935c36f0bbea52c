import ArgumentParser
import Cache
import Downsample
import Foundation
import Logging
import Pipeline
import WarmMetrics
import WarmSupport

/// `warm run` and `warm demo`: the option groups both declare, one `@OptionGroup(title:)` each (a title set on the
/// command overrides any inside the group), and what they do with them. Each group yields its own piece of the
/// `WarmConfiguration`; the groups sit on the commands themselves, not in a group of groups, because argument-parser
/// checks a nested group's definition again at each level in a debug build (four times the work a level: `warm run`
/// took 0.5 s to parse its arguments with one level more).
protocol WarmCommand {
    var control: RunControlOptions { get }
    var thumbnails: ThumbnailOptions { get }
    var details: DetailOptions { get }
    var freshness: FreshnessOptions { get }
    var fetch: FetchOptions { get }
    var decoding: WarmDecodeOptions { get }
    var decoder: DecoderOptions { get }
    var comparing: CompareOptions { get }
    var measurement: MeasurementOptions { get }
    var output: OutputOptions { get }
    var log: LogOptions { get }
}

extension WarmCommand {
    /// The run's whole configuration, one piece per option group. `defaultMetricsPath`
    /// (nil: the run's state directory) is used when measuring without `--metrics`. Throws when a `--max-cache-size`
    /// share cannot be sized (the file system's size is read here, as the run starts).
    func configuration(source: CatalogSource, cacheDirectory: String, compare: CompareSelection, shard: CacheShard?,
                       defaultMetricsPath: String? = nil,
                       defaultFormats: [OutputFormat] = WarmConfiguration.Thumbnails().formats,
                       defaultDetails: WarmConfiguration.Details = WarmConfiguration.Details()) throws -> WarmConfiguration {
        // A shard's own state directory, so shards sharing one cache directory never write the same file.
        let state = { (file: String) in CacheLayout(root: cacheDirectory, shard: shard).stateDirectory + "/" + file }
        return WarmConfiguration(
            source: source, cacheDirectory: cacheDirectory,
            thumbnails: thumbnails.settings(defaultFormats: defaultFormats),
            details: details.settings(defaults: defaultDetails),
            freshness: try freshness.policy(cacheDirectory: cacheDirectory),
            fetching: fetch.settings,
            decoding: decoding.settings(decoder),
            measuring: comparing.settings(compare, repeats: measurement.repeats,
                                          defaultPath: defaultMetricsPath ?? state("metrics.jsonl")),
            output: output.paths(defaultSummary: state(SummaryFile.defaultFileName)),
            shard: shard, maxFailed: control.maxFailed)
    }

    /// Progress and each failure are logged at info, so a `--no-progress` run starts at notice: cron mails nothing on a
    /// good night, while `--log-level info` still brings the lines back for a person who wants them.
    func logger() -> Logger {
        LogSetup.logger(format: log.logFormat, level: log.logLevel, defaultLevel: output.noProgress ? .notice : .info)
    }

    /// Runs the pipeline with its live parts (the decoder, `measuringPool`, the crash rehearsal's faults) and maps its end
    /// to output and exit statuses. SIGTERM and SIGINT stop it gracefully (`SignalStop`).
    func warm(_ configuration: WarmConfiguration, measuringPool: MeasuringPool, logger: Logger) async throws -> WarmSummary {
        let summary: WarmSummary
        do {
            let decoder = decoder.makeDecoder(workers: configuration.decoding.concurrency)
            let progressBar = !output.noProgress
            let faults = CrashRehearsal.injector(environment: ProcessInfo.processInfo.environment)
            summary = try await SignalStop.run(grace: .seconds(control.stopGrace.seconds), logger: logger) { stop in
                try await WarmPipeline.run(configuration, decoder: decoder, measuringPool: measuringPool, faults: faults, logger: logger,
                                           progressBar: progressBar, stop: stop)
            }
        } catch {
            throw Console.failure(error)
        }
        print(summary.oneLine)
        if !summary.success, let reason = summary.reason { Console.error("error: \(reason)") }
        if let status = ExitStatus.of(summary.reasonCode) { throw status }
        return summary
    }
}
