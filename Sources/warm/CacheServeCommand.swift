import ArgumentParser
import Foundation
import Origin

struct CacheServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a warmed cache over HTTP, read-only, while runs keep writing it (an origin for a CDN or the app).",
        discussion: """
            GET or HEAD /v1/thumbnail?url=<percent-encoded image URL>&size=<px>[&format=avif|webp|jpeg|png]: the cached \
            thumbnail with a strong ETag (SHA-256 of the body), Last-Modified and Cache-Control; 304 for a matching \
            If-None-Match or If-Modified-Since. Without format, the best format the cache holds that Accept allows \
            (AVIF, WebP, JPEG, PNG; AVIF and WebP only when named), with Vary: Accept. 404 for what the cache does not \
            hold (nothing is fetched or decoded), 400 for a malformed request. GET /v1/manifest: the app manifest \
            (`warm cache export`'s lines) gzipped, with an ETag. GET /healthz (503 until a run has made a manifest), \
            GET /metrics (Prometheus). Starts on an empty directory and serves once a run has written it.
            Prints http://HOST:PORT on standard output once listening; SIGTERM or SIGINT drains requests in flight.
            Exit status: 0 stopped; 1 no such directory, an unreadable manifest, or could not listen.
            """)

    @Argument(help: "The cache directory (a warm run's --cache-dir; for shards, the merged tree).")
    var directory: String

    @Option(help: "Address to listen on (0.0.0.0 for every interface, e.g. in a pod).")
    var host: String = "127.0.0.1"

    @Option(help: "TCP port (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Cache-Control max-age of a thumbnail (e.g. 1d).")
    var maxAge: DurationArgument = DurationArgument(argument: "1d")!

    @Option(help: "Cache-Control stale-while-revalidate of a thumbnail (e.g. 7d).")
    var staleWhileRevalidate: DurationArgument = DurationArgument(argument: "7d")!

    @Option(help: "Cache-Control max-age of a 404 (e.g. 60s).")
    var missMaxAge: DurationArgument = DurationArgument(argument: "60s")!

    @Option(help: "SQLite reader connections, and threads reading files.")
    var readers: Int = 4

    @Option(help: "Thumbnail bodies kept in memory (e.g. 64MB; default 64 MiB); 0 reads every body from disk.")
    var hotSetSize: ByteCount = ByteCount(argument: String(OriginConfiguration().hotSetBytes))!

    @Option(help: "Open connections at most.")
    var maxConnections: Int = 1024

    @Option(help: "Close a keep-alive connection idle this long (e.g. 60s).")
    var idleTimeout: DurationArgument = DurationArgument(argument: "60s")!

    @Option(help: "On SIGTERM, let requests in flight finish for up to this long.")
    var gracePeriod: DurationArgument = DurationArgument(argument: "10s")!

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        guard (1...64).contains(readers) else { throw ValidationError("--readers must be 1-64.") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1.") }
        guard idleTimeout.seconds >= 1 else { throw ValidationError("--idle-timeout must be at least 1s.") }
    }

    func run() async throws {
        let logger = LogSetup.logger("warm.origin")
        var configuration = OriginConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.maxAgeSeconds = Int(maxAge.seconds)
        configuration.staleWhileRevalidateSeconds = Int(staleWhileRevalidate.seconds)
        configuration.missMaxAgeSeconds = Int(missMaxAge.seconds)
        configuration.readerCount = readers
        configuration.maxConnections = maxConnections
        configuration.hotSetBytes = Int(hotSetSize.bytes)
        configuration.idleTimeoutSeconds = Int(idleTimeout.seconds)
        configuration.gracePeriodSeconds = Int(gracePeriod.seconds)
        let origin: Origin
        do {
            origin = try Origin(cacheDirectory: directory, configuration: configuration)
        } catch {
            throw Console.failure(error)
        }
        do {
            let running = try await origin.start(handlingSignals: true, logger: logger)
            logger.info("serving \(directory) at \(running.baseURL.absoluteString)/v1/thumbnail (SIGTERM to stop)")
            // Written unbuffered: a parent (tests, bench/origin_load.py) waits for this line.
            FileHandle.standardOutput.write(Data((running.baseURL.absoluteString + "\n").utf8))
            try await running.wait()
        } catch {
            await origin.close()
            throw Console.failure(error)
        }
        await origin.close()
    }
}
