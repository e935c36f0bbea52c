/// How a `DiskCache` behaves. Passed in by the caller; the defaults suit the
/// nightly warm-up job.
public struct CacheConfiguration: Sendable, Hashable {
    /// Freshness lifetime in seconds: entries fetched less than this long ago are
    /// skipped entirely by the pipeline; older ones are revalidated with a
    /// conditional request. Used as the default `expiresAt` of stores and 304s.
    public var maxAgeSeconds: Double
    /// How long a connection waits for SQLite's write lock before failing, in seconds.
    public var busyTimeoutSeconds: Double

    public init(maxAgeSeconds: Double = 12 * 3600, busyTimeoutSeconds: Double = 10) {
        self.maxAgeSeconds = maxAgeSeconds
        self.busyTimeoutSeconds = busyTimeoutSeconds
    }
}
