import ArgumentParser
import Cache
import Downsample
import Foundation
import Logging
import Pipeline
import WarmSupport

/// The options `warm run` and `warm demo` share: how to warm, where to write. `--help` shows them in groups by
/// purpose, one `@OptionGroup(title:)` each (a title set here overrides any inside the group).
struct WarmOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "On SIGTERM or SIGINT, how long the images in flight may take before they are cancelled.",
        discussion: "Keep it under Kubernetes' terminationGracePeriodSeconds (30 s by default); a second signal exits at once."))
    var stopGrace = DurationArgument(seconds: 20)

    @Option(help: ArgumentHelp(
        "Images that may fail before the run fails (exit 2): a count (5) or a share of the images scheduled (1%).",
        discussion: "Failed images within it are still listed in the summary (failedImages) and counted by reason. "
            + "A product list not read whole is not covered: that run exits 6.", valueName: "count|percent"))
    var maxFailed: FailureBudget = .default

    @OptionGroup(title: "Thumbnails") var thumbnails: ThumbnailOptions

    @OptionGroup(title: "Freshness and pruning") var freshness: FreshnessOptions

    @OptionGroup(title: "Fetching") var fetch: FetchOptions

    @OptionGroup(title: "Decoding") var decoding: WarmDecodeOptions

    @OptionGroup(title: "Measuring") var comparing: CompareOptions

    @OptionGroup(title: "Measuring") var measurement: MeasurementOptions

    @OptionGroup(title: "Output") var output: OutputOptions

    /// The run's whole configuration in one value. `defaultMetricsPath`
    /// (nil: the run's state directory) is used when measuring without `--metrics`. Throws when a `--max-cache-size`
    /// share cannot be sized (the file system's size is read here, as the run starts).
    func configuration(api: URL, cacheDirectory: String, compare: CompareSelection, shard: CacheShard?,
                       defaultMetricsPath: String? = nil, defaultFormats: [OutputFormat] = WarmConfiguration.defaults.formats) throws -> WarmConfiguration {
        // A shard's own state directory, so shards sharing one cache directory never write the same file.
        let state = { (file: String) in CacheLayout(root: cacheDirectory, shard: shard).stateDirectory + "/" + file }
        var configuration = WarmConfiguration(apiURL: api, cacheDirectory: cacheDirectory)
        configuration.sizes = thumbnails.sizes
        configuration.formats = thumbnails.formatLists.isEmpty ? defaultFormats : thumbnails.formatLists.flatMap(\.formats)
        (configuration.quality, configuration.encoderSettings) = thumbnails.encoding
        configuration.itemsPerPage = fetch.itemsPerPage
        configuration.pageConcurrency = fetch.pageConcurrency
        configuration.fetchConcurrency = fetch.concurrency
        configuration.decodeConcurrency = decoding.workers
        configuration.limits = DecodeLimits(maxPixels: decoding.decoder.maxPixels, maxEncodedBytes: fetch.maxImageSize.bytes)
        configuration.maxAgeSeconds = freshness.maxAge.seconds
        configuration.maxCacheBytes = try freshness.maxCacheSize?.bytes(forCacheAt: cacheDirectory, option: "--max-cache-size")
        configuration.compare = compare
        configuration.metricsPath = compare == .none ? nil : comparing.metrics ?? defaultMetricsPath ?? state("metrics.jsonl")
        configuration.summaryPath = output.summary ?? state(SummaryFile.defaultFileName)
        configuration.prometheusPath = output.prometheusFile
        configuration.exportPath = output.export
        configuration.shard = shard
        configuration.allowedHosts = fetch.allowedHosts
        configuration.measuringPool = measurement.pool()
        configuration.measureRepeats = measurement.repeats
        configuration.pruneAfterSeconds = freshness.pruneAfter.seconds
        configuration.maxFailed = maxFailed
        configuration.cacheFaults = CrashRehearsal.injector(environment: ProcessInfo.processInfo.environment)
        return configuration
    }
}

extension WarmOptions {
    /// Runs the pipeline for `warm run` and `warm demo` and maps its end to output and exit statuses. SIGTERM and
    /// SIGINT stop it gracefully (`SignalStop`).
    func warm(_ configuration: WarmConfiguration, logger: Logger) async throws -> WarmSummary {
        let summary: WarmSummary
        do {
            let fetch = fetch.configuration
            let decoder = decoding.decoder.makeDecoder(workers: configuration.decodeConcurrency)
            summary = try await SignalStop.run(grace: .seconds(stopGrace.seconds), logger: logger) { stop in
                try await WarmPipeline.run(configuration, fetch: fetch, decoder: decoder, logger: logger,
                                           progressBar: !output.noProgress, stop: stop)
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

/// Which images `warm run` and `warm demo` measure with all three strategies
/// beyond their own `--compare`, and where the records go.
struct CompareOptions: ParsableArguments {
    @Option(help: "Measure about one image in N (chosen by URL hash, the same every run); overrides --compare.")
    var compareOneIn: Int?

    @Option(help: "Metrics file (JSON Lines; a CSV is written beside it). Default: metrics.jsonl in the run's state directory (warm demo: in --dir).")
    var metrics: String?

    func validate() throws {
        if let n = compareOneIn, n < 1 { throw ValidationError("--compare-one-in must be at least 1.") }
    }

    /// `--compare-one-in` when given, else what the command's `--compare` chose.
    func selection(otherwise chosen: CompareSelection) -> CompareSelection {
        compareOneIn.map { .oneIn($0) } ?? chosen
    }
}
