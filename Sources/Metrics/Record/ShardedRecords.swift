/// Records of sharded or sampled runs put back into one catalog: shards write
/// their shares, and a sample its measured records, out of catalog order.
public enum ShardedRecords {
    /// Records sorted as the newest-first product list is (product id
    /// descending, none last, then URL), so that two runs over one catalog
    /// count "images that fit in a cache" over the same sequence; a URL
    /// already seen (two runs of different shard counts) is dropped.
    public static func inCatalogOrder(_ records: [ImageMetricsRecord]) -> [ImageMetricsRecord] {
        var seen = Set<String>()
        let unique = records.filter { seen.insert($0.url).inserted }
        return unique.sorted { a, b in
            switch (a.productId, b.productId) {
            case let (x?, y?) where x != y: return x > y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.url < b.url
            }
        }
    }
}
