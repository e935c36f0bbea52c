import Cache
import WarmSupport
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Synchronization
import NIOCore
import NIOPosix

/// `warm cache serve`: a read-only HTTP origin beside the nightly writer, answering from an in-memory index of the
/// manifest (`OriginIndex`) and a hot set of checked bodies. It starts on an empty directory and serves once a run has
/// made a manifest. Call `close()` once its `RunningServer` has stopped.
public final class Origin: Sendable {
    let configuration: OriginConfiguration
    public let metrics = OriginMetrics()
    static let serverName = "warm-origin"
    let index: OriginIndex
    let threadPool: NIOThreadPool
    private let refresher = Mutex<Task<Void, Never>?>(nil)
    private let adminServer = Mutex<RunningServer?>(nil)

    /// Throws when the directory is missing, or when its manifest (the published snapshot, else the live one) exists
    /// but cannot be read (broken; a live one not in WAL mode).
    public init(cacheDirectory: String, configuration: OriginConfiguration = OriginConfiguration()) throws(CacheError) {
        var isDirectory: ObjCBool = false
        let root = CacheLayout(root: cacheDirectory).root
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .fileSystem(operation: "open the cache directory", path: root, errno: ENOENT)
        }
        self.configuration = configuration
        index = OriginIndex(root: root, readerCount: configuration.readerCount, hotSetBytes: configuration.hotSetBytes)
        try index.refresh()
        threadPool = NIOThreadPool(numberOfThreads: max(1, configuration.readerCount))
        threadPool.start()
    }

    /// Returns once the server listens; with `handlingSignals`, SIGTERM and SIGINT stop it gracefully. With an
    /// `adminPort`, the probes and `/metrics` listen there first (`adminURL`), not on the returned server's port;
    /// `close()` stops them.
    public func start(handlingSignals: Bool, logger: Logger) async throws -> RunningServer {
        startRefreshing(logger: logger)
        if let adminPort = configuration.adminPort {
            let admin = try await RunningServer.start(
                router: adminRouter(), host: configuration.host, port: adminPort, serverName: Self.serverName + "-admin",
                gracePeriodSeconds: Double(configuration.gracePeriodSeconds), logger: logger)
            adminServer.withLock { $0 = admin }
        }
        // The idle timeout is `ThumbnailChannelHandler`'s: Hummingbird's would not see the requests answered below it.
        let idleTimeout = TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds))
        return try await RunningServer.start(
            router: publicRouter(logger: logger), host: configuration.host, port: configuration.port,
            server: HTTPServerBuilder { responder in
                OriginHTTP1Channel(responder: responder, origin: self, idleTimeout: idleTimeout,
                                   maxHeaderBytes: self.configuration.maxHeaderBytes)
            },
            serverName: Self.serverName, maxConnections: configuration.maxConnections,
            gracePeriodSeconds: Double(configuration.gracePeriodSeconds), handlingSignals: handlingSignals,
            logger: logger)
    }

    /// The admin port's base URL once `start` has opened it; nil without `adminPort`.
    public var adminURL: URL? { adminServer.withLock { $0 }?.baseURL }

    public func close() async {
        refresher.withLock { $0 }?.cancel()
        await adminServer.withLock { $0 }?.shutdown()
        try? await threadPool.shutdownGracefully()
        index.close()
    }

    /// Polls the manifest on the origin's threads; an unreadable manifest is logged once per change of reason.
    private func startRefreshing(logger: Logger) {
        let interval = Duration.milliseconds(max(10, configuration.refreshIntervalMilliseconds))
        let task = Task { [index, threadPool] in
            var lastFailure: String?
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let failure = await BlockingWork.run(on: threadPool) { () -> String? in
                    do throws(CacheError) { try index.refresh() } catch { return error.description }
                    return nil
                }
                if let failure, failure != lastFailure {
                    logger.error("the manifest cannot be read", metadata: ["cache": "\(index.root)", "error": "\(failure)"])
                }
                lastFailure = failure
            }
        }
        refresher.withLock { $0 = task }
    }

    /// Thumbnails and the app manifest, plus the probes and `/metrics` when there is no admin port. `HEAD` answers
    /// wherever `GET` does, with the same headers and no body (Hummingbird's generated `HEAD` routes; the thumbnail's
    /// own, which `ThumbnailChannelHandler` also answers, counts a `HEAD` as sending no body).
    private func publicRouter(logger: Logger) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.get(RouterPath(Self.thumbnailPath)) { request, _ in await self.respond(to: request, head: false, logger: logger) }
        router.head(RouterPath(Self.thumbnailPath)) { request, _ in await self.respond(to: request, head: true, logger: logger) }
        router.get("/v1/manifest") { request, _ in await self.appManifest(request, logger: logger) }
        if configuration.adminPort == nil { addAdminRoutes(to: router) }
        return router
    }

    private func adminRouter() -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        addAdminRoutes(to: router)
        return router
    }

    /// `/livez` reads nothing but answers while the server's event loops and tasks run (a liveness probe that a slow
    /// shared volume cannot fail); `/healthz` is readiness; `/metrics` reads the runs' summaries on every scrape.
    private func addAdminRoutes(to router: Router<BasicRequestContext>) {
        router.get("/livez") { _, _ in Self.plain(.ok, "ok") }
        router.get("/healthz") { _, _ in self.health() }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: await self.metrics.exposition(self.indexMetrics()))))
        }
    }

    /// 200 once the manifest has been read, and while a newer one cannot be (the last good index is served); 503
    /// before a run has made one, or while the first one cannot be read.
    private func health() -> Response {
        switch index.snapshot.status {
        case .ready:
            guard let failure = index.reloadFailure else { return Self.plain(.ok, "ok") }
            return Self.plain(.ok, "ok, serving the last manifest read; the newest cannot be read: \(failure)")
        case .noManifest:
            return Self.plain(.serviceUnavailable, "no manifest yet")
        case .unreadable(let reason):
            return Self.plain(.serviceUnavailable, "the manifest cannot be read: \(reason)")
        }
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// The index's gauges, for `/metrics`: what it holds, when it was read, and whether the newest manifest fails.
    private func indexMetrics() -> String {
        let snapshot = index.snapshot
        var text = PrometheusText()
        text.family("warm_origin_index_files", type: "gauge", help: "Thumbnail files the origin's index holds.")
        text.sample("warm_origin_index_files", "\(snapshot.fileCount)")
        text.family("warm_origin_index_loaded_timestamp_seconds", type: "gauge",
                    help: "When the index was last read from the manifest (Unix time); 0 before the first read.")
        text.sample("warm_origin_index_loaded_timestamp_seconds", "\(snapshot.loadedAtSeconds ?? 0)")
        text.family("warm_origin_index_reload_failing", type: "gauge",
                    help: "1 while the newest manifest cannot be opened or read (the last good index is served), else 0.")
        text.sample("warm_origin_index_reload_failing", index.reloadFailure == nil ? "0" : "1")
        return text.text
    }
}
