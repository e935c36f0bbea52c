import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Runs a Hummingbird router on a local address until `shutdown()`: the engine under `CatalogServer`, and
/// tests' own servers. `shutdown()` stops gracefully: requests in progress get `gracePeriodSeconds`.
public final class LoopbackServer: Sendable {
    public let baseURL: URL
    public let port: Int
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(baseURL: URL, port: Int, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.port = port
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// Returns once the server listens (port 0 picks a free one). Without a `logger`, only warnings are logged.
    public static func start<Context: RequestContext>(
        router: Router<Context>, host: String = "127.0.0.1", port: Int = 0, gracePeriodSeconds: Double = 2,
        logger: Logger? = nil
    ) async throws -> LoopbackServer where Context: InitializableFromSource<ApplicationRequestContextSource> {
        let logger = logger ?? {
            var logger = Logger(label: "warm.loopback")
            logger.logLevel = .warning
            return logger
        }()
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "warm-catalog"),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? port)
                boundContinuation.finish()
            },
            logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app], logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(Int64(max(0, gracePeriodSeconds) * 1000))
        let serviceGroup = ServiceGroup(configuration: configuration)
        let runTask = Task {
            defer { boundContinuation.finish() }
            try await serviceGroup.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let boundPort = await iterator.next() else {
            let reason: String
            switch await runTask.result {
            case .failure(let error): reason = String(describing: error)
            case .success: reason = "it stopped at once"
            }
            throw CatalogServerError.didNotStart(host: host, port: port, reason: reason)
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        guard let baseURL = URL(string: "http://\(urlHost):\(boundPort)") else {
            await serviceGroup.triggerGracefulShutdown()
            _ = await runTask.result
            throw CatalogServerError.didNotStart(host: host, port: boundPort, reason: "no URL can be made for it")
        }
        return LoopbackServer(baseURL: baseURL, port: boundPort, serviceGroup: serviceGroup, runTask: runTask)
    }

    public func shutdown() async {
        await serviceGroup.triggerGracefulShutdown()
        _ = await runTask.result
    }
}
