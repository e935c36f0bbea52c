import ArgumentParser
import CatalogServer
import Crawl
import Foundation

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the built-in OpenMarket-compatible demo catalog on loopback until interrupted.")

    @Option(help: "TCP port on 127.0.0.1 (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Number of products in the generated catalog.")
    var products: Int = 1336

    @Option(help: "Page shape: camelCase (pageNo, lastPage...) or snakeCase (page_no, last_page...).")
    var pageShape: PageShape = .camelCase

    @Option(help: "Seed of the generated catalog (same seed, same catalog).")
    var seed: UInt64 = CatalogConfiguration().seed

    @Flag(help: ArgumentHelp("Stop when the parent process goes away (used by `warm demo`).", visibility: .hidden))
    var exitWithParent = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        guard products >= 0 else { throw ValidationError("--products must not be negative.") }
    }

    func run() async throws {
        let logger = LogSetup.logger("warm.serve")
        var configuration = CatalogConfiguration()
        configuration.productCount = products
        configuration.pageShape = pageShape
        configuration.seed = seed
        let server = try await CatalogServer.start(configuration: configuration, port: port)
        logger.info("serving \(products) products at \(server.baseURL.absoluteString)/api/products (Ctrl-C to stop)")
        // Written unbuffered: a parent (`warm demo`) waits for this line.
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        // Stop on SIGINT/SIGTERM, or (for `warm demo`) when the parent goes away,
        // so that a killed demo does not leave its server holding the port.
        let (stop, stopNow) = AsyncStream<Void>.makeStream()
        Task {
            await SignalWaiter.waitForInterrupt()
            stopNow.yield()
        }
        if exitWithParent {
            let parent = getppid()
            Task {
                while getppid() == parent { try? await Task.sleep(for: .seconds(1)) }
                stopNow.yield()
            }
        }
        for await _ in stop { break }
        await server.shutdown()
    }
}

extension PageShape: ExpressibleByArgument {}
