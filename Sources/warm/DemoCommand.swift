import ArgumentParser
import DemoCatalog
import Foundation
import Pipeline
import WarmMetrics
import WarmSupport

struct DemoCommand: AsyncParsableCommand {
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

    @OptionGroup var options: WarmOptions

    @OptionGroup(title: "Measuring") var measuring: DemoCompareOptions

    /// `--compare`, `--no-compare` and `--compare-one-in` together.
    var selection: CompareSelection {
        if measuring.noCompare { return .none }
        switch measuring.compare {
        case .sample: return options.comparing.selection(otherwise: .oneIn(Self.sampleOneIn))
        case .all: return options.comparing.selection(otherwise: .all)
        case .none: return .none
        }
    }

    /// The default sample: one image in this many.
    static let sampleOneIn = 5

    /// The demo writes the formats a phone app would serve, so its report compares them; `warm run` writes JPEG only.
    static let defaultFormats: [OutputFormat] = [.jpeg, .webp, .avif]

    func run() async throws {
        let logger = options.output.logger()
        logger.info("starting the demo catalog server (\(demo.catalog.products) products, \(demo.catalog.imageMix.rawValue) images made on first request)")
        let server = try await ServerProcess.start(products: demo.catalog.products, port: demo.catalog.port, imageMix: demo.catalog.imageMix,
                                                logFormat: options.output.log.logFormat)
        let cacheDirectory = URL(fileURLWithPath: demo.dir).appendingPathComponent("cache").path
        let configuration = try options.configuration(
            api: server.baseURL, cacheDirectory: cacheDirectory, compare: selection, shard: nil,
            defaultMetricsPath: URL(fileURLWithPath: demo.dir).appendingPathComponent("metrics.jsonl").path,
            defaultFormats: Self.defaultFormats)
        do {
            _ = try await options.warm(configuration, logger: logger)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        print("""
            catalog:  \(demo.catalog.products) products served from \(server.baseURL.absoluteString)/api/products (stopped)
            cache:    \(cacheDirectory)  (warm cache stats \(cacheDirectory))
            summary:  \(configuration.summaryPath ?? "-")
            """)
        if let metricsPath = configuration.metricsPath {
            let reportDirectory = URL(fileURLWithPath: demo.dir).appendingPathComponent("report").path
            let output = try await ReportGenerator.generate(metricsPaths: [metricsPath], outputDirectory: reportDirectory,
                                                            noisePool: configuration.measuringPool)
            print("metrics:  \(metricsPath) (and .csv)")
            print("report:   \(output.paths.joined(separator: ", "))")
            print(output.summary)
        }
    }
}

/// Where the demo's catalog comes from and where it writes.
struct DemoOptions: ParsableArguments {
    @Option(help: "Where the demo writes everything.")
    var dir: String = "warm-demo"

    @OptionGroup var catalog: CatalogOptions
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
