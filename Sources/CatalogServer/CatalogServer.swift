import Crawl
import Downsample
import Foundation
import Hummingbird
import Logging

/// An OpenMarket-compatible product API and object store in the process, on
/// loopback: `warm demo` and `warm serve` crawl it, tests hook into it.
///
/// Serves `GET /api/products?page_no=&items_per_page=` (in the configured page
/// shape), `GET /api/products/{id}` (with `images`), `GET /healthChecker` and
/// `GET /thumbnails/<yyyyMMdd>/<32 hex>_thumb` (with `ETag`, `Last-Modified`
/// and 304s). Start costs decoding the source photos (under a second); each
/// image is made on its first request (`CatalogImageStore`, `CatalogImageMix`);
/// memory is the photos, the bounded image cache and a small entry per product.
///
/// Call `shutdown()` when done: it stops the server gracefully and waits for
/// it to end.
public final class CatalogServer: Sendable {
    /// `http://host:port`, with the port actually bound.
    public let baseURL: URL
    public let port: Int
    public let configuration: CatalogConfiguration
    /// Request and response counts.
    public let stats: CatalogStats
    private let store: CatalogStore
    private let faults: FaultInjector
    private let server: LoopbackServer

    private init(server: LoopbackServer, configuration: CatalogConfiguration, stats: CatalogStats,
                 store: CatalogStore, faults: FaultInjector) {
        self.baseURL = server.baseURL
        self.port = server.port
        self.configuration = configuration
        self.stats = stats
        self.store = store
        self.faults = faults
        self.server = server
    }

    /// Decodes the source photos, binds `host:port` (0 picks a free port) and
    /// returns once the server listens. Without a `logger`, only warnings are logged.
    public static func start(configuration: CatalogConfiguration = CatalogConfiguration(),
                             host: String = "127.0.0.1", port: Int = 0, faultPlan: FaultPlan? = nil,
                             logger: Logger? = nil) async throws -> CatalogServer {
        let logger = logger ?? Self.quietLogger()
        let factory = try CatalogImageFactory(configuration: configuration)
        let images = CatalogImageStore(factory: factory, capacityBytes: configuration.imageCacheBytes)
        let store = CatalogStore(configuration: configuration, images: images)
        let stats = CatalogStats()
        let faults = FaultInjector()
        await faults.setPlan(faultPlan)
        let router = CatalogRoutes.router(store: store, stats: stats, faults: faults)

        if port != 0 {
            // A fixed port is known before binding: no request can see the URLs without a host.
            await store.setBaseURL("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
        }
        let server = try await LoopbackServer.start(router: router, host: host, port: port, logger: logger)
        await store.setBaseURL(server.baseURL.absoluteString)
        return CatalogServer(server: server, configuration: configuration, stats: stats, store: store, faults: faults)
    }

    /// The default logger: warnings and errors only, so a demo or test run is not
    /// buried under one line per request.
    private static func quietLogger() -> Logger {
        var logger = Logger(label: "warm.catalog")
        logger.logLevel = .warning
        return logger
    }

    /// Stops the server gracefully (see `LoopbackServer.shutdown()`) and waits until it has.
    public func shutdown() async {
        await server.shutdown()
    }

    // MARK: Test hooks

    /// The list as it is now, newest first, with absolute thumbnail URLs.
    public func products() async -> [Product] {
        await store.products()
    }

    /// Products in the list now (`totalCount`).
    public func productCount() async -> Int {
        await store.count
    }

    /// Lists `count` new products at the front of the list, pushing the others
    /// back, as new listings do on a live marketplace. Returns them.
    @discardableResult
    public func insertNewestProducts(count: Int) async -> [Product] {
        await store.insertNewest(count: count)
    }

    /// Lists `count` new products right after list page `pageNo` is next
    /// served, so a crawl in progress sees the list shift under it.
    public func insertNewestProducts(count: Int, afterServingPage pageNo: Int) async {
        await store.scheduleInsert(count: count, afterServingPage: pageNo)
    }

    /// Serves `fault` to the next `count` requests for `path` whose query
    /// contains `query` (e.g. `["page_no": "3"]`).
    public func injectFault(_ fault: CatalogFault, path: String, query: [String: String] = [:], count: Int = 1) async {
        await faults.add(fault, for: FaultTarget(path: path, query: query), count: count)
    }

    /// Answers the next `count` matching requests with `status` (and `Retry-After` when given).
    public func failNext(path: String, query: [String: String] = [:], count: Int = 1, status: Int = 503,
                         retryAfter: String? = nil) async {
        await injectFault(.status(status, retryAfter: retryAfter), path: path, query: query, count: count)
    }

    /// Drops every fault not yet served.
    public func clearFaults() async {
        await faults.clear()
    }

    /// Serves `plan`'s faults from now on (nil: none), with its request counts
    /// starting afresh; faults added with `injectFault` are served first.
    public func setFaultPlan(_ plan: FaultPlan?) async {
        await faults.setPlan(plan)
    }

    /// The image a path such as `thumbnails/20230323/<key>_thumb` shows (made
    /// now if need be), or nil for a path the catalog does not hold.
    public func image(atPath path: String) async throws -> CatalogImage? {
        try await store.image(atPath: path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// The thumbnail URL of a path such as `thumbnails/20230323/<key>_thumb`.
    public func url(path: String) -> URL {
        baseURL.appendingPathComponent(path)
    }
}
