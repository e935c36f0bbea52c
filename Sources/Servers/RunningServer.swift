import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// The one start-up of a Hummingbird server (`warm serve`, `warm cache serve`, tests), run until `shutdown()` or a
/// signal; stops gracefully, requests in progress get `gracePeriodSeconds`.
public final class RunningServer: Sendable {
    public let baseURL: URL
    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, any Error>

    private init(baseURL: URL, serviceGroup: ServiceGroup, runTask: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.serviceGroup = serviceGroup
        self.runTask = runTask
    }

    /// Returns once the server listens (port 0 picks a free one). Without a `logger`, only warnings are logged.
    public static func start<Context: RequestContext>(
        router: Router<Context>, host: String = "127.0.0.1", port: Int = 0, server: HTTPServerBuilder = .http1(),
        serverName: String = "warm", maxConnections: Int? = nil, gracePeriodSeconds: Double = 2,
        handlingSignals: Bool = false, logger: Logger? = nil
    ) async throws -> RunningServer where Context: InitializableFromSource<ApplicationRequestContextSource> {
        let logger = logger ?? {
            var logger = Logger(label: "warm.server")
            logger.logLevel = .warning
            return logger
        }()
        let (bound, boundContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: serverName,
                                 availableConnectionsDelegate: maxConnections.map { MaximumAvailableConnections($0) }),
            onServerRunning: { channel in
                boundContinuation.yield(channel.localAddress?.port ?? port)
                boundContinuation.finish()
            },
            logger: logger)
        var configuration = ServiceGroupConfiguration(
            services: [app], gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [], logger: logger)
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
            throw ServerError.didNotStart(server: serverName, host: host, port: port, reason: reason)
        }
        guard let baseURL = URL(string: "http://\(urlHost(host)):\(boundPort)") else {
            await serviceGroup.triggerGracefulShutdown()
            _ = await runTask.result
            throw ServerError.didNotStart(server: serverName, host: host, port: boundPort,
                                          reason: "no URL can be made for it")
        }
        return RunningServer(baseURL: baseURL, serviceGroup: serviceGroup, runTask: runTask)
    }

    /// `host` as a URL spells it (IPv6 in brackets).
    public static func urlHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
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

enum ServerError: Error, Sendable, CustomStringConvertible {
    /// Usually because the address was taken.
    case didNotStart(server: String, host: String, port: Int, reason: String)

    var description: String {
        switch self {
        case .didNotStart(let server, let host, let port, let reason):
            return "The \(server) server could not listen on \(host):\(port): \(reason)."
        }
    }
}
