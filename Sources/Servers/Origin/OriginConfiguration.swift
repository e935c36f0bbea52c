/// How `warm cache serve` listens and answers; every field has an option. Defaults suit a CDN in front.
public struct OriginConfiguration: Sendable, Hashable {
    /// Address to bind; loopback by default (put a proxy or CDN in front, or pass 0.0.0.0 in a pod).
    public var host: String
    /// 0 picks a free one.
    public var port: Int
    /// When set, `/livez`, `/healthz` and `/metrics` answer on this port of `host` only (404 on `port`), so a public
    /// Service on `port` exposes neither the version nor the runs' failure reasons; 0 picks a free one.
    var adminPort: Int?
    /// `Cache-Control` of a 200 or 304.
    public var maxAgeSeconds: Int
    public var staleWhileRevalidateSeconds: Int
    /// `max-age` of a 404, so a CDN does not ask again at once for an image the next warm may add.
    public var missMaxAgeSeconds: Int
    /// SQLite reader connections, and the threads that run them and the file reads of bodies not in memory.
    public var readerCount: Int
    /// Further connections wait in the listen backlog.
    public var maxConnections: Int
    public var idleTimeoutSeconds: Int
    /// 400 beyond.
    var maxQueryBytes: Int = 8192
    /// Request line plus headers at most (the connection gets 400 and is closed beyond).
    var maxHeaderBytes: Int = 16_384
    /// Thumbnails are a few KB; a larger file is an error, not a body.
    var maxFileBytes: Int = 16 << 20
    /// On SIGTERM, requests in progress may finish for this long.
    public var gracePeriodSeconds: Int
    /// How often the origin asks whether the manifest changed (one `PRAGMA data_version`); a store, eviction or prune
    /// reaches the answers within about this long.
    var refreshIntervalMilliseconds: Int = 100
    /// Thumbnail bodies kept in memory, checked, so a hot thumbnail costs no system call.
    public var hotSetBytes: Int

    /// The defaults, written once here: `warm cache serve --help` reads them from `OriginConfiguration()`.
    public init(host: String = "127.0.0.1", port: Int = 8080, adminPort: Int? = nil, maxAgeSeconds: Int = 86_400,
                staleWhileRevalidateSeconds: Int = 604_800, missMaxAgeSeconds: Int = 60, readerCount: Int = 4,
                maxConnections: Int = 1024, idleTimeoutSeconds: Int = 60, gracePeriodSeconds: Int = 10,
                hotSetBytes: Int = 64 << 20) {
        self.host = host
        self.port = port
        self.adminPort = adminPort
        self.maxAgeSeconds = maxAgeSeconds
        self.staleWhileRevalidateSeconds = staleWhileRevalidateSeconds
        self.missMaxAgeSeconds = missMaxAgeSeconds
        self.readerCount = readerCount
        self.maxConnections = maxConnections
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.gracePeriodSeconds = gracePeriodSeconds
        self.hotSetBytes = hotSetBytes
    }

    var cacheControl: String {
        "public, max-age=\(maxAgeSeconds), stale-while-revalidate=\(staleWhileRevalidateSeconds)"
    }
}
