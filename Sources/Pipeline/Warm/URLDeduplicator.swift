import Cache

/// The dedup table: the first product that names a thumbnail URL schedules
/// its download; later products that share it only add their ids. Memory: one
/// entry per distinct URL (tens of bytes each), the only state of a run that
/// grows with the catalog.
actor URLDeduplicator {
    private var productIdsByURL: [CanonicalURL: [Int]] = [:]

    /// True when `url` is new (the caller schedules it).
    func claim(_ url: CanonicalURL, productId: Int) -> Bool {
        if productIdsByURL[url] != nil {
            productIdsByURL[url]!.append(productId)
            return false
        }
        productIdsByURL[url] = [productId]
        return true
    }

    /// URLs named by more than one product, with all their ids.
    func shared() -> [(url: CanonicalURL, productIds: [Int])] {
        productIdsByURL.filter { $0.value.count > 1 }.map { ($0.key, $0.value) }
    }

    /// Every distinct URL seen (for `CachePruning`: what the list still names).
    func allURLs() -> [CanonicalURL] { Array(productIdsByURL.keys) }
}
