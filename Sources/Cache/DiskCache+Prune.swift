import Foundation
import GRDB

extension DiskCache {
    /// One UPDATE per `batchSize` URLs, so memory and lock time stay small for any catalog.
    @discardableResult
    public func markListed(urls: [CanonicalURL], at: Double, batchSize: Int = 500) throws(CacheError) -> Int {
        var updated = 0
        let batchSize = max(1, batchSize)
        for start in stride(from: 0, to: urls.count, by: batchSize) {
            let batch = urls[start..<min(start + batchSize, urls.count)].map(\.text)
            updated += try write { db in
                try ManifestRow.filter(batch.contains(ManifestRow.Columns.url) && ManifestRow.Columns.lastListedAt < at)
                    .updateAll(db, ManifestRow.Columns.lastListedAt.set(to: at))
            }
        }
        return updated
    }

    /// Only after a run that saw (and `markListed`) the whole list. Rows before files, as `evict` (LAYOUT.md, "Prune");
    /// a shard also records the keys in `pruned`, so `mergeShards` removes them from the tree.
    @discardableResult
    public func prune(listedBefore cutoff: Double, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> RemovalResult {
        let sharded = layout.shard != nil
        return try removeEntries(after: .afterPrunedRowsDeleted, removing: "a pruned file",
                                 logging: "pruned entries no listed product points at any more") { db, _ in
            try ManifestRow.filter(ManifestRow.Columns.lastListedAt < cutoff)
                .order(ManifestRow.Columns.url, ManifestRow.Columns.variant).fetchAll(db)
        } alsoEach: { db, victim in
            if sharded { try PrunedKey(url: victim.url, variant: victim.variant, prunedAt: now).save(db) }
        }
    }
}
