import Cache
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Serving

/// `warm cache serve`: a read-only HTTP origin beside the nightly writer; memory is one thumbnail per request in
/// flight. Call `close()` once its `RunningServer` has stopped.
public final class Origin: Sendable {
    public let configuration: OriginConfiguration
    public let metrics = OriginMetrics()
    let reader: CacheReader
    let threadPool: NIOThreadPool

    public init(cacheDirectory: String, configuration: OriginConfiguration = OriginConfiguration()) throws(CacheError) {
        self.configuration = configuration
        reader = try CacheReader.open(root: cacheDirectory, readerCount: configuration.readerCount)
        threadPool = NIOThreadPool(numberOfThreads: max(1, configuration.readerCount))
        threadPool.start()
    }

    /// Returns once the server listens; with `handlingSignals`, SIGTERM and SIGINT stop it gracefully.
    public func start(handlingSignals: Bool, logger: Logger) async throws -> RunningServer {
        try await RunningServer.start(
            router: router(logger: logger), host: configuration.host, port: configuration.port,
            server: .http1(configuration: .init(
                idleTimeout: .seconds(Int64(configuration.idleTimeoutSeconds)),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: configuration.maxHeaderBytes,
                                                maxHeaderListSize: configuration.maxHeaderBytes, maxHeaderFieldCount: 100))),
            serverName: "warm-origin", maxConnections: configuration.maxConnections,
            gracePeriodSeconds: Double(configuration.gracePeriodSeconds), handlingSignals: handlingSignals,
            logger: logger)
    }

    public func close() async {
        try? await threadPool.shutdownGracefully()
        try? reader.close()
    }

    private func router(logger: Logger) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/v1/thumbnail") { request, _ in await self.respond(to: request, head: false, logger: logger) }
        router.head("/v1/thumbnail") { request, _ in await self.respond(to: request, head: true, logger: logger) }
        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        let metrics = self.metrics
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: await metrics.exposition())))
        }
        return router
    }
}
