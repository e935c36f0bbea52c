import Foundation
import GRDB

extension CacheMaintenance {
    /// Publishes the tree's manifest as it is now for origins on other hosts (`PublishedManifest`; LAYOUT.md,
    /// "Published snapshots"): `VACUUM INTO` a temp file beside the snapshots (a consistent copy in rollback-journal
    /// mode, so a reader needs no `-shm`), fsync it, rename it to `manifest-<n>.sqlite`, fsync the directory, then
    /// rename a new link over the pointer and fsync again. The snapshot the pointer named before is kept (an origin may
    /// still read it until its next refresh); older ones, and temp files a crash left, are removed. Call it holding the
    /// tree's lock, after the last step that changes the tree's rows (merge, eviction). Cost: one read of every page of
    /// the manifest and one compact copy of it on disk (docs/scaling-out.md, "Storage", has the time at 100,000 rows).
    /// Returns the new snapshot's path.
    @discardableResult
    func publishSnapshot() throws(CacheError) -> String {
        try requireTree("publish a shard's manifest")
        let directory = try DirectoryHandle.openDirectory(path: layout.root).child(PublishedManifest.directoryName, create: true)
        let before = try directory.entryNames()
        for name in before where name.hasSuffix(PublishedManifest.temporarySuffix) { try directory.removeFile(name) }
        let previous = try PublishedManifest(root: layout.root).currentSnapshotPath().map { ($0 as NSString).lastPathComponent }
        let name = PublishedManifest.snapshotName(
            sequence: (before.compactMap(PublishedManifest.sequence(ofSnapshot:)).max() ?? 0) + 1)
        let temporary = "." + name + PublishedManifest.temporarySuffix
        let temporaryPath = directory.path + "/" + temporary
        try cache.write(injecting: false) { db in try db.execute(sql: "VACUUM INTO ?", arguments: [temporaryPath]) }
        try Self.useRollbackJournal(temporaryPath)
        try directory.syncFile(temporary)
        try directory.rename(temporary, to: directory, as: name)
        try directory.sync()
        let link = "." + PublishedManifest.pointerName + PublishedManifest.temporarySuffix
        try directory.makeSymbolicLink(link, to: name)
        try directory.rename(link, to: directory, as: PublishedManifest.pointerName)
        try directory.sync()
        for old in before where PublishedManifest.sequence(ofSnapshot: old) != nil && old != previous {
            try directory.removeFile(old)
        }
        logger.info("published the manifest", metadata: ["snapshot": "\(directory.path)/\(name)"])
        return directory.path + "/" + name
    }

    /// `VACUUM INTO` writes a rollback-journal file today (SQLite 3.40); this makes sure of it, as an immutable reader
    /// of a file marked WAL would look for a `-wal`.
    private static func useRollbackJournal(_ path: String) throws(CacheError) {
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try queue.close()
        } catch {
            throw DiskCache.mapDatabaseError(error, manifestPath: path)
        }
    }

    /// Creates `published/` (and fsyncs the root) if it is missing. A merge calls it before it opens the tree's
    /// manifest: from then on an origin reads only what is published there, never the manifest the merge writes.
    static func preparePublishing(root: String) throws(CacheError) {
        _ = try DirectoryHandle.openDirectory(path: CacheLayout(root: root).root).child(PublishedManifest.directoryName, create: true)
    }

    /// Whether the tree has a published snapshot, so a step that changes its rows must publish again.
    public static func hasPublishedSnapshot(root: String) throws(CacheError) -> Bool {
        try PublishedManifest(root: root).currentSnapshotPath() != nil
    }
}
