import ArgumentParser
import DemoCatalog
import Foundation
import Pipeline
import WarmMetrics
import WarmSupport

struct DemoCommand: AsyncParsableCommand, WarmCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the built-in catalog server on loopback and warm a local cache from it: no network, no configuration.",
        discussion: """
            Everything goes under --dir: the cache, the run summary, the per-image metrics of all three decode \
            strategies (metrics.jsonl, metrics.csv) and the memory comparison report (report/). \
            Exit status: \(ExitStatus.documentation)
            """)

    // Titled, because argument-parser lists untitled options after the titled groups.
    @OptionGroup(title: "Demo") var demo: DemoOptions

    @OptionGroup(title: "Demo") var catalog: CatalogOptions

    @OptionGroup var control: RunControlOptions

    @OptionGroup(title: "Thumbnails") var thumbnails: ThumbnailOptions

    @OptionGroup(title: "Detail images") var details: DetailOptions

    @OptionGroup(title: "Freshness and pruning") var freshness: FreshnessOptions

    @OptionGroup(title: "Fetching") var fetch: FetchOptions

    @OptionGroup(title: "Decoding") var decoding: WarmDecodeOptions

    @OptionGroup(title: "Decoding") var decoder: DecoderOptions

    @OptionGroup(title: "Measuring") var comparing: CompareOptions

    @OptionGroup(title: "Measuring") var measurement: MeasurementOptions

    @OptionGroup(title: "Output") var output: OutputOptions

    @OptionGroup(title: "Output") var log: LogOptions

    @OptionGroup(title: "Measuring") var measuring: DemoCompareOptions

    /// `--compare`, `--no-compare` and `--compare-one-in` together.
    var selection: CompareSelection {
        if measuring.noCompare { return .none }
        switch measuring.compare {
        case .sample: return comparing.selection(otherwise: .oneIn(Self.sampleOneIn))
        case .all: return comparing.selection(otherwise: .all)
        case .none: return .none
        }
    }

    /// The default sample: one image in this many.
    static let sampleOneIn = 5

    /// The demo reads the carousels of its newest this many products: each shows about four photos, each a phone's
    /// 2016x1512 upload the catalog server makes and the warm caches at 1080 px in three formats; about 210 images, and
    /// all 1,336 products' would make the demo several times longer.
    static let detailProducts = 50

    /// The demo writes the formats a phone app would serve, so its report compares them; `warm run` writes JPEG only.
    static let defaultFormats: [OutputFormat] = [.jpeg, .webp, .avif]

    func run() async throws {
        let logger = logger()
        logger.info("starting the demo catalog server (\(catalog.products) products, \(catalog.imageMix.rawValue) images made on first request)")
        let server = try await ServerProcess.start(products: catalog.products, port: catalog.port, imageMix: catalog.imageMix,
                                                logFormat: log.logFormat)
        let cacheDirectory = URL(fileURLWithPath: demo.dir).appendingPathComponent("cache").path
        let configuration = try configuration(
            source: .openMarket(api: server.baseURL), cacheDirectory: cacheDirectory, compare: selection, shard: nil,
            defaultMetricsPath: URL(fileURLWithPath: demo.dir).appendingPathComponent("metrics.jsonl").path,
            defaultFormats: Self.defaultFormats,
            defaultDetails: WarmConfiguration.Details(enabled: true, productLimit: Self.detailProducts))
        let pool = measurement.pool()
        do {
            _ = try await warm(configuration, measuringPool: pool, logger: logger)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        print("""
            catalog:  \(catalog.products) products served from \(server.baseURL.absoluteString)/api/products (stopped)
            cache:    \(cacheDirectory)  (warm cache stats \(cacheDirectory))
            summary:  \(configuration.output.summaryPath ?? "-")
            """)
        if let metricsPath = configuration.measuring.metricsPath {
            let reportDirectory = URL(fileURLWithPath: demo.dir).appendingPathComponent("report").path
            let output = try await ReportGenerator.generate(metricsPaths: [metricsPath], outputDirectory: reportDirectory,
                                                            noisePool: pool)
            print("metrics:  \(metricsPath) (and .csv)")
            print("report:   \(output.paths.joined(separator: ", "))")
            print(output.summary)
        }
    }
}

/// Where the demo writes.
struct DemoOptions: ParsableArguments {
    @Option(help: "Where the demo writes everything.")
    var dir: String = "warm-demo"
}

/// How much the demo measures.
struct DemoCompareOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Which images to measure with all three strategies: sample (about one in \(DemoCommand.sampleOneIn), chosen by URL hash, so that the demo takes minutes), all, or none.",
        valueName: "sample|all|none"))
    var compare: DemoCompare = .sample

    @Flag(help: "Only warm the cache (the same as --compare none).")
    var noCompare = false
}

/// `warm demo --compare`.
enum DemoCompare: String, ExpressibleByArgument, CaseIterable {
    case sample, all, none
}
