import Foundation
import GRDB
import Logging

/// What one eviction or prune pass removed.
public struct RemovalResult: Sendable, Hashable {
    public var removedCount = 0
    public var removedBytes = 0
    /// What the files the manifest still names take.
    public var remainingBytes = 0
    /// Removed files that could not be unlinked (left as orphans; `verify` lists them, `gc` removes them).
    public var unremovedFileCount = 0

    public init() {}
}

extension DiskCache {
    /// The rows `select` picks (given what the manifest's files take) go durably (from `shardManifests` first; `alsoEach`
    /// runs per row in this manifest's transaction), then their files; `fault` fails in between. Shared by eviction and
    /// prune.
    func removeEntries(after fault: FaultPoint,
                       alsoDeletingFrom shardManifests: [(pool: DatabasePool, layout: CacheLayout)] = [],
                       removing what: String, logging message: Logger.Message,
                       select: (Database, _ fileBytes: Int) throws -> [ManifestRow],
                       alsoEach: (Database, ManifestRow) throws -> Void = { _, _ in })
        throws(CacheError) -> RemovalResult {
        let files = self.files
        let (deleted, fileBytes) = try write { db in
            let fileBytes = try Self.fileBytes(db)
            let victims = try select(db, fileBytes)
            // A shard's row must not outlive the file (a later merge would bring it back).
            for shard in shardManifests {
                try Self.using(shard.pool, shard.layout, writing: true) { try Self.deleteDurably(victims, $0) }
            }
            try Self.deleteDurably(victims, db) { try alsoEach(db, $0) }
            if !victims.isEmpty { try files.failIfInjected(fault, path: files.layout.filesDirectory) }
            return (victims, fileBytes)
        }
        var result = RemovalResult()
        result.removedCount = deleted.count
        result.removedBytes = deleted.reduce(0) { $0 + ($1.path == nil ? 0 : $1.outputBytes ?? 0) }
        result.remainingBytes = fileBytes - result.removedBytes
        result.unremovedFileCount = removeFiles(of: deleted, removing: what)
        if result.removedCount > 0 {
            logger.info(message, metadata: [
                "count": "\(result.removedCount)", "bytes": "\(result.removedBytes)", "remainingBytes": "\(result.remainingBytes)",
            ])
        }
        return result
    }

    /// What the files the manifest names take, by its rows.
    private static func fileBytes(_ db: Database) throws -> Int {
        try ManifestRow.filter(ManifestRow.Columns.path != nil)
            .select(sum(ManifestRow.Columns.outputBytes), as: Int.self).fetchOne(db) ?? 0
    }

    /// Deletes `rows` (by key) in one transaction committed with `synchronous = FULL`: the
    /// deletions must be on disk before any file goes (see Manifest.open). `alsoEach` runs in it per row.
    static func deleteDurably(_ rows: [ManifestRow], _ db: Database,
                              alsoEach: (ManifestRow) throws -> Void = { _ in }) throws {
        guard !rows.isEmpty else { return }
        try db.execute(sql: "PRAGMA synchronous = FULL")
        defer { try? db.execute(sql: "PRAGMA synchronous = NORMAL") }
        try db.inTransaction {
            for row in rows {
                try row.delete(db)
                try alsoEach(row)
            }
            return .commit
        }
    }

    /// Under each key lock, only when no row names the key again, so a file stored since is kept. Call it off the
    /// writer: a store waits for the writer while it holds its key lock.
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
}
