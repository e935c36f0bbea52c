import Foundation
import GRDB

extension DiskCache {
    /// Removes least-recently-used entries (by `lastAccessAt`; at equal access
    /// times, already expired ones first) until the files' total `outputBytes`
    /// is at most `maxBytes`. Failure-only rows hold no bytes and are kept.
    ///
    /// Rows go first, in one committed transaction, then their files: a crash
    /// in between leaves orphan files (harmless; `verify` lists them), never a
    /// row pointing at a missing file. Both steps run on the writer connection,
    /// so no store in this process can install a new file at a path between
    /// its row's deletion and the unlink. Costs one read of the rows with files
    /// and one unlink plus directory fsync per removed file.
    @discardableResult
    public func evict(maxBytes: Int, now: Double = Date().timeIntervalSince1970) throws(CacheError) -> EvictionResult {
        let files = self.files, logger = self.logger
        let result = try write { db -> EvictionResult in
            let withFile = ManifestRow.filter(ManifestRow.Columns.path != nil)
            let totalBytes = try withFile.select(sum(ManifestRow.Columns.outputBytes), as: Int.self).fetchOne(db) ?? 0
            guard totalBytes > max(0, maxBytes) else {
                return EvictionResult(removedCount: 0, removedBytes: 0, remainingBytes: totalBytes)
            }
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
            // The deletions must be on disk before any file goes (see Manifest.open).
            try db.execute(sql: "PRAGMA synchronous = FULL")
            defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
            try db.inTransaction {
                for victim in victims { try victim.delete(db) }
                return .commit
            }
            if let code = files.faults?(.afterEvictedRowsDeleted) {
                throw CacheError.fileSystem(operation: "evict (simulated crash after the rows were deleted)",
                                            path: files.layout.filesDirectory, errno: code)
            }
            var unremoved = 0
            for victim in victims {
                guard let path = victim.path else { continue }
                do {
                    try files.removeFile(relativePath: path)
                } catch {
                    // The row is gone, so the file is an orphan: harmless, listed by verify.
                    unremoved += 1
                    logger.warning("could not remove an evicted file", metadata: ["path": "\(path)", "error": "\(error)"])
                }
            }
            return EvictionResult(removedCount: victims.count, removedBytes: totalBytes - remainingBytes,
                                  remainingBytes: remainingBytes, unremovedFileCount: unremoved)
        }
        if result.removedCount > 0 {
            logger.info("evicted least recently used entries", metadata: [
                "count": "\(result.removedCount)", "bytes": "\(result.removedBytes)", "remainingBytes": "\(result.remainingBytes)",
            ])
        }
        return result
    }

    /// Evicts down to `configuration.maxBytes`; nil when no limit is configured.
    @discardableResult
    public func evictToConfiguredLimit(now: Double = Date().timeIntervalSince1970) throws(CacheError) -> EvictionResult? {
        guard let maxBytes = configuration.maxBytes else { return nil }
        return try evict(maxBytes: maxBytes, now: now)
    }
}
