import GRDB
import GRDBSQLite

/// The schema changes only through `migrator`, so an old cache directory is upgraded in place on open.
enum Manifest {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: entry table") { db in
            try db.create(table: ManifestRow.databaseTableName) { table in
                table.column("url", .text).notNull()
                table.column("variant", .text).notNull()
                table.primaryKey(["url", "variant"])
                table.column("productIds", .text).notNull().defaults(to: "[]")
                let fileColumns: [(String, Database.ColumnType)] = [
                    ("path", .text), ("etag", .text), ("lastModified", .text), ("sourceBytes", .integer),
                    ("sourceFormat", .text), ("sourceWidth", .integer), ("sourceHeight", .integer),
                    ("outputBytes", .integer), ("outputWidth", .integer), ("outputHeight", .integer),
                    ("fetchedAt", .double), ("expiresAt", .double),
                ]
                for (name, type) in fileColumns { table.column(name, type) }
                table.column("lastAccessAt", .double).notNull()
                table.column("lastError", .text)
                table.column("failedAt", .double)
                // A row that names a file must say how big it is and when it expires.
                table.check(sql: "path IS NULL OR (outputBytes IS NOT NULL AND fetchedAt IS NOT NULL AND expiresAt IS NOT NULL)")
            }
            // Eviction walks rows with files in least-recently-used order.
            try db.create(index: "entry_on_lastAccessAt", on: ManifestRow.databaseTableName, columns: ["lastAccessAt"])
        }
        migrator.registerMigration("v2: lastListedAt, pruned keys") { db in
            // The best guess an old cache allows: last listed no later than last use, download or failure.
            // A run that sees the whole list sets the true value before it prunes.
            try db.alter(table: ManifestRow.databaseTableName) { table in
                table.add(column: "lastListedAt", .double).notNull().defaults(to: 0)
            }
            try db.execute(sql: """
                UPDATE entry SET lastListedAt = MAX(lastAccessAt, COALESCE(fetchedAt, 0), COALESCE(failedAt, 0))
                """)
            try db.create(index: "entry_on_lastListedAt", on: ManifestRow.databaseTableName, columns: ["lastListedAt"])
            // A shard's pruned keys, kept until `mergeShards` has removed them from the tree's manifest too.
            try db.create(table: PrunedKey.databaseTableName) { table in
                table.column("url", .text).notNull()
                table.column("variant", .text).notNull()
                table.primaryKey(["url", "variant"])
                table.column("prunedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v3: placeholder") { db in
            // Old rows have none until a run decodes their image again.
            try db.alter(table: ManifestRow.databaseTableName) { table in
                table.add(column: "thumbHash", .blob)
                table.add(column: "averageColor", .text)
            }
        }
        migrator.registerMigration("v4: file validators") { db in
            // NULL in old rows; `DiskCache.open` fills them from the files (`fillMissingValidators`).
            try db.alter(table: ManifestRow.databaseTableName) { table in
                table.add(column: "sha256", .text)
                table.add(column: "fileInode", .integer)
                table.add(column: "fileModifiedAtNanoseconds", .integer)
            }
        }
        migrator.registerMigration("v5: carousel placements", migrate: addCarouselColumn)
        return migrator
    }

    /// Empty in old rows until a run reads the products' details.
    private static func addCarouselColumn(_ db: Database) throws {
        try db.alter(table: ManifestRow.databaseTableName) { table in
            table.add(column: "carousel", .text).notNull().defaults(to: "[]")
        }
    }

    /// Persistent WAL (`SQLITE_FCNTL_PERSIST_WAL`) on every connection: the last one to close leaves `-wal` (emptied by
    /// `DiskCache.close`'s checkpoint) and `-shm` in place instead of deleting them. A reader opening a manifest whose
    /// `-shm` is gone must create it and write a byte into each of its pages, which fails on a full disk ("disk I/O
    /// error"), so without this `warm cache get` and `stats` failed on a full volume; with the files kept, reading needs
    /// no free block (FullDiskTests).
    static func keepWALFiles(_ db: Database) throws {
        var flag: CInt = 1
        let code = withUnsafeMutablePointer(to: &flag) { sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, $0) }
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }

    /// WAL mode (`DatabasePool` turns it on), pending migrations applied.
    /// A writer waits up to 10 s for SQLite's write lock before failing.
    static func open(_ layout: CacheLayout) throws(CacheError) -> DatabasePool {
        var databaseConfiguration = Configuration()
        databaseConfiguration.label = "warm.cache.manifest"
        databaseConfiguration.busyMode = .timeout(10)
        databaseConfiguration.prepareDatabase { db in
            try keepWALFiles(db)
            // WAL + NORMAL never corrupts; losing last commits is harmless as every file is fsynced before its row.
            // Eviction and prune, whose deletions must be durable before files go, commit with FULL.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            let pool = try DatabasePool(path: layout.manifestPath, configuration: databaseConfiguration)
            try migrator.migrate(pool)
            return pool
        } catch {
            throw DiskCache.mapDatabaseError(error, layout: layout)
        }
    }

    /// A published snapshot (`PublishedManifest`), read-only with SQLite's `immutable=1`: SQLite takes no lock and
    /// opens no `-shm`, `-wal` or `-journal`, which is only right for a file nobody writes again, and what makes reading
    /// it from several hosts over a network volume safe. Needs SQLite built with URI names (`SQLITE_USE_URI`, as
    /// Debian's is; GRDB passes no `SQLITE_OPEN_URI`): otherwise the open fails, nothing is read wrongly.
    static func openSnapshot(path: String, readerCount: Int = 1) throws(CacheError) -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "warm.cache.manifest.snapshot"
        configuration.readonly = true
        configuration.maximumReaderCount = max(1, readerCount)
        do {
            return try DatabasePool(path: immutableURI(path), configuration: configuration)
        } catch {
            throw DiskCache.mapDatabaseError(error, manifestPath: path)
        }
    }

    /// `file:<path>?immutable=1`, with the characters a URI path gives meaning to escaped.
    static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return "file:" + escaped + "?immutable=1"
    }

    /// Opened `SQLITE_OPEN_READONLY`, so nothing it does can need a free block (`warm cache stats`, `verify`, `export` on
    /// a full disk); nil when the schema has migrations pending (an older warm's manifest, upgraded by a writable open).
    static func openReadOnly(_ layout: CacheLayout) throws(CacheError) -> DatabasePool? {
        var configuration = Configuration()
        configuration.label = "warm.cache.manifest.read-only"
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try keepWALFiles(db) }
        do {
            let pool = try DatabasePool(path: layout.manifestPath, configuration: configuration)
            guard try pool.read(migrator.hasCompletedMigrations) else {
                try pool.close()
                return nil
            }
            return pool
        } catch {
            throw DiskCache.mapDatabaseError(error, layout: layout)
        }
    }
}
