import Cache
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `warm cache serve`: an HTTP origin for a warmed cache, read-only beside the nightly writer.
/// Routes: `GET`/`HEAD /v1/thumbnail?url=&size=[&format=]`, `GET /healthz`, `GET /metrics` (Prometheus).
/// Memory: the manifest's read-only pool, `readerCount` threads, one thumbnail per request in flight.
/// Call `close()` once the `RunningOrigin` has stopped.
public final class Origin: Sendable {
    public let configuration: OriginConfiguration
    public let metrics = OriginMetrics()
    private let reader: CacheReader
    private let threadPool: NIOThreadPool

    public init(cacheDirectory: String, configuration: OriginConfiguration = OriginConfiguration()) throws(CacheError) {
        self.configuration = configuration
        reader = try CacheReader.open(root: cacheDirectory, readerCount: configuration.readerCount)
        threadPool = NIOThreadPool(numberOfThreads: max(1, configuration.readerCount))
        threadPool.start()
    }

    /// Returns once the server listens. With `handlingSignals`, SIGTERM and SIGINT stop it gracefully:
    /// no new connections, requests in flight finish (up to `gracePeriodSeconds`).
    public func start(handlingSignals: Bool, logger: Logger) async throws -> RunningOrigin {
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        let requested = configuration.port
        let app = Application(
            router: router(logger: logger),
            server: .http1(configuration: .init(
                idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: configuration.maxHeaderBytes,
                                                maxHeaderListSize: configuration.maxHeaderBytes, maxHeaderFieldCount: 100))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "warm-origin",
                                 availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? requested)
                boundContinuation.finish()
            },
            logger: logger)
        var groupConfiguration = handlingSignals
            ? ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            : ServiceGroupConfiguration(services: [app], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = Duration.seconds(configuration.gracePeriodSeconds)
        let group = ServiceGroup(configuration: groupConfiguration)
        let runTask = Task {
            defer { boundContinuation.finish() }
            try await group.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let reason: String
            switch await runTask.result {
            case .failure(let error): reason = String(describing: error)
            case .success: reason = "it stopped at once"
            }
            throw OriginError.didNotStart(host: configuration.host, port: configuration.port, reason: reason)
        }
        return RunningOrigin(host: configuration.host, port: port, serviceGroup: group, runTask: runTask)
    }

    public func close() async {
        try? await threadPool.shutdownGracefully()
        try? reader.close()
    }

    private func router(logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        let thumbnails = ThumbnailResponder(reader: reader, threadPool: threadPool, configuration: configuration,
                                            metrics: metrics, logger: logger)
        router.get("/v1/thumbnail") { request, _ in await thumbnails.respond(to: request, head: false) }
        router.head("/v1/thumbnail") { request, _ in await thumbnails.respond(to: request, head: true) }
        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        let metrics = self.metrics
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.prometheusText())))
        }
        return router
    }
}

/// A started origin: its bound port, a wait for its end and a graceful stop.
public final class RunningOrigin: Sendable {
    public let port: Int
    public let baseURL: String
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    init(host: String, port: Int, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.port = port
        self.baseURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// Returns when the server has stopped (a signal, or `shutdown()`).
    public func wait() async throws {
        try await runTask.value
    }

    public func shutdown() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await runTask.result
    }
}
