import Foundation
import GRDB

extension DiskCache {
    /// Records that a run saw products pointing at `urls` (canonical or not):
    /// every variant's `lastListedAt` becomes at least `at`. URLs without a
    /// row are ignored. Commits in batches of `batchSize` URLs (one
    /// transaction each), so memory and lock time stay small for any catalog.
    /// Returns the number of rows updated.
    @discardableResult
    public func markListed(urls: some Sequence<CanonicalURL>, at: Double, batchSize: Int = 500) throws(CacheError) -> Int {
        try markListed(keys: urls.lazy.map(\.text), at: at, batchSize: batchSize)
    }

    /// `markListed` for URL text as products give it (canonicalised here;
    /// text that is no URL can match no row's key).
    @discardableResult
    public func markListed(urls: some Sequence<String>, at: Double, batchSize: Int = 500) throws(CacheError) -> Int {
        try markListed(keys: urls.lazy.map { (try? CanonicalURL($0).text) ?? $0 }, at: at, batchSize: batchSize)
    }

    private func markListed(keys: some Sequence<String>, at: Double, batchSize: Int) throws(CacheError) -> Int {
        var updated = 0
        var batch: [String] = []
        func flush() throws(CacheError) {
            guard !batch.isEmpty else { return }
            let urls = batch
            batch.removeAll(keepingCapacity: true)
            updated += try write { db in
                var count = 0
                try db.inTransaction {
                    count = try ManifestRow
                        .filter(urls.contains(ManifestRow.Columns.url) && ManifestRow.Columns.lastListedAt < at)
                        .updateAll(db, ManifestRow.Columns.lastListedAt.set(to: at))
                    return .commit
                }
                return count
            }
        }
        for key in keys {
            batch.append(key)
            if batch.count >= max(1, batchSize) { try flush() }
        }
        try flush()
        return updated
    }

    /// Removes every row (with or without a file) whose `lastListedAt` is
    /// before `cutoff`, and the files of those rows: images no listed product
    /// has pointed at since then. Call it only after a run that saw the whole
    /// product list, having marked what it saw with `markListed(urls:at:)`.
    ///
    /// Same order as `evict`: the rows go first, in one transaction committed
    /// with `synchronous = FULL`, then the files. A crash in between leaves
    /// orphan files (`verify` lists them, `collectGarbage` removes them), never
    /// a row naming a missing file. In a shard's manifest the pruned keys are
    /// also written to the `pruned` table, in the same transaction, so that
    /// `mergeShards` removes them from the tree's manifest too.
    @discardableResult
    public func prune(listedBefore cutoff: Double, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> PruneResult {
        let files = self.files, sharded = layout.shard != nil
        let (deleted, counted) = try write { db -> ([ManifestRow], PruneResult) in
            let victims = try ManifestRow.filter(ManifestRow.Columns.lastListedAt < cutoff)
                .order(ManifestRow.Columns.url, ManifestRow.Columns.variant).fetchAll(db)
            guard !victims.isEmpty else { return ([], PruneResult()) }
            // The deletions must be on disk before any file goes (see Manifest.open).
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                for victim in victims {
                    try victim.delete(db)
                    if sharded {
                        try PrunedKey(url: victim.url, variant: victim.variant, prunedAt: now).save(db)
                    }
                }
                return .commit
            }
            if let code = files.faults?(.afterPrunedRowsDeleted) {
                throw CacheError.fileSystem(operation: "prune (simulated crash after the rows were deleted)",
                                            path: files.layout.filesDirectory, errno: code)
            }
            var result = PruneResult(removedCount: victims.count)
            result.removedBytes = victims.reduce(0) { $0 + ($1.path == nil ? 0 : $1.outputBytes ?? 0) }
            return (victims, result)
        }
        var result = counted
        result.unremovedFileCount = removeFiles(of: deleted, removing: "a pruned file")
        if result.removedCount > 0 {
            logger.info("pruned entries no listed product points at any more", metadata: [
                "count": "\(result.removedCount)", "bytes": "\(result.removedBytes)",
            ])
        }
        return result
    }
}
