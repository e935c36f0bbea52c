import Foundation
import GRDB
import WarmSupport

/// Read-only access to a warmed cache for a server that runs beside the
/// writer (`warm cache serve`): which variants of a URL the manifest holds,
/// and one variant's file read through a single open descriptor.
///
/// The manifest is opened read-only in WAL mode (checked on open), so readers
/// never block the writer and each read sees one committed snapshot; nothing
/// in the directory is written. Every method blocks its thread for a few SQLite
/// statements or one small file read; call it off the cooperative pool.
public final class CacheReader: Sendable {
    public let layout: CacheLayout
    private let pool: DatabasePool

    private init(layout: CacheLayout, pool: DatabasePool) {
        self.layout = layout
        self.pool = pool
    }

    /// Opens the tree's manifest of the cache at `root` read-only.
    /// - Throws: `CacheError.fileSystem` (ENOENT) when `root` has no
    ///   `manifest.sqlite`, `.database` when it cannot be read or is not in WAL mode.
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
        do {
            let pool = try DatabasePool(path: layout.manifestPath, configuration: configuration)
            let mode = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } ?? ""
            guard mode.lowercased() == "wal" else {
                try? pool.close()
                throw CacheError.database(path: layout.manifestPath,
                                          reason: "it is in \(mode) journal mode, not WAL, so a reader would block the writer")
            }
            return CacheReader(layout: layout, pool: pool)
        } catch {
            throw DiskCache.mapDatabaseError(error, layout: layout)
        }
    }

    public func close() throws(CacheError) {
        do { try pool.close() } catch { throw DiskCache.mapDatabaseError(error, layout: layout) }
    }

    /// The variants of `url` with `longestSide` whose rows name a file, by
    /// format. A row whose path is not the one the layout gives its key (a
    /// tampered manifest) is left out: no file is ever named by anything but the hash.
    public func storedVariants(of url: CanonicalURL, longestSide: Int) throws(CacheError) -> [CacheVariant] {
        let rows = try DiskCache.using(pool, layout) { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT variant, path FROM entry WHERE url = ? AND path IS NOT NULL"),
                             arguments: [url.text])
        }
        return rows.compactMap { row -> CacheVariant? in
            guard let name: String = row["variant"], let path: String = row["path"],
                  let variant = CacheVariant(name: name), variant.longestSide == longestSide,
                  path == CacheLayout.relativePath(url: url, variant: variant) else { return nil }
            return variant
        }.sorted { $0.format < $1.format }
    }

    /// The file of one variant (a regular file of at most `maxBytes`), read and
    /// hashed through one descriptor; nil when it is not there. Files are installed
    /// by rename, never written in place, so the descriptor holds one complete file
    /// whatever is renamed over its name meanwhile, and the digest is of these bytes.
    public func file(of url: CanonicalURL, variant: CacheVariant, maxBytes: Int) throws(CacheError) -> CachedFile? {
        let location = FileLocation(url: url, variant: variant)
        let file: (bytes: [UInt8], info: stat)
        do throws(CacheError) {
            file = try DirectoryHandle.openDirectory(path: layout.filesDirectory)
                .child(location.outerDirectory, create: false)
                .child(location.innerDirectory, create: false)
                .readFile(location.fileName, maxBytes: maxBytes)
        } catch CacheError.fileSystem(_, _, let code) where code == ENOENT {
            return nil
        }
        let digest = file.bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
        return CachedFile(variant: variant, bytes: file.bytes, sha256Hex: digest,
                          modifiedAtSeconds: Int(file.info.st_mtim.tv_sec))
    }
}
