import Foundation
import GRDB
import WarmSupport

/// Read-only cache access for `warm cache serve`: the live manifest beside its writer on one host (WAL mode, checked on
/// open, so readers never block it), or a published snapshot (`openSnapshot`). Every method blocks for SQLite
/// statements or one small file read; call it off the cooperative pool.
public final class CacheReader: Sendable {
    public var layout: CacheLayout { files.layout }
    /// The SQLite file read: the tree's `manifest.sqlite`, or a snapshot's own name (never the link to it).
    let manifestPath: String
    private let pool: DatabasePool
    /// nil for a snapshot, which never changes.
    private let versionQueue: DatabaseQueue?
    private let files: CacheFileStore

    private init(layout: CacheLayout, manifestPath: String, pool: DatabasePool, versionQueue: DatabaseQueue?) {
        self.manifestPath = manifestPath
        self.pool = pool
        self.versionQueue = versionQueue
        files = CacheFileStore(layout: layout, faults: nil)
    }

    /// A published snapshot at `path` (`PublishedManifest.currentSnapshotPath()`), opened read-only and immutable: no
    /// lock, no `-shm`, nothing written beside it, so origins on many hosts may read it from a network volume.
    /// Throws `.manifestBroken` or `.database` when it is not a readable manifest.
    public static func openSnapshot(root: String, path: String, readerCount: Int = 4) throws(CacheError) -> CacheReader {
        do throws(CacheError) {
            let pool = try Manifest.openSnapshot(path: path, readerCount: readerCount)
            let reader = CacheReader(layout: CacheLayout(root: root), manifestPath: path, pool: pool, versionQueue: nil)
            do throws(CacheError) {
                // The file is opened lazily; read its schema now, so a torn or foreign file fails here, not in a request.
                _ = try reader.using { db in try db.tableExists(ManifestRow.databaseTableName) }
            } catch {
                try? pool.close()
                throw error
            }
            return reader
        } catch .manifestBroken(let path, let reason) {
            // Not `manifestBroken`, whose sentence sends the reader to `warm run`: a snapshot is replaced by publishing.
            throw .database(path: path, reason: "it is not a readable manifest (\(reason)); the next `warm cache merge` publishes another")
        }
    }

    /// Throws `.fileSystem` (ENOENT) without a manifest, `.database` when unreadable or not in WAL mode.
    public static func open(root: String, readerCount: Int = 4, busyTimeoutSeconds: Double = 5) throws(CacheError) -> CacheReader {
        let layout = CacheLayout(root: root)
        guard FileManager.default.fileExists(atPath: layout.manifestPath) else {
            throw .fileSystem(operation: "open the manifest (is this a warm cache directory?)", path: layout.manifestPath, errno: ENOENT)
        }
        var configuration = Configuration()
        configuration.label = "warm.cache.reader"
        configuration.readonly = true
        configuration.maximumReaderCount = max(1, readerCount)
        configuration.busyMode = .timeout(busyTimeoutSeconds)
        // A reader may be the last to close: it leaves `-shm` for the next reader too (Manifest.keepWALFiles).
        configuration.prepareDatabase { db in try Manifest.keepWALFiles(db) }
        do {
            let pool = try DatabasePool(path: layout.manifestPath, configuration: configuration)
            let mode = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } ?? ""
            guard mode.lowercased() == "wal" else {
                try? pool.close()
                throw CacheError.database(path: layout.manifestPath,
                                          reason: "it is in \(mode) journal mode, not WAL, so a reader would block the writer")
            }
            var single = configuration
            single.label = "warm.cache.reader.version"
            return CacheReader(layout: layout, manifestPath: layout.manifestPath, pool: pool,
                               versionQueue: try DatabaseQueue(path: layout.manifestPath, configuration: single))
        } catch {
            throw DiskCache.mapDatabaseError(error, layout: layout)
        }
    }

    public func close() throws(CacheError) {
        do {
            try versionQueue?.close()
            try pool.close()
        } catch { throw DiskCache.mapDatabaseError(error, manifestPath: manifestPath) }
    }

    private func using<T>(_ body: (Database) throws -> T) throws(CacheError) -> T {
        do { return try pool.read(body) } catch { throw DiskCache.mapDatabaseError(error, manifestPath: manifestPath) }
    }

    /// Changes whenever another connection commits to the manifest (`PRAGMA data_version`, on one connection kept for
    /// it, as the value is only comparable on the same connection); always 0 for a snapshot.
    public func dataVersion() throws(CacheError) -> Int {
        guard let versionQueue else { return 0 }
        do {
            return try versionQueue.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") } ?? 0
        } catch {
            throw DiskCache.mapDatabaseError(error, layout: layout)
        }
    }

    /// Every row that names a file, from one snapshot, each with the file's validators when recorded. A row whose path
    /// is not the one the layout gives its key (tampered) is left out: no file is ever named by anything but the hash.
    /// Memory: the served files only (their keys, paths and validators). The rows come through a cursor, one at a time:
    /// holding them all as SQLite rows first (every column) took about 1 KiB more per row at the peak, which the
    /// process kept (docs/scaling-out.md, "Sizes").
    public func servedFiles() throws(CacheError) -> [ServedFile] {
        try using { db in
            var files: [ServedFile] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM entry WHERE path IS NOT NULL")
            while let row = try rows.next() {
                if let file = ServedFile(row: row) { files.append(file) }
            }
            return files
        }
    }

    /// The current row of one file, for a descriptor that did not match the index's validators.
    public func servedFile(url: CanonicalURL, variant: CacheVariant) throws(CacheError) -> ServedFile? {
        try using { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM entry WHERE url = ? AND variant = ? AND path IS NOT NULL"),
                             arguments: [url.text, variant.name])
        }.flatMap(ServedFile.init(row:))
    }

    /// The app manifest, as `warm cache export` makes it from the same rows, one snapshot per batch.
    public func exportAppManifest(_ body: (AppManifestImage) throws(CacheError) -> Void) throws(CacheError) {
        try CacheMaintenance.exportAppManifest(of: pool, layout: layout, body)
    }

    /// Read through one descriptor (`fstat` from the same one): files are installed by rename, never written in place,
    /// so it holds one complete file whatever is renamed over its name meanwhile. nil when absent.
    public func read(_ file: ServedFile, maxBytes: Int) throws(CacheError) -> (bytes: [UInt8], info: stat)? {
        do throws(CacheError) {
            return try files.readFile(relativePath: file.relativePath, maxBytes: maxBytes)
        } catch CacheError.fileSystem(_, _, let code) where code == ENOENT {
            return nil
        }
    }
}

/// A manifest row the origin may serve: its key, path and (when recorded) validators.
public struct ServedFile: Sendable, Hashable {
    public var url: CanonicalURL
    public var variant: CacheVariant
    public var relativePath: String
    /// nil for a row stored before v4 and not filled yet: its bytes are hashed when sent.
    public var validators: FileValidators?

    init?(row: Row) {
        guard let urlText: String = row["url"], let name: String = row["variant"], let path: String = row["path"],
              let variant = CacheVariant(name: name), let url = try? CanonicalURL(urlText),
              path == CacheLayout.relativePath(url: url, variant: variant) else { return nil }
        self.url = url
        self.variant = variant
        relativePath = path
        // Read by name: a manifest from before v4 has no such columns (nil), and is still served.
        if let sha256: String = row["sha256"], let bytes: Int = row["outputBytes"], let inode: Int64 = row["fileInode"],
           let modified: Int64 = row["fileModifiedAtNanoseconds"] {
            validators = FileValidators(sha256Hex: sha256, byteCount: bytes, inode: UInt64(bitPattern: inode),
                                        modifiedAtNanoseconds: modified)
        }
    }
}
