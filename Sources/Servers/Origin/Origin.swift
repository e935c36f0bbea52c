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
    public let configuration: OriginConfiguration
    public let metrics = OriginMetrics()
    static let serverName = "warm-origin"
    let index: OriginIndex
    let threadPool: NIOThreadPool
    private let refresher = Mutex<Task<Void, Never>?>(nil)

    /// Throws when the directory is missing, or when its manifest exists but cannot be read (not WAL, broken).
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

    /// Returns once the server listens; with `handlingSignals`, SIGTERM and SIGINT stop it gracefully.
    public func start(handlingSignals: Bool, logger: Logger) async throws -> RunningServer {
        startRefreshing(logger: logger)
        // The idle timeout is `ThumbnailChannelHandler`'s: Hummingbird's would not see the requests answered below it.
        let idleTimeout = TimeAmount.seconds(Int64(configuration.idleTimeoutSeconds))
        return try await RunningServer.start(
            router: router(logger: logger), host: configuration.host, port: configuration.port,
            server: HTTPServerBuilder { responder in
                OriginHTTP1Channel(responder: responder, origin: self, idleTimeout: idleTimeout,
                                   maxHeaderBytes: self.configuration.maxHeaderBytes)
            },
            serverName: Self.serverName, maxConnections: configuration.maxConnections,
            gracePeriodSeconds: Double(configuration.gracePeriodSeconds), handlingSignals: handlingSignals,
            logger: logger)
    }

    public func close() async {
        refresher.withLock { $0 }?.cancel()
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

    private func router(logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        router.get(RouterPath(Self.thumbnailPath)) { request, _ in await self.respond(to: request, head: false, logger: logger) }
        router.head(RouterPath(Self.thumbnailPath)) { request, _ in await self.respond(to: request, head: true, logger: logger) }
        router.get("/v1/manifest") { request, _ in await self.appManifest(request, logger: logger) }
        router.get("/healthz") { _, _ in self.health() }
        let metrics = self.metrics
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: await metrics.exposition())))
        }
        return router
    }

    /// 200 once the manifest has been read; 503 before a run has made one, or while it cannot be read.
    private func health() -> Response {
        let (status, text): (HTTPResponse.Status, String) = switch index.snapshot.status {
        case .ready: (.ok, "ok")
        case .noManifest: (.serviceUnavailable, "no manifest yet")
        case .unreadable(let reason): (.serviceUnavailable, "the manifest cannot be read: \(reason)")
        }
        return Response(status: status, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}
