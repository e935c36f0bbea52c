import GRDB

/// A key a shard pruned: a row of the `pruned` table of a shard's manifest.
/// `mergeShards` removes the key from the tree's manifest too (unless the
/// tree's row names a file downloaded after `prunedAt`) and then forgets it,
/// so a merge never brings a pruned row back and the table stays small.
struct PrunedKey: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pruned"

    var url: String
    var variant: String
    var prunedAt: Double

    /// Forgets one key (a store or failure record of it), with a statement prepared once per connection.
    static func delete(_ db: Database, url: CanonicalURL, variant: CacheVariant) throws {
        try db.cachedStatement(sql: "DELETE FROM pruned WHERE url = ? AND variant = ?")
            .execute(arguments: [url.text, variant.name])
    }
}
