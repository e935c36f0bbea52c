/// Records of a sharded run, read from every shard's metrics file, put back
/// into one catalog: each shard writes its share of the images in the order it
/// measured them, so the files read one after another are not in catalog order.
/// A sampled run's file is not in catalog order either: the records of images
/// outside the sample are written as they are warmed, the sample's once measured.
public enum ShardedRecords {
    /// Records in catalog order. When any record carries a shard or is unmeasured, they are
    /// sorted the way the newest-first product list is (product id descending,
    /// records without a product id last, then by URL), which is the order an
    /// unsharded run writes, up to the jitter of its concurrent workers. Records
    /// of unsharded, fully measured runs keep their file order. Also drops a record whose URL an
    /// earlier one of another shard already has (the same image measured by two
    /// runs of different shard counts), so no image counts twice.
    public static func inCatalogOrder(_ records: [ImageMetricsRecord]) -> [ImageMetricsRecord] {
        guard records.contains(where: { $0.shard != nil || !$0.measured }) else { return records }
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
