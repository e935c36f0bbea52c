import Foundation
import GRDB
import Logging

extension CacheMaintenance {
    /// `warm cache merge` and `warm cache evict`: holding the tree's lock (no unsharded run or other merge meanwhile),
    /// merges the shards, evicts down to `maxBytes`, and, `publishing`, publishes last, so the snapshot is the tree's
    /// manifest after the last step that changed it (`publishSnapshot`). `published/` is made before the tree's
    /// manifest is opened, so from then on origins read only snapshots, never the manifest being written.
    public static func mergeTree(root: String, maxBytes: Int?, publishing: Bool, logger: Logger)
        throws(CacheError) -> (merged: ShardMergeResult, evicted: RemovalResult?, published: String?) {
        let lock = try CacheLock.acquire(root: root)
        defer { lock.release() }
        if publishing { try preparePublishing(root: root) }
        let cache = try DiskCache.open(root: root, logger: logger)
        defer { try? cache.close() }
        let maintenance = cache.maintenance
        let merged = try maintenance.mergeShards(logger: logger)
        let evicted = try maxBytes.map { bytes throws(CacheError) in try maintenance.evictTree(maxBytes: bytes) }
        return (merged, evicted, publishing ? try maintenance.publishSnapshot() : nil)
    }

    /// Each shard merges under its own lock (a running one is refused); the newer row wins (`mergedRow`), idempotently,
    /// so an interrupted merge completes by running it again. Memory: one batch of rows at a time.
    @discardableResult
    func mergeShards(batchSize: Int = 2_000, logger: Logger? = nil) throws(CacheError) -> ShardMergeResult {
        try requireTree("merge shards into a shard's own manifest")
        var result = ShardMergeResult()
        for shard in try Self.shardDirectoriesPresent(in: layout)
        where FileManager.default.fileExists(atPath: CacheLayout(root: layout.root, shard: shard).manifestPath) {
            try mergeShard(shard, batchSize: batchSize, into: &result)
            logger?.info("merged shard", metadata: ["shard": "\(shard)", "rows": "\(result.insertedRows + result.updatedRows + result.unchangedRows)"])
        }
        return result
    }

    private func mergeShard(_ shard: CacheShard, batchSize: Int, into result: inout ShardMergeResult) throws(CacheError) {
        let lock = try CacheLock.acquire(root: layout.root, shard: shard)
        defer { lock.release() }
        let shardLayout = CacheLayout(root: layout.root, shard: shard)
        let removed = try CacheFileStore(layout: shardLayout, faults: nil).removeAllTemporaryFiles()
        result.removedTemporaryFileCount += removed.count
        guard let source = try openManifestIfPresent(shardLayout) else { return }
        defer { try? source.close() }
        try DiskCache.forEachBatch(of: source, layout: shardLayout, batchSize: batchSize) { batch throws(CacheError) in
            try merge(batch, into: &result)
        }
        result.prunedRows += try applyPrunedKeys(from: source, layout: shardLayout)
        result.mergedShards.append(shard)
    }

    private func merge(_ batch: [ManifestRow], into counts: inout ShardMergeResult) throws(CacheError) {
        try cache.write { db in
            try db.inTransaction {
                for incoming in batch {
                    let existing = try ManifestRow.fetchOne(db, key: incoming.key)
                    let merged = Self.mergedRow(existing: existing, incoming: incoming)
                    if existing == nil {
                        counts.insertedRows += 1
                        try merged.insert(db)
                    } else if merged != existing {
                        counts.updatedRows += 1
                        try merged.update(db)
                    } else {
                        counts.unchangedRows += 1
                    }
                }
                return .commit
            }
        }
    }

    /// Removes the keys a shard pruned from this manifest (LAYOUT.md, "Prune"), then forgets
    /// them in the shard's. Idempotent: a crash between the two steps repeats the first.
    private func applyPrunedKeys(from source: DatabasePool, layout shardLayout: CacheLayout) throws(CacheError) -> Int {
        let keys = try DiskCache.using(source, shardLayout) { db in try PrunedKey.fetchAll(db) }
        guard !keys.isEmpty else { return 0 }
        let removed = try cache.write { db in
            var removed = 0
            try db.inTransaction {
                for key in keys {
                    try db.execute(sql: """
                        DELETE FROM entry WHERE url = ? AND variant = ? AND (fetchedAt IS NULL OR fetchedAt <= ?)
                        """, arguments: [key.url, key.variant, key.prunedAt])
                    removed += db.changesCount
                }
                return .commit
            }
            return removed
        }
        try DiskCache.using(source, shardLayout, writing: true) { db in
            for key in keys { try key.delete(db) }
        }
        return removed
    }

    /// With or without a manifest.
    static func shardDirectoriesPresent(in layout: CacheLayout) throws(CacheError) -> [CacheShard] {
        guard FileManager.default.fileExists(atPath: layout.shardsDirectoryPath) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: layout.shardsDirectoryPath)
        } catch {
            throw CacheError.fileSystem(operation: "list", path: layout.shardsDirectoryPath,
                                        errno: (error as NSError).underlyingPOSIXCode ?? EIO)
        }
        return names.compactMap(CacheShard.init(directoryName:)).sorted { ($0.count, $0.index) < ($1.count, $1.index) }
    }

    /// Holds every shard's lock, and its manifest open, while `body` runs, so no run or merge changes a shard meanwhile.
    func withEveryShardLocked<T>(_ body: ([CacheShard], [(pool: DatabasePool, layout: CacheLayout)]) throws(CacheError) -> T)
        throws(CacheError) -> T {
        var locks: [CacheLock] = []
        var manifests: [(pool: DatabasePool, layout: CacheLayout)] = []
        defer {
            manifests.forEach { try? $0.pool.close() }
            locks.forEach { $0.release() }
        }
        let shards = try Self.shardDirectoriesPresent(in: layout)
        for shard in shards {
            locks.append(try CacheLock.acquire(root: layout.root, shard: shard))
            let shardLayout = CacheLayout(root: layout.root, shard: shard)
            if let pool = try openManifestIfPresent(shardLayout) { manifests.append((pool, shardLayout)) }
        }
        return try body(shards, manifests)
    }

    func requireTree(_ operation: String) throws(CacheError) {
        guard layout.shard != nil else { return }
        throw CacheError.fileSystem(operation: operation, path: layout.manifestPath, errno: EINVAL)
    }

    func openManifestIfPresent(_ shardLayout: CacheLayout) throws(CacheError) -> DatabasePool? {
        guard FileManager.default.fileExists(atPath: shardLayout.manifestPath) else { return nil }
        return try Manifest.open(shardLayout)
    }

    /// The merge rule of `mergeShards` for one key: the row with the later `fetchedAt`, then
    /// `expiresAt` (a 304 extended it), then `failedAt` wins; ids united, the later access and listing kept, and the
    /// carousel of the later listing.
    static func mergedRow(existing: ManifestRow?, incoming: ManifestRow) -> ManifestRow {
        guard let existing else { return incoming }
        func recency(_ row: ManifestRow) -> (Double, Double, Double) {
            (row.fetchedAt ?? -.infinity, row.expiresAt ?? -.infinity, row.failedAt ?? -.infinity)
        }
        var winner = recency(incoming) >= recency(existing) ? incoming : existing
        winner.productIds = DiskCache.merged(existing.productIds, incoming.productIds)
        // The carousel as the run that listed the image last saw it.
        winner.carousel = incoming.lastListedAt >= existing.lastListedAt ? incoming.carousel : existing.carousel
        winner.lastAccessAt = max(existing.lastAccessAt, incoming.lastAccessAt)
        winner.lastListedAt = max(existing.lastListedAt, incoming.lastListedAt)
        return winner
    }
}

/// What `CacheMaintenance.mergeShards()` did.
public struct ShardMergeResult: Sendable, Hashable {
    public var mergedShards: [CacheShard] = []
    public var insertedRows = 0
    public var updatedRows = 0
    /// A second merge finds only these.
    public var unchangedRows = 0
    public var removedTemporaryFileCount = 0
    public var prunedRows = 0
}
