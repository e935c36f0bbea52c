/// The dedup table: the first product that names a thumbnail URL schedules
/// its download; later products that share it only add their ids. Memory: one
/// entry per distinct URL (tens of bytes each), the only state of a run that
/// grows with the catalog.
actor URLDeduplicator {
    private var productIdsByURL: [String: [Int]] = [:]

    /// True when `canonicalURL` is new (the caller schedules it).
    func claim(_ canonicalURL: String, productId: Int) -> Bool {
        if productIdsByURL[canonicalURL] != nil {
            productIdsByURL[canonicalURL]!.append(productId)
            return false
        }
        productIdsByURL[canonicalURL] = [productId]
        return true
    }

    /// URLs named by more than one product, with all their ids.
    func shared() -> [(url: String, productIds: [Int])] {
        productIdsByURL.filter { $0.value.count > 1 }.map { ($0.key, $0.value) }
    }

    var distinctURLCount: Int { productIdsByURL.count }

    /// Every distinct URL seen (for `CachePruning`: what the list still names).
    func allURLs() -> [String] { Array(productIdsByURL.keys) }
}
