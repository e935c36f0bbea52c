/// Records of a sharded run, read from every shard's metrics file, put back
/// into one catalog: each shard writes its share of the images in the order it
/// measured them, so the files read one after another are not in catalog order.
/// A sampled run's file is not in catalog order either: the records of images
/// outside the sample are written as they are warmed, the sample's once measured.
public enum ShardedRecords {
    /// Records in catalog order: sorted the way the newest-first product list
    /// is (product id descending, records without a product id last, then by
    /// URL). An unsharded run writes them in about that order, up to the jitter
    /// of its concurrent workers and measurements, so every file is sorted: two
    /// runs over one catalog then count "images that fit in a cache" over the
    /// same sequence. Also drops a record whose URL an earlier one of another
    /// shard already has (the same image measured by two runs of different
    /// shard counts), so no image counts twice.
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
