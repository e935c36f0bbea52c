/// Records of sharded or sampled runs put back into one catalog: shards write
/// their shares, and a sample its measured records, out of catalog order.
public enum ShardedRecords {
    /// Sorted as the newest-first list is, so two runs count "images that fit" over one sequence; a URL
    /// already seen in the same role (shards of two different counts) is dropped; a list thumbnail that is also a
    /// carousel image keeps both records.
    public static func inCatalogOrder(_ records: [ImageMetricsRecord]) -> [ImageMetricsRecord] {
        var seen = Set<String>()
        let unique = records.filter { seen.insert(($0.role ?? "") + " " + $0.url).inserted }
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
