import Foundation
import GRDB
import Logging

extension CacheMaintenance {
    /// Down to `maxBytes`: first the rows last listed before `listedSince` (the run's start: what tonight's list did not
    /// name), then the others, each least recently used first (expired first at equal access). nil: since
    /// `listingWindowSeconds` before the newest listing in the manifest (a merge, which does not know the shards' starts).
    /// Rows go before files (LAYOUT.md, "Eviction"): a crash in between leaves orphan files, never a row naming a
    /// missing file.
    @discardableResult
    public func evict(maxBytes: Int, listedSince: Double? = nil,
                      now: Double = Date().timeIntervalSince1970) throws(CacheError) -> RemovalResult {
        try evict(maxBytes: maxBytes, listedSince: listedSince, now: now, alsoDeletingFrom: [])
    }

    /// A row listed within this of the manifest's newest listing counts as listed by the same night: nights are 24 h
    /// apart, and one night's runs (every shard) start within minutes of each other and end within their 3 h deadline.
    static let listingWindowSeconds: Double = 20 * 3600

    /// `evict`, deleting the victims' rows from `shardManifests` as well, before this manifest's rows.
    func evict(maxBytes: Int, listedSince: Double?, now: Double,
               alsoDeletingFrom shardManifests: [(pool: DatabasePool, layout: CacheLayout)]) throws(CacheError) -> RemovalResult {
        try cache.removeEntries(after: .afterEvictedRowsDeleted, alsoDeletingFrom: shardManifests, removing: "an evicted file",
                                logging: "evicted entries, those the last list did not name first") { db, fileBytes in
            try Self.victims(db, fileBytes: fileBytes, maxBytes: maxBytes, listedSince: listedSince, now: now)
        }
    }

    private static func victims(_ db: Database, fileBytes: Int, maxBytes: Int, listedSince: Double?,
                                now: Double) throws -> [ManifestRow] {
        var remainingBytes = fileBytes
        guard remainingBytes > max(0, maxBytes) else { return [] }
        let newestListing = try Double.fetchOne(db, sql: "SELECT MAX(lastListedAt) FROM entry WHERE path IS NOT NULL") ?? 0
        let listed = listedSince ?? newestListing - listingWindowSeconds
        let candidates = try ManifestRow.fetchCursor(db, sql: """
            SELECT * FROM entry WHERE path IS NOT NULL
            ORDER BY (lastListedAt >= ?) ASC, lastAccessAt ASC, (expiresAt <= ?) DESC, url ASC, variant ASC
            """, arguments: [listed, now])
        var victims: [ManifestRow] = []
        while remainingBytes > maxBytes, let row = try candidates.next() {
            victims.append(row)
            remainingBytes -= row.outputBytes ?? 0
        }
        return victims
    }

    /// Evicts across the merged tree and every shard manifest, holding every shard's lock so no merge brings a row
    /// back. Merge first: rows not merged yet are neither counted nor evicted.
    @discardableResult
    func evictTree(maxBytes: Int, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> RemovalResult {
        try requireTree("evict a sharded tree through a shard's manifest")
        return try withEveryShardLocked { _, manifests throws(CacheError) in
            try evict(maxBytes: maxBytes, listedSince: nil, now: now, alsoDeletingFrom: manifests)
        }
    }
}
