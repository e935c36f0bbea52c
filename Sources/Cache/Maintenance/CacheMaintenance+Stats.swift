import Foundation
import GRDB

extension CacheMaintenance {
    /// From the manifest only; `now` decides which entries count as expired.
    public func stats(now: Double = Date().timeIntervalSince1970) throws(CacheError) -> CacheStats {
        try cache.read { db in
            let totals = try Row.fetchOne(db, sql: """
                SELECT
                    COUNT(*) FILTER (WHERE path IS NOT NULL) AS entryCount,
                    COUNT(*) FILTER (WHERE lastError IS NOT NULL) AS failedCount,
                    COALESCE(SUM(outputBytes) FILTER (WHERE path IS NOT NULL), 0) AS totalBytes,
                    MIN(fetchedAt) FILTER (WHERE path IS NOT NULL) AS oldestFetchedAt,
                    MAX(fetchedAt) FILTER (WHERE path IS NOT NULL) AS newestFetchedAt,
                    COUNT(*) FILTER (WHERE path IS NOT NULL AND expiresAt <= ?) AS expiredCount
                FROM entry
                """, arguments: [now])
            var variants: [String: CacheStats.VariantTotals] = [:]
            let perVariant = try Row.fetchAll(db, sql: """
                SELECT variant, COUNT(*) AS count, COALESCE(SUM(outputBytes), 0) AS bytes
                FROM entry WHERE path IS NOT NULL GROUP BY variant
                """)
            for row in perVariant {
                variants[row["variant"]] = CacheStats.VariantTotals(count: row["count"], bytes: row["bytes"])
            }
            return CacheStats(
                entryCount: totals?["entryCount"] ?? 0, failedCount: totals?["failedCount"] ?? 0,
                totalBytes: totals?["totalBytes"] ?? 0, variants: variants,
                oldestFetchedAt: totals?["oldestFetchedAt"], newestFetchedAt: totals?["newestFetchedAt"],
                expiredCount: totals?["expiredCount"] ?? 0)
        }
    }
}

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
