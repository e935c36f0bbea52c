import ArgumentParser
import WarmSupport
import Foundation
import Servers
import Pipeline

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
            (`warm cache export`'s lines) gzipped, with an ETag. GET /livez (200 while the process answers; reads \
            no file), GET /healthz (readiness: 503 until a run has made a manifest), GET /metrics (Prometheus: the \
            origin's counters and the last run's figures from <dir>/last-run.json and every shard's, read on each \
            scrape): on --admin-port when given, and then not on --port. HEAD wherever GET answers. Starts on an \
            empty directory and serves once a run has written it. Reads <dir>/published/manifest.sqlite (the snapshot \
            `warm cache merge` publishes, immutable: safe from other hosts) when <dir>/published exists, else \
            <dir>/manifest.sqlite (same host as the runs).
            Prints http://HOST:PORT on standard output once listening (then http://HOST:ADMINPORT with \
            --admin-port); SIGTERM or SIGINT drains requests in flight.
            Exit status: 0 stopped; 1 no such directory, an unreadable manifest, or could not listen.
            """)

    @Argument(help: "The cache directory (a warm run's --cache-dir; for shards, the merged tree).")
    var directory: String

    /// Defaults written once, in `OriginConfiguration`.
    private static let defaults = OriginConfiguration()

    @Option(help: "Address to listen on (0.0.0.0 for every interface, e.g. in a pod).")
    var host: String = Self.defaults.host

    @Option(help: "TCP port (0 picks a free one). `warm serve`, the demo catalog, defaults to \(CatalogOptions.defaultPort), so both can run at once.")
    var port: Int = Self.defaults.port

    @Option(help: "Serve /livez, /healthz and /metrics on this port (same --host) instead of --port, so a public Service on --port exposes neither (0 picks a free one).")
    var adminPort: Int?

    // Optional, so that the old spelling below can be told apart; the help states the default itself.
    @Option(help: "Cache-Control max-age of a thumbnail: how long a CDN or browser keeps it without asking (formerly --max-age, still accepted until the next major release). (default: \(DurationArgument(seconds: Double(Self.defaults.maxAgeSeconds)).defaultValueDescription))")
    var cacheControlMaxAge: DurationArgument?

    // The old spelling of --cache-control-max-age, hidden and kept for one release (until 2.0): in `warm run`
    // --max-age is the cache's freshness, a different thing, so this command gave it up. Remove it then.
    @Option(name: .customLong("max-age"), help: .hidden)
    var oldMaxAge: DurationArgument?

    @Option(help: "Cache-Control stale-while-revalidate of a thumbnail.")
    var staleWhileRevalidate = DurationArgument(seconds: Double(Self.defaults.staleWhileRevalidateSeconds))

    @Option(help: "Cache-Control max-age of a 404.")
    var missMaxAge = DurationArgument(seconds: Double(Self.defaults.missMaxAgeSeconds))

    @Option(help: "SQLite reader connections, and threads reading files.")
    var readers: Int = Self.defaults.readerCount

    @Option(help: "Thumbnail bodies kept in memory (e.g. 64MB); 0 reads every body from disk.")
    var hotSetSize = ByteCount(bytes: Self.defaults.hotSetBytes)

    @Option(help: "Open connections at most.")
    var maxConnections: Int = Self.defaults.maxConnections

    @Option(help: "Close a keep-alive connection idle this long.")
    var idleTimeout = DurationArgument(seconds: Double(Self.defaults.idleTimeoutSeconds))

    @Option(help: "On SIGTERM, let requests in flight finish for up to this long.")
    var gracePeriod = DurationArgument(seconds: Double(Self.defaults.gracePeriodSeconds))

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535.") }
        if let adminPort {
            guard (0...65535).contains(adminPort) else { throw ValidationError("--admin-port must be 0-65535.") }
            guard adminPort == 0 || adminPort != port else { throw ValidationError("--admin-port must differ from --port.") }
        }
        guard (1...64).contains(readers) else { throw ValidationError("--readers must be 1-64.") }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1.") }
        guard idleTimeout.seconds >= 1 else { throw ValidationError("--idle-timeout must be at least 1s.") }
        if oldMaxAge != nil {
            guard cacheControlMaxAge == nil else {
                throw ValidationError("--max-age is the old spelling of --cache-control-max-age: give only --cache-control-max-age.")
            }
            Console.error("warning: `warm cache serve --max-age` is now --cache-control-max-age; the old spelling goes in the next major release.")
        }
    }

    /// Seconds of `Cache-Control: max-age` for a thumbnail, from either spelling.
    private var maxAgeSeconds: Int {
        (cacheControlMaxAge ?? oldMaxAge).map { Int($0.seconds) } ?? Self.defaults.maxAgeSeconds
    }

    func run() async throws {
        let logger = LogSetup.logger("warm.origin", format: log.logFormat, level: log.logLevel)
        let configuration = OriginConfiguration(
            host: host, port: port, adminPort: adminPort, maxAgeSeconds: maxAgeSeconds,
            staleWhileRevalidateSeconds: Int(staleWhileRevalidate.seconds), missMaxAgeSeconds: Int(missMaxAge.seconds),
            readerCount: readers, maxConnections: maxConnections, idleTimeoutSeconds: Int(idleTimeout.seconds),
            gracePeriodSeconds: Int(gracePeriod.seconds), hotSetBytes: Int(hotSetSize.bytes))
        let origin: Origin
        do {
            origin = try Origin(cacheDirectory: directory, configuration: configuration)
        } catch {
            throw Console.failure(error)
        }
        // The nightly runs' figures on /metrics: scraping the origin watches the Job, with no Pushgateway.
        origin.metrics.append { [directory] in await BlockingWork.run { LastRunMetrics.text(cacheDirectory: directory) } }
        do {
            let running = try await origin.start(handlingSignals: true, logger: logger)
            logger.info("serving \(directory) at \(running.baseURL.absoluteString)/v1/thumbnail (SIGTERM to stop)")
            // Written unbuffered: a parent (tests, bench/origin_load.py) waits for this line (and the admin one).
            let urls = [running.baseURL] + (origin.adminURL.map { [$0] } ?? [])
            FileHandle.standardOutput.write(Data(urls.map { $0.absoluteString + "\n" }.joined().utf8))
            try await running.wait()
        } catch {
            await origin.close()
            throw Console.failure(error)
        }
        await origin.close()
    }
}
