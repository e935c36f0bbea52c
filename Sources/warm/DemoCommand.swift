import ArgumentParser
import CatalogServer
import Foundation
import Pipeline

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Start the built-in catalog server on loopback and warm a local cache from it: no network, no configuration.",
        discussion: "Everything goes under --dir: the cache, the run summary, and with --compare the metrics. Exit status: \(ExitStatus.documentation)")

    @Option(help: "Where the demo writes everything.")
    var dir: String = "warm-demo"

    @Option(help: "Products in the generated catalog (the seeds' catalog had 1,336).")
    var products: Int = 1336

    @Option(help: "Loopback port of the demo server. Fixed by default, because thumbnail URLs (the cache keys) include it: a second demo run then finds its cache warm.")
    var port: Int = 18_080

    @OptionGroup var options: WarmOptions

    @OptionGroup var compare: CompareOptions

    func validate() throws {
        guard products > 0 else { throw ValidationError("--products must be positive.") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
    }

    func run() async throws {
        let logger = LogSetup.logger()
        var catalog = CatalogConfiguration()
        catalog.productCount = products
        logger.info("starting the demo catalog server (\(products) products; generating its images)")
        let server = try await CatalogServer.start(configuration: catalog, port: port)
        let cacheDirectory = URL(fileURLWithPath: dir).appendingPathComponent("cache").path
        let metricsPath = compare.selection == .none ? nil
            : compare.metrics ?? URL(fileURLWithPath: dir).appendingPathComponent("metrics.jsonl").path
        let configuration = options.configuration(api: server.baseURL, cacheDirectory: cacheDirectory,
                                                  compare: compare.selection, metricsPath: metricsPath)
        let summary: WarmSummary
        do {
            summary = try await WarmRunner.run(configuration, progress: !options.noProgress, logger: logger)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        print("""
            catalog:  \(products) products served from \(server.baseURL.absoluteString)/api/products (stopped)
            cache:    \(cacheDirectory)  (warm cache stats \(cacheDirectory))
            summary:  \(configuration.summaryPath ?? "-")
            """)
        if let metricsPath { print("metrics:  \(metricsPath)") }
        if !summary.succeeded { throw ExitStatus.someFailed }
    }
}
