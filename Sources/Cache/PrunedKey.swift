import GRDB

/// A key a shard pruned; `mergeShards` removes it from the tree's manifest (unless downloaded after `prunedAt`), then
/// forgets it, so a merge never brings a pruned row back and the table stays small.
struct PrunedKey: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pruned"

    var url: String
    var variant: String
    var prunedAt: Double

    /// On a store or failure record of the key.
    static func delete(_ db: Database, url: CanonicalURL, variant: CacheVariant) throws {
        try db.cachedStatement(sql: "DELETE FROM pruned WHERE url = ? AND variant = ?")
            .execute(arguments: [url.text, variant.name])
    }
}
