import ArgumentParser
import DemoCatalog
import Crawl
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the built-in OpenMarket-compatible demo catalog on loopback until interrupted.",
        discussion: """
            Fault mode (--faults SPEC): a comma-separated list of SCOPE-KIND=SHARE[xN], to see how a client copes \
            with a misbehaving server. SCOPE is image (thumbnail URLs) or page (list pages; page 1 is never chosen). \
            KIND: an HTTP status such as 503 or 404 (429 comes with Retry-After: 1); slow (the body trickles in over \
            1 s); stall (half the body, then silence for 10 minutes); short (Content-Length of the whole body, half of \
            it, then the connection closes); reset (the connection closes before any answer); html (an HTML error \
            page with 200); redirect-loop (302 to itself with a growing hop parameter); endless (a body without \
            Content-Length that never ends); for pages also garbage (JSON cut off), shift (3 new products pushed in \
            front after the page is served), repeat (the previous page's products under this page's number). \
            SHARE is a percentage (5%) or fraction (0.05) of URLs, all when omitted; xN makes the fault transient: \
            only the first N requests of each chosen URL fail. Which URLs are chosen depends only on --fault-seed, \
            the kind and the URL, so a re-run meets the same faults.
            Example: warm serve --faults image-503=5%,image-429=3%x1,image-stall=2%,page-garbage=10% --fault-seed 7
            """)

    @OptionGroup var catalog: CatalogOptions

    @Option(help: "Page shape: camelCase (pageNo, lastPage...) or snakeCase (page_no, last_page...).")
    var pageShape: PageShape = CatalogConfiguration().pageShape

    @Option(help: "Seed of the generated catalog (same seed, same catalog).")
    var seed: UInt64 = CatalogConfiguration().seed

    @Option(help: "Misbehave on purpose for a share of URLs, e.g. image-503=5%,image-reset=2%,page-garbage=10% (see below).")
    var faults: String?

    @Option(help: "Seed choosing which URLs --faults hits (same seed, same URLs).")
    var faultSeed: UInt64 = FaultPlan.defaultSeed

    @OptionGroup var log: LogOptions

    @Option(help: ArgumentHelp("Stop when this process is no longer the parent (used by `warm demo`).", visibility: .hidden))
    var parentPid: Int32?

    func validate() throws {
        if let faults {
            do { _ = try FaultPlan(parsing: faults) } catch { throw ValidationError("--faults: \(error)") }
        }
    }

    func run() async throws {
        let logger = LogSetup.logger("warm.serve", format: log.logFormat, level: log.logLevel)
        let configuration = CatalogConfiguration(productCount: catalog.products, seed: seed, pageShape: pageShape,
                                                 imageMix: catalog.imageMix)
        let plan = try faults.map { try FaultPlan(parsing: $0, seed: faultSeed) }
        let server = try await CatalogServer.start(configuration: configuration, port: catalog.port, faultPlan: plan,
                                                   handlingSignals: true)
        logger.info("serving \(catalog.products) products (\(catalog.imageMix.rawValue) images) at \(server.baseURL.absoluteString)/api/products (Ctrl-C to stop)")
        if let plan { logger.info("fault mode: \(plan) (seed \(faultSeed))") }
        // Written unbuffered: a parent (`warm demo`) waits for this line.
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        async let _ = Self.stop(server, whenParentIsNot: parentPid)
        try await server.wait()
    }

    /// With `parentPID` (the demo's server), stops once that process is gone, so a killed demo leaves no server
    /// holding the port; the pid comes from the command line (a read could be late).
    private static func stop(_ server: CatalogServer, whenParentIsNot parentPID: pid_t?) async {
        guard let parentPID else { return }
        while getppid() == parentPID, !Task.isCancelled { try? await Task.sleep(for: .seconds(1)) }
        if !Task.isCancelled { await server.shutdown() }
    }
}

extension ServeCommand {
    /// The command line `warm demo` starts its catalog server with: kept next
    /// to the options it names, so the two cannot drift apart.
    static func childArguments(products: Int, port: Int, imageMix: CatalogImageMix) -> [String] {
        [configuration.commandName!, "--port", String(port), "--products", String(products),
         "--image-mix", imageMix.rawValue, "--parent-pid", String(getpid())]
    }
}

extension PageShape: ExpressibleByArgument {}
