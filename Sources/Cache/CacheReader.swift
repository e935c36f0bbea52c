import Foundation
import GRDB
import WarmSupport

/// Read-only cache access for `warm cache serve` beside the writer: WAL mode (checked on open) so readers never block
/// it. Every method blocks for a few SQLite statements or one small file read; call it off the cooperative pool.
public final class CacheReader: Sendable {
    public var layout: CacheLayout { files.layout }
    private let pool: DatabasePool
    private let files: CacheFileStore

    private init(layout: CacheLayout, pool: DatabasePool) {
        self.pool = pool
        files = CacheFileStore(layout: layout, faults: nil)
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

    /// A row whose path is not the one the layout gives its key (tampered) is left out: no file is ever named by
    /// anything but the hash.
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

    /// Read and hashed through one descriptor: files are installed by rename, never written in place, so it holds
    /// one complete file whatever is renamed over its name meanwhile. nil when absent.
    public func file(of url: CanonicalURL, variant: CacheVariant, maxBytes: Int) throws(CacheError) -> CachedFile? {
        let file: (bytes: [UInt8], info: stat)
        do throws(CacheError) {
            file = try files.readFile(relativePath: CacheLayout.relativePath(url: url, variant: variant), maxBytes: maxBytes)
        } catch CacheError.fileSystem(_, _, let code) where code == ENOENT {
            return nil
        }
        let digest = file.bytes.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
        return CachedFile(variant: variant, bytes: file.bytes, sha256Hex: digest,
                          modifiedAtSeconds: Int(file.info.st_mtim.tv_sec))
    }
}
