/// The manifest summed for `warm cache stats` by a few SQL aggregates; files are not touched.
public struct CacheStats: Sendable, Hashable {
    public struct VariantTotals: Sendable, Hashable {
        public var count: Int
        public var bytes: Int
    }

    /// Entries with a file.
    public var entryCount: Int
    /// Entries whose latest fetch failed (with or without an older good file).
    public var failedCount: Int
    public var totalBytes: Int
    /// Entries with a file, by variant name ("300.jpg").
    public var variants: [String: VariantTotals]
    /// `fetchedAt` range among entries with a file (seconds since 1970).
    public var oldestFetchedAt: Double?
    public var newestFetchedAt: Double?
    /// Entries with a file whose `expiresAt` is not after `now`.
    public var expiredCount: Int
}
