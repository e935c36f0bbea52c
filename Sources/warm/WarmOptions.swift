import ArgumentParser
import Cache
import Downsample
import Foundation
import Logging
import Pipeline

/// The options `warm run` and `warm demo` share: how to warm, where to write.
struct WarmOptions: ParsableArguments {
    @Option(name: .customLong("size"), help: "Longest side of a cached variant, in pixels; repeat for several variants.")
    var sizes: [Int] = [300]

    @Option(name: .customLong("format"), help: ArgumentHelp(
        "Cached thumbnail formats: jpeg, webp, avif or png, comma-separated or repeated (default: jpeg; the demo: jpeg,webp,avif).",
        discussion: "Every --size is written in every format: WebP, AVIF and PNG from one libvips decode per size, JPEG through the direct libjpeg path when it takes the image.", valueName: "formats"))
    var formatLists: [FormatList] = []

    @Option(help: "Encoder quality of JPEG and WebP, 1-100 (AVIF uses Q \(OutputFormat.avifQuality)).")
    var quality: Int = 82

    @Option(help: "Downloads in flight at once.")
    var concurrency: Int = 16

    @Option(help: "Images decoded at once, one decode worker process each (default: the number of cores).")
    var decodeConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount

    @OptionGroup var decoder: DecoderOptions

    @OptionGroup var fetch: FetchOptions

    @OptionGroup var comparing: CompareOptions

    @OptionGroup var measurement: MeasurementOptions

    @Option(help: "Products per list page requested from the API.")
    var itemsPerPage: Int = 100

    @Option(help: "List pages fetched at once.")
    var pageConcurrency: Int = 4

    @Option(help: "Evict least-recently-used entries after the run until the cache is at most this size (e.g. 500MB).")
    var maxCacheSize: ByteCount?

    @Option(help: ArgumentHelp(
        "Remove cache entries no listed product has pointed at for longer than this (e.g. 7d; 0: whatever this run did not see).",
        discussion: "Only a run that saw the whole product list prunes: after a failed page or an early stop nothing is removed."))
    var pruneAfter: DurationArgument = DurationArgument(argument: "7d")!

    @Option(help: "Freshness lifetime (e.g. 12h): younger entries are skipped, older ones revalidated with a conditional request.")
    var maxAge: DurationArgument = DurationArgument(argument: "12h")!

    @Option(help: "Refuse source images larger than this (e.g. 64MB).")
    var maxImageSize: ByteCount = ByteCount(argument: "64MiB")!

    @Option(help: "Write the JSON summary of the run here (default: <cache-dir>/last-run.json).")
    var summary: String?

    @Option(help: "Write Prometheus text-format metrics here, for node_exporter's textfile collector.")
    var prometheusFile: String?

    @Option(help: "After the run, write the app manifest here (JSON Lines, as `warm cache export` writes it).")
    var export: String?

    @Option(help: ArgumentHelp(
        "On SIGTERM or SIGINT, how long the images in flight may take before they are cancelled (e.g. 20s).",
        discussion: "Keep it under Kubernetes' terminationGracePeriodSeconds (30 s by default); a second signal exits at once."))
    var stopGrace: DurationArgument = DurationArgument(argument: "20s")!

    @Option(help: ArgumentHelp(
        "Images that may fail before the run fails (exit 2): a count (5) or a share of the images scheduled (1%).",
        discussion: "Failed images within it are still listed in the summary (failedImages) and counted by reason. "
            + "A product list not read whole is not covered: that run exits 6.", valueName: "count|percent"))
    var maxFailed: FailureBudget = .default

    @Flag(help: "Never draw a progress bar, even on a terminal.")
    var noProgress = false

    func validate() throws {
        guard !sizes.isEmpty else { throw ValidationError("--size must be a positive number of pixels.") }
        for size in sizes { try OptionCheck.count(size, in: 1...OptionCheck.maximumSide, option: "--size") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
        try OptionCheck.count(concurrency, in: 1...10_000, option: "--concurrency")
        try OptionCheck.count(decodeConcurrency, in: 1...1024, option: "--decode-concurrency")
        try OptionCheck.count(pageConcurrency, in: 1...1000, option: "--page-concurrency")
        guard (1...1000).contains(itemsPerPage) else { throw ValidationError("--items-per-page must be between 1 and 1000.") }
        guard maxImageSize.bytes > 0 else { throw ValidationError("--max-image-size must be positive.") }
        if let maxCacheSize, maxCacheSize.bytes == 0 {
            throw ValidationError("--max-cache-size must be positive (0 would evict everything the run warmed).")
        }
    }

    /// The run's whole configuration in one value. `defaultMetricsPath`
    /// (nil: the run's state directory) is used when measuring without `--metrics`.
    func configuration(api: URL, cacheDirectory: String, compare: CompareSelection, shard: CacheShard?,
                       defaultMetricsPath: String? = nil, defaultFormats: [OutputFormat] = [.jpeg]) -> WarmConfiguration {
        // A shard's own state directory, so shards sharing one cache directory never write the same file.
        let state = { (file: String) in CacheLayout(root: cacheDirectory, shard: shard).stateDirectory + "/" + file }
        var configuration = WarmConfiguration(apiURL: api, cacheDirectory: cacheDirectory)
        configuration.sizes = sizes
        configuration.formats = formatLists.isEmpty ? defaultFormats : formatLists.flatMap(\.formats)
        configuration.quality = quality
        configuration.itemsPerPage = itemsPerPage
        configuration.pageConcurrency = pageConcurrency
        configuration.fetchConcurrency = concurrency
        configuration.decodeConcurrency = decodeConcurrency
        configuration.limits = DecodeLimits(maxPixels: decoder.maxPixels, maxEncodedBytes: maxImageSize.bytes)
        configuration.maxAgeSeconds = maxAge.seconds
        configuration.maxCacheBytes = maxCacheSize?.bytes
        configuration.compare = compare
        configuration.metricsPath = compare == .none ? nil : comparing.metrics ?? defaultMetricsPath ?? state("metrics.jsonl")
        configuration.summaryPath = summary ?? state(SummaryFile.defaultFileName)
        configuration.prometheusPath = prometheusFile
        configuration.exportPath = export
        configuration.shard = shard
        configuration.allowedHosts = fetch.allowedHosts
        configuration.measuringPool = measurement.pool()
        configuration.measureRepeats = measurement.repeats
        configuration.pruneAfterSeconds = pruneAfter.seconds
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
            let fetch = fetch.configuration(maxBodyBytes: maxImageSize.bytes)
            let decoder = decoder.makeDecoder(workers: configuration.decodeConcurrency)
            summary = try await SignalStop.run(grace: .seconds(stopGrace.seconds), logger: logger) { stop in
                try await WarmPipeline.run(configuration, fetch: fetch, decoder: decoder, logger: logger,
                                           progressBar: !noProgress, stop: stop)
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
