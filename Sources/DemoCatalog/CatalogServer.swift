import Crawl
import Downsample
import Foundation
import Hummingbird
import Logging
import Servers

/// An OpenMarket-compatible product API and image store on loopback, for `warm demo`, `warm serve` and tests
/// (routes in `CatalogRoutes`). Call `shutdown()` when done.
public struct CatalogServer: Sendable {
    let hooks: (any CatalogHooks)?
    let store: CatalogStore
    private let server: RunningServer
    /// `http://host:port`, with the port actually bound.
    public var baseURL: URL { server.baseURL }

    /// Binds `host:port` (0 picks a free port) and returns once the server listens; with `handlingSignals`, SIGTERM
    /// and SIGINT stop it gracefully. Without a `logger`, only warnings are logged.
    public static func start(configuration: CatalogConfiguration = CatalogConfiguration(),
                             host: String = "127.0.0.1", port: Int = 0, faultPlan: FaultPlan? = nil,
                             handlingSignals: Bool = false, logger: Logger? = nil,
                             hooks: (any CatalogHooks)? = nil) async throws -> CatalogServer {
        let images = try CatalogImageStore(configuration: configuration)
        let store = await CatalogStore(configuration: configuration, images: images)
        let middleware = CatalogMiddleware(hooks: hooks, faults: faultPlan.map(FaultInjector.init), store: store)
        let router = CatalogRoutes.router(store: store, middleware: middleware)

        if port != 0 {
            // A fixed port is known before binding: no request can see the URLs without a host.
            await store.setBaseURL("http://\(RunningServer.urlHost(host)):\(port)")
        }
        let server = try await RunningServer.start(router: router, host: host, port: port, serverName: "warm-catalog",
                                                   handlingSignals: handlingSignals, logger: logger)
        await store.setBaseURL(server.baseURL.absoluteString)
        return CatalogServer(hooks: hooks, store: store, server: server)
    }

    /// Returns when the server has stopped (a signal, or `shutdown()`).
    public func wait() async throws {
        try await server.wait()
    }

    /// Stops gracefully (see `RunningServer.shutdown()`) and waits until it has.
    public func shutdown() async {
        await server.shutdown()
    }
}

/// Tests' way into a running server: asked first for a fault to serve, and told of every answer (status 0: the
/// connection was closed instead).
public protocol CatalogHooks: Sendable {
    func fault(path: String, query: [String: String]) async -> CatalogFault?
    func answered(path: String, query: [String: String], status: Int, bodyBytes: Int, fault: Bool) async
}
