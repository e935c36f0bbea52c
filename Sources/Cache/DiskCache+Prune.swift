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
    public func prune(listedBefore cutoff: Double, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> PruneResult {
        let files = self.files, sharded = layout.shard != nil
        let deleted = try write { db in
            let victims = try ManifestRow.filter(ManifestRow.Columns.lastListedAt < cutoff)
                .order(ManifestRow.Columns.url, ManifestRow.Columns.variant).fetchAll(db)
            try Self.deleteDurably(victims, db) { victim in
                if sharded { try PrunedKey(url: victim.url, variant: victim.variant, prunedAt: now).save(db) }
            }
            if !victims.isEmpty { try files.failIfInjected(.afterPrunedRowsDeleted, path: files.layout.filesDirectory) }
            return victims
        }
        var result = PruneResult()
        result.removedCount = deleted.count
        result.removedBytes = deleted.reduce(0) { $0 + ($1.path == nil ? 0 : $1.outputBytes ?? 0) }
        result.unremovedFileCount = removeFiles(of: deleted, removing: "a pruned file")
        if result.removedCount > 0 {
            logger.info("pruned entries no listed product points at any more", metadata: [
                "count": "\(result.removedCount)", "bytes": "\(result.removedBytes)",
            ])
        }
        return result
    }
}
