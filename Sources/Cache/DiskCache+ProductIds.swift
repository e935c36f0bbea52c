import GRDB

extension DiskCache {
    /// Adds product ids to every row of `url` (products that share a thumbnail
    /// are found while the crawl goes on, after the first one was stored).
    /// Returns the number of rows updated.
    @discardableResult
    public func addProductIds(url canonical: CanonicalURL, productIds: [Int]) throws(CacheError) -> Int {
        return try write { db in
            var updated = 0
            for var row in try ManifestRow.filter(ManifestRow.Columns.url == canonical.text).fetchAll(db) {
                let merged = Self.merged(row.productIds, productIds)
                guard merged != row.productIds else { continue }
                row.productIds = merged
                try row.update(db)
                updated += 1
            }
            return updated
        }
    }
}
