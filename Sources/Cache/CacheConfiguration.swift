/// How a `DiskCache` behaves; the defaults suit the nightly warm-up job.
public struct CacheConfiguration: Sendable, Hashable {
    /// Entries younger than this are skipped, older ones revalidated; the default `expiresAt` of stores and 304s.
    public var maxAgeSeconds: Double
    /// How long a connection waits for SQLite's write lock before failing, in seconds.
    public var busyTimeoutSeconds: Double

    public init(maxAgeSeconds: Double = 12 * 3600, busyTimeoutSeconds: Double = 10) {
        self.maxAgeSeconds = maxAgeSeconds
        self.busyTimeoutSeconds = busyTimeoutSeconds
    }
}
