import GRDB

/// A manifest as an older `warm` left it, for the tests of the migrations that upgrade it.
public enum ManifestDowngrade {
    /// Drops the v4 validator columns and forgets their migration (a cache from before file validators).
    public static func toV3(manifestPath: String) throws {
        let queue = try DatabaseQueue(path: manifestPath)
        try queue.write { db in
            for column in ["sha256", "fileInode", "fileModifiedAtNanoseconds"] {
                try db.execute(sql: "ALTER TABLE entry DROP COLUMN \(column)")
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4: file validators'")
        }
        try queue.close()
    }
}
