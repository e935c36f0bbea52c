import Foundation
import GRDB
import Logging

extension DiskCache {
    /// Removes least-recently-used entries (by `lastAccessAt`; at equal access
    /// times, already expired ones first) until the files' total `outputBytes`
    /// is at most `maxBytes`. Failure-only rows hold no bytes and are kept.
    ///
    /// Rows go first, in one committed transaction, then their files: a crash
    /// in between leaves orphan files (harmless; `verify` lists them), never a
    /// row pointing at a missing file. Each file goes under its key lock, and
    /// only when no row names it again (`removeFiles(of:)`), so a store that
    /// installed a new file at that path meanwhile keeps it. Costs one read of
    /// the rows with files and, per removed file, a key lookup, one unlink and
    /// a directory fsync.
    @discardableResult
    public func evict(maxBytes: Int, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> EvictionResult {
        try evict(maxBytes: maxBytes, now: now, alsoDeletingFrom: [])
    }

    /// `evict`, deleting the victims' rows from `shardManifests` as well
    /// (each in its own transaction committed with `synchronous = FULL`)
    /// before this manifest's rows and then the files.
    func evict(maxBytes: Int, now: Double, alsoDeletingFrom shardManifests: [(pool: DatabasePool, layout: CacheLayout)])
        throws(CacheError) -> EvictionResult {
        let files = self.files
        let (deleted, counted) = try write { db -> ([ManifestRow], EvictionResult) in
            let (victims, totalBytes, remainingBytes) = try Self.victims(db, maxBytes: maxBytes, now: now)
            guard !victims.isEmpty else {
                return ([], EvictionResult(removedCount: 0, removedBytes: 0, remainingBytes: totalBytes))
            }
            // A shard's row must not outlive the file (a later merge would bring it back).
            for shard in shardManifests { try Self.deleteRows(of: victims, from: shard) }
            // The deletions must be on disk before any file goes (see Manifest.open).
            try Self.deleteDurably(victims, db)
            if let code = files.faults?(.afterEvictedRowsDeleted) {
                throw CacheError.fileSystem(operation: "evict (simulated crash after the rows were deleted)",
                                            path: files.layout.filesDirectory, errno: code)
            }
            return (victims, EvictionResult(removedCount: victims.count, removedBytes: totalBytes - remainingBytes,
                                            remainingBytes: remainingBytes))
        }
        var result = counted
        result.unremovedFileCount = removeFiles(of: deleted, removing: "an evicted file")
        if result.removedCount > 0 {
            logger.info("evicted least recently used entries", metadata: [
                "count": "\(result.removedCount)", "bytes": "\(result.removedBytes)", "remainingBytes": "\(result.remainingBytes)",
            ])
        }
        return result
    }

    /// The rows to remove, least recently used first, until at most `maxBytes`
    /// remain (none when the files already fit); with the bytes before and after.
    private static func victims(_ db: Database, maxBytes: Int, now: Double) throws
        -> (victims: [ManifestRow], totalBytes: Int, remainingBytes: Int) {
        let withFile = ManifestRow.filter(ManifestRow.Columns.path != nil)
        let totalBytes = try withFile.select(sum(ManifestRow.Columns.outputBytes), as: Int.self).fetchOne(db) ?? 0
        guard totalBytes > max(0, maxBytes) else { return ([], totalBytes, totalBytes) }
        let candidates = try ManifestRow.fetchCursor(db, sql: """
            SELECT * FROM entry WHERE path IS NOT NULL
            ORDER BY lastAccessAt ASC, (expiresAt <= ?) DESC, url ASC, variant ASC
            """, arguments: [now])
        var victims: [ManifestRow] = []
        var remainingBytes = totalBytes
        while remainingBytes > maxBytes, let row = try candidates.next() {
            victims.append(row)
            remainingBytes -= row.outputBytes ?? 0
        }
        return (victims, totalBytes, remainingBytes)
    }

    /// Deletes the victims' rows from one shard's manifest, committed with `synchronous = FULL`.
    private static func deleteRows(of victims: [ManifestRow],
                                   from shard: (pool: DatabasePool, layout: CacheLayout)) throws(CacheError) {
        do {
            try shard.pool.writeWithoutTransaction { shardDB in
                try shardDB.execute(sql: "PRAGMA synchronous = FULL")
                defer { try? shardDB.execute(sql: "PRAGMA synchronous = NORMAL") }
                try shardDB.inTransaction {
                    for victim in victims {
                        try ManifestRow.deleteOne(shardDB, key: [
                            ManifestRow.Columns.url.rawValue: victim.url,
                            ManifestRow.Columns.variant.rawValue: victim.variant,
                        ])
                    }
                    return .commit
                }
            }
        } catch {
            throw mapDatabaseError(error, layout: shard.layout)
        }
    }

    /// Deletes the victims' rows from this manifest in one transaction committed with `synchronous = FULL`.
    private static func deleteDurably(_ victims: [ManifestRow], _ db: Database) throws {
        try db.execute(sql: "PRAGMA synchronous = FULL")
        defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
        try db.inTransaction {
            for victim in victims { try victim.delete(db) }
            return .commit
        }
    }

    /// Unlinks the victims' files (their rows are gone); the number that could not be removed.
    /// Removes the files of rows just deleted (eviction, prune); the count it
    /// could not remove. Each under its key lock and only when no row names the
    /// key again: `store` renames under that lock before it takes the writer,
    /// so a file installed since the rows went is kept. Call it off the writer
    /// (a store waits for the writer while it holds its key lock).
    func removeFiles(of victims: [ManifestRow], removing what: String) -> Int {
        var unremoved = 0
        for victim in victims {
            guard let path = victim.path else { continue }
            do {
                try keyLocks.withLock(for: path) { () throws(CacheError) in
                    let storedAgain = try read { db in
                        try Bool.fetchOne(db, sql: "SELECT 1 FROM entry WHERE url = ? AND variant = ? AND path IS NOT NULL",
                                          arguments: [victim.url, victim.variant]) ?? false
                    }
                    if !storedAgain { try files.removeFile(relativePath: path) }
                }
            } catch {
                // The row is gone, so the file is an orphan: harmless, listed by verify, removed by gc.
                unremoved += 1
                logger.warning("could not remove \(what)", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        return unremoved
    }

    /// Evicts down to `configuration.maxBytes`; nil when no limit is configured.
    @discardableResult
    public func evictToConfiguredLimit(now: Double = Date().timeIntervalSince1970) throws(CacheError) -> EvictionResult? {
        guard let maxBytes = configuration.maxBytes else { return nil }
        return try evict(maxBytes: maxBytes, now: now)
    }

    /// Evicts down to `maxBytes` over this (the tree's, merged) manifest of a
    /// sharded tree: least recently used first across all shards, removing
    /// each victim's row from every shard manifest that has it, then from the
    /// tree's, then its file. Holds every shard's lock meanwhile (fails with
    /// `CacheError.locked` while a shard runs), so no shard keeps a row whose
    /// file is gone and no merge brings one back. Merge first (`mergeShards`),
    /// or rows not merged yet are neither counted nor evicted. Open the tree's
    /// cache (no shard) while holding its `CacheLock`.
    @discardableResult
    public func evictTree(maxBytes: Int, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> EvictionResult {
        guard layout.shard == nil else {
            throw CacheError.fileSystem(operation: "evict a sharded tree through a shard's manifest",
                                        path: layout.manifestPath, errno: EINVAL)
        }
        var locks: [CacheLock] = []
        var manifests: [(pool: DatabasePool, layout: CacheLayout)] = []
        defer {
            manifests.forEach { try? $0.pool.close() }
            locks.forEach { $0.release() }
        }
        for shard in try Self.shardDirectoriesPresent(in: layout) {
            locks.append(try CacheLock.acquire(root: layout.root, shard: shard))
            let shardLayout = CacheLayout(root: layout.root, shard: shard)
            guard FileManager.default.fileExists(atPath: shardLayout.manifestPath) else { continue }
            do {
                manifests.append((try Manifest.open(path: shardLayout.manifestPath, configuration: configuration), shardLayout))
            } catch {
                throw Self.mapDatabaseError(error, layout: shardLayout)
            }
        }
        return try evict(maxBytes: maxBytes, now: now, alsoDeletingFrom: manifests)
    }
}
