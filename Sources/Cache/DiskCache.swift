import Foundation
import GRDB
import Logging
import Synchronization
import WarmSupport

/// Not an actor: the state lives in SQLite (GRDB's pool) and atomic renames; an actor would serialise every store's
/// fsync. Methods block (a store: two fsyncs): call from bounded tasks, holding a `CacheLock` while writing.
public final class DiskCache: Sendable {
    public var layout: CacheLayout { files.layout }
    /// Entries younger than this are skipped, older ones revalidated; the default `expiresAt` of stores and 304s.
    public let maxAgeSeconds: Double

    let pool: DatabasePool
    let files: CacheFileStore
    let logger: Logger
    /// Serialises the stores of one key (see `store`).
    let keyLocks = KeyLocks()
    /// Set by the first `close()`: GRDB's checkpoint on a closed pool reaches SQLite with no connection.
    private let closed = Mutex(false)
    /// Opened with `readOnly`: every write fails, `close` does not checkpoint.
    let readOnly: Bool

    private init(maxAgeSeconds: Double, pool: DatabasePool, files: CacheFileStore, logger: Logger, readOnly: Bool = false) {
        self.maxAgeSeconds = maxAgeSeconds
        self.pool = pool
        self.files = files
        self.logger = logger
        self.readOnly = readOnly
    }

    /// The freshness lifetime of a stored entry unless the run says otherwise (`warm run --max-age`).
    public static let defaultMaxAgeSeconds: Double = 12 * 3600

    /// Clearing `tmp/` is only safe for the lock holder: pass `removingTemporaryFiles: false` without the
    /// `CacheLock` (`warm cache stats/get/verify` while a run may write). A shard's lock is its own. `readOnly`: the
    /// manifest must exist; nothing is created, removed or written (reads on a full disk), unless its schema is older
    /// than this warm's, which only a writable open upgrades.
    public static func open(root: String, shard: CacheShard? = nil, maxAgeSeconds: Double = defaultMaxAgeSeconds,
                            logger: Logger = Logger(label: "warm.cache"), faults: FaultInjector? = nil,
                            removingTemporaryFiles: Bool = true, readOnly: Bool = false) throws(CacheError) -> DiskCache {
        let layout = CacheLayout(root: root, shard: shard)
        let files = CacheFileStore(layout: layout, faults: faults)
        if readOnly, let pool = try Manifest.openReadOnly(layout) {
            return DiskCache(maxAgeSeconds: maxAgeSeconds, pool: pool, files: files, logger: logger, readOnly: true)
        }
        try files.createDirectories()
        let removed = removingTemporaryFiles ? try files.removeAllTemporaryFiles().count : 0
        if removed > 0 {
            logger.notice("removed leftover temp files", metadata: ["count": "\(removed)", "cache": "\(layout.root)"])
        }
        let cache = DiskCache(maxAgeSeconds: maxAgeSeconds, pool: try Manifest.open(layout), files: files, logger: logger)
        let filled = try cache.fillMissingValidators()
        if filled > 0 {
            logger.notice("recorded the validators of files stored before v4", metadata: ["count": "\(filled)", "cache": "\(layout.root)"])
        }
        return cache
    }

    /// Folds the WAL into `manifest.sqlite` first (best effort: another process's reader may hold it), so a closed
    /// cache is one self-contained file to back up.
    public func close() throws(CacheError) {
        do {
            let first = closed.withLock { closed in
                defer { closed = true }
                return !closed
            }
            if first && !readOnly { _ = try? pool.writeWithoutTransaction { try $0.checkpoint(.truncate) } }
            try pool.close()
        } catch {
            throw Self.mapDatabaseError(error, layout: layout)
        }
    }

    // MARK: - Reading

    /// Does not count as an access.
    public func entries(forURL canonical: CanonicalURL) throws(CacheError) -> [CacheEntry] {
        try read { db in try ManifestRow.fetchAll(db, url: canonical) }.compactMap(entry(from:))
    }

    /// One snapshot read per crawl page instead of one per image (bench/findings.md section 11).
    public func entries(forURLs urls: [CanonicalURL]) throws(CacheError) -> [String: [CacheEntry]] {
        var byURL: [String: [CacheEntry]] = [:]
        for row in try read({ db in try ManifestRow.fetchAll(db, urls: urls) }) {
            if let entry = entry(from: row) { byURL[row.url, default: []].append(entry) }
        }
        return byURL
    }

    private func entry(from row: ManifestRow) -> CacheEntry? {
        CacheVariant(name: row.variant).map { entry(from: row, variant: $0) }
    }

    /// `format` when given, else JPEG, else the first format by extension. Counts as an access unless the cache is
    /// read-only (`warm cache get`, which must answer on a full disk).
    public func path(for url: String, longestSide: Int, format: OutputFormat? = nil,
                     now: Double = Date().timeIntervalSince1970) throws(CacheError) -> String? {
        let canonical = try CanonicalURL(url)
        let candidates = try entries(forURL: canonical)
            .filter { $0.variant.longestSide == longestSide && $0.fileIsPresent && (format == nil || $0.variant.format == format) }
            .sorted { Self.getOrder($0.variant.format) < Self.getOrder($1.variant.format) }
        guard let chosen = candidates.first else { return nil }
        if !readOnly { try touch(url: canonical, variant: chosen.variant, now: now) }
        return chosen.absolutePath
    }

    private static func getOrder(_ format: OutputFormat) -> (Int, String) { (format == .jpeg ? 0 : 1, format.fileExtension) }

    /// Records a use of an entry for LRU eviction; false when there is no such entry.
    @discardableResult
    public func touch(url canonical: CanonicalURL, variant: CacheVariant,
                      now: Double = Date().timeIntervalSince1970) throws(CacheError) -> Bool {
        try write { db in
            try db.execute(sql: "UPDATE entry SET lastAccessAt = ? WHERE url = ? AND variant = ?",
                           arguments: [now, canonical.text, variant.name])
            return db.changesCount > 0
        }
    }

    // MARK: - Writing

    /// Temp file, fsync, rename, directory fsync, then the row (crash cases: LAYOUT.md, "Writing a thumbnail"); rename
    /// and row under the key's lock, so they are of the same store. `diskFull` means stop storing.
    @discardableResult
    public func store(url canonical: CanonicalURL, productIds: [Int], variant: CacheVariant, data: Data,
                      metadata: CacheMetadata) throws(CacheError) -> CacheEntry {
        try refuseIfReadOnly()  // before the rename, which would replace a file the manifest names
        let variant = try variant.validated()
        let relativePath = CacheLayout.relativePath(url: canonical, variant: variant)
        var row = ManifestRow(
            url: canonical.text, variant: variant.name, productIds: productIds, path: relativePath,
            etag: metadata.etag, lastModified: metadata.lastModified, sourceBytes: metadata.sourceBytes,
            sourceFormat: metadata.sourceFormat, sourceWidth: metadata.sourceWidth, sourceHeight: metadata.sourceHeight,
            outputBytes: data.count, outputWidth: metadata.outputWidth, outputHeight: metadata.outputHeight,
            fetchedAt: metadata.fetchedAt, expiresAt: metadata.expiresAt ?? metadata.fetchedAt + maxAgeSeconds,
            lastAccessAt: metadata.fetchedAt, lastListedAt: metadata.fetchedAt,
            thumbHash: metadata.thumbHash, averageColor: metadata.averageColor)
        let digest = data.withUnsafeBytes { SHA256Hex.digest(ofBytes: $0) }
        let (temporaryName, info) = try files.writeTemporaryFile(data)
        row.record(FileValidators(sha256Hex: digest, info: info))
        let files = self.files
        do throws(CacheError) {
            try keyLocks.withLock(for: relativePath) { () throws(CacheError) in
                try files.install(temporaryName: temporaryName, at: relativePath).sync()
                try files.failIfInjected(.afterRename, path: layout.absolutePath(relative: relativePath))
                try write(injecting: false) { db in
                    do {
                        try db.inTransaction {
                            try files.failIfInjected(.manifestWrite, path: files.layout.manifestPath)
                            let previous = try ManifestRow.fetchOne(db, url: canonical, variant: variant)
                            row.productIds = Self.merged(previous?.productIds ?? [], productIds)
                            row.carousel = previous?.carousel ?? []
                            row.lastListedAt = max(previous?.lastListedAt ?? 0, metadata.fetchedAt)
                            try row.upsert(db)
                            try PrunedKey.delete(db, url: canonical, variant: variant)
                            return .commit
                        }
                    } catch {
                        // No row (a full disk fills the manifest too): drop the new file and the stale row so `verify`
                        // finds nothing; the file goes first, freeing the space the deletion needs.
                        _ = try? files.removeFile(relativePath: relativePath)
                        _ = try? row.delete(db)
                        throw error
                    }
                }
            }
        } catch {
            // Removes the temp file when the rename failed; harmless after it (the name is gone from tmp/).
            files.removeTemporaryFile(temporaryName)
            throw error
        }
        return entry(from: row, variant: variant, fileIsPresent: true)
    }

    /// After a 304: extends every variant with a file, records the access, clears an earlier failure.
    @discardableResult
    public func markRevalidated(url canonical: CanonicalURL, expiresAt: Double? = nil,
                                now: Double = Date().timeIntervalSince1970) throws(CacheError) -> Int {
        try write { db in
            try db.execute(sql: """
                UPDATE entry SET expiresAt = ?, lastAccessAt = ?, lastError = NULL, failedAt = NULL
                WHERE url = ? AND path IS NOT NULL
                """, arguments: [expiresAt ?? now + maxAgeSeconds, now, canonical.text])
            return db.changesCount
        }
    }

    /// Leaves an existing good file alone: the previous thumbnail stays usable and listed.
    public func recordFailure(url canonical: CanonicalURL, productIds: [Int], variant: CacheVariant, reason: String,
                              now: Double = Date().timeIntervalSince1970) throws(CacheError) {
        let variant = try variant.validated()
        try write { db in
            try db.inTransaction {
                var row = try ManifestRow.fetchOne(db, url: canonical, variant: variant) ?? ManifestRow(
                    url: canonical.text, variant: variant.name, productIds: [], lastAccessAt: now)
                row.productIds = Self.merged(row.productIds, productIds)
                row.lastError = reason
                row.failedAt = now
                row.lastListedAt = max(row.lastListedAt, now)
                try row.upsert(db)
                try PrunedKey.delete(db, url: canonical, variant: variant)
                return .commit
            }
        }
    }

    /// Products sharing a thumbnail are found as the crawl goes on, after the first one was stored.
    @discardableResult
    public func addProductIds(url canonical: CanonicalURL, productIds: [Int]) throws(CacheError) -> Int {
        try write { db in
            var updated = 0
            for var row in try ManifestRow.fetchAll(db, url: canonical) {
                let merged = Self.merged(row.productIds, productIds)
                guard merged != row.productIds else { continue }
                row.productIds = merged
                try row.update(db)
                updated += 1
            }
            return updated
        }
    }

    /// Replaces where product details show each of `placements`' URLs (an empty list: in no carousel), in one
    /// transaction. Returns the rows changed.
    @discardableResult
    public func setCarousels(_ placements: [CanonicalURL: [CarouselPlacement]]) throws(CacheError) -> Int {
        try write { db in
            var updated = 0
            try db.inTransaction {
                let statement = try db.cachedStatement(sql: "UPDATE entry SET carousel = ? WHERE url = ? AND carousel != ?")
                for (url, list) in placements {
                    let json = CarouselPlacement.json(Array(Set(list)).sorted())
                    try statement.execute(arguments: [json, url.text, json])
                    updated += db.changesCount
                }
                return .commit
            }
            return updated
        }
    }

    // MARK: - Helpers

    static func merged(_ existing: [Int], _ added: [Int]) -> [Int] {
        Array(Set(existing).union(added)).sorted()
    }

    /// Checks that the file is a regular file of the recorded size.
    func entry(from row: ManifestRow, variant: CacheVariant, fileIsPresent: Bool? = nil) -> CacheEntry {
        let present = fileIsPresent ?? row.path.map { path in
            guard let info = files.status(relativePath: path) else { return false }
            return info.isRegularFile && info.byteCount == row.outputBytes
        } ?? false
        return CacheEntry(row: row, variant: variant, absolutePath: row.path.map(layout.absolutePath(relative:)),
                          fileIsPresent: present)
    }

    /// On the single writer, outside any transaction (callers open their own).
    /// `injecting`: fail at `.manifestWrite` before `body` (a store injects inside its transaction, where it cleans up).
    func write<T>(injecting: Bool = true, _ body: (Database) throws -> T) throws(CacheError) -> T {
        try refuseIfReadOnly()
        let files = self.files
        return try Self.using(pool, layout, writing: true) { db in
            if injecting { try files.failIfInjected(.manifestWrite, path: files.layout.manifestPath) }
            return try body(db)
        }
    }

    private func refuseIfReadOnly() throws(CacheError) {
        if readOnly { throw .database(path: layout.manifestPath, reason: "the cache was opened read-only, for reading") }
    }

    func read<T>(_ body: (Database) throws -> T) throws(CacheError) -> T {
        try Self.using(pool, layout, body)
    }

    /// In key order, `batchSize` rows at a time, so memory does not grow with the manifest.
    static func forEachBatch(of pool: DatabasePool, layout: CacheLayout, where condition: String = "1", batchSize: Int,
                             _ body: ([ManifestRow]) throws(CacheError) -> Void) throws(CacheError) {
        var after = (url: "", variant: "")
        while true {
            let batch = try using(pool, layout) { db in
                try ManifestRow.fetchAll(db, sql: """
                    SELECT * FROM entry WHERE \(condition) AND (url, variant) > (?, ?) ORDER BY url, variant LIMIT ?
                    """, arguments: [after.url, after.variant, batchSize])
            }
            guard let last = batch.last else { return }
            try body(batch)
            after = (last.url, last.variant)
        }
    }

    /// A reader of a manifest's `pool`, or its writer outside any transaction when `writing`.
    static func using<T>(_ pool: DatabasePool, _ layout: CacheLayout, writing: Bool = false,
                         _ body: (Database) throws -> T) throws(CacheError) -> T {
        do {
            guard writing else { return try pool.read(body) }
            return try pool.writeWithoutTransaction { db in
                // A closed pool still runs writer blocks; refuse before SQLite sees a closed handle.
                guard db.sqliteConnection != nil else { throw CacheError.closed(path: layout.root) }
                return try body(db)
            }
        } catch {
            throw mapDatabaseError(error, layout: layout)
        }
    }

    static func mapDatabaseError(_ error: any Error, layout: CacheLayout) -> CacheError {
        mapDatabaseError(error, manifestPath: layout.manifestPath, root: layout.root)
    }

    /// `manifestPath`: the file the error names (a published snapshot's, for its readers).
    static func mapDatabaseError(_ error: any Error, manifestPath: String, root: String? = nil) -> CacheError {
        if let cacheError = error as? CacheError { return cacheError }
        if let databaseError = error as? DatabaseError {
            if databaseError.resultCode == .SQLITE_FULL { return .diskFull(path: manifestPath) }
            if [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(databaseError.resultCode) {
                return .manifestBroken(path: manifestPath, reason: databaseError.message ?? "\(databaseError)")
            }
            if databaseError.resultCode == .SQLITE_MISUSE && databaseError.message == "Connection is closed" {
                return .closed(path: root ?? manifestPath)
            }
            return .database(path: manifestPath, reason: databaseError.message ?? "\(databaseError)")
        }
        return .database(path: manifestPath, reason: "\(error)")
    }
}
